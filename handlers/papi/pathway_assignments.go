package papi

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"learngate/handlers/httpx"
	"learngate/store"
)

// Pathway enrolments (docs/api.md, "Enrolment codes and enrolments"; docs/decisions.md,
// "Lists and paging" and "Enrolments"). They are created and changed through POST
// /topic_assignments and batch save; these routes read them.

// listPathwayAssignments answers GET /papi/pathway_assignments: current
// pathway enrolments, oldest first, records.Filtered by pathway_ids, pathway_id,
// user_name, user_id, updated_after and updated_before.
func (a *API) listPathwayAssignments(c *gin.Context) {
	listEnrolments(a, c, "pathway_ids", "pathway_id", nil, store.ListPathwayEnrolments)
}

// listPathwayAssignmentsByPathway answers GET /papi/pathway_assignments/by_pathway/{id}.
func (a *API) listPathwayAssignmentsByPathway(c *gin.Context) {
	listEnrolments(a, c, "pathway_ids", "pathway_id", narrowToTarget("pathway_id"), store.ListPathwayEnrolments)
}

// listPathwayAssignmentsByUser answers GET /papi/pathway_assignments/by_user/{id}
// (the internal user id).
func (a *API) listPathwayAssignmentsByUser(c *gin.Context) {
	listEnrolments(a, c, "pathway_ids", "pathway_id", narrowToUser, store.ListPathwayEnrolments)
}

// showPathwayAssignment answers GET /papi/pathway_assignments/{id}: the
// current pathway enrolment, or 404 {"error":"cannot find pathway assignment"}
// (also for an id that is not a positive integer).
func (a *API) showPathwayAssignment(c *gin.Context) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id < 1 {
		httpx.RespondError(c, store.PathwayEnrolmentNotFound())
		return
	}
	enrolment, err := store.GetPathwayEnrolment(c.Request.Context(), httpx.TenantDB(c), id)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.JSON(http.StatusOK, enrolment)
}
