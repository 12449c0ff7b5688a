package handlers

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"learngate/store"
)

// Pathway enrolments (public-api-v1.md, Pathway enrolments; DECISIONS.md
// sections 4 and 7). They are created and changed through POST
// /topic_assignments and batch save; these routes read them.

// listPathwayAssignments answers GET /papi/pathway_assignments: current
// pathway enrolments, oldest first, filtered by pathway_ids, pathway_id,
// user_name, user_id, updated_after and updated_before.
func (s *Server) listPathwayAssignments(c *gin.Context) {
	s.listPathwayEnrolments(c, nil)
}

// listPathwayAssignmentsByPathway answers GET /papi/pathway_assignments/by_pathway/{id}.
func (s *Server) listPathwayAssignmentsByPathway(c *gin.Context) {
	s.listPathwayEnrolments(c, narrowToTarget("pathway_id"))
}

// listPathwayAssignmentsByUser answers GET /papi/pathway_assignments/by_user/{id}
// (the internal user id).
func (s *Server) listPathwayAssignmentsByUser(c *gin.Context) {
	s.listPathwayEnrolments(c, narrowToUser)
}

// listPathwayEnrolments reads the page and filters and answers the list;
// narrow, when set, adds the filter of the path's :id.
func (s *Server) listPathwayEnrolments(c *gin.Context, narrow func(*gin.Context, *store.EnrolmentFilter) error) {
	page, err := parsePage(c)
	if err != nil {
		respondError(c, err)
		return
	}
	f, err := enrolmentFilter(c, "pathway_ids", "pathway_id")
	if err != nil {
		respondError(c, err)
		return
	}
	if narrow != nil {
		if err := narrow(c, &f); err != nil {
			respondError(c, err)
			return
		}
	}
	records, total, err := store.ListPathwayEnrolments(c.Request.Context(), tenantDB(c), f, page)
	if err != nil {
		respondError(c, err)
		return
	}
	c.JSON(http.StatusOK, newListEnvelope(records, total, page))
}

// showPathwayAssignment answers GET /papi/pathway_assignments/{id}: the
// current pathway enrolment, or 404 {"error":"cannot find pathway assignment"}
// (also for an id that is not a positive integer).
func (s *Server) showPathwayAssignment(c *gin.Context) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id < 1 {
		respondError(c, store.PathwayEnrolmentNotFound())
		return
	}
	enrolment, err := store.GetPathwayEnrolment(c.Request.Context(), tenantDB(c), id)
	if err != nil {
		respondError(c, err)
		return
	}
	c.JSON(http.StatusOK, enrolment)
}
