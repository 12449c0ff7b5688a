package papi

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"

	"learngate"
	"learngate/handlers/httpx"
	"learngate/input"
	"learngate/records"
	"learngate/store"
	"learngate/store/list"
)

// Topic enrolments (docs/api.md, "Enrolment codes and enrolments"; docs/decisions.md,
// "Lists and paging" and "Enrolments"). The lists answer a bad query with a bare JSON string;
// POST /topic_assignments answers {"errors": [...]}; progress {"error": ...}.

// createTopicAssignments answers POST /papi/topic_assignments: applies the
// user's enrolment codes, all or nothing, and answers 200
// {"assignments": [...]} with the enrolment each code left; 400 naming every
// bad code or date; 404 when the user does not exist.
func (a *API) createTopicAssignments(c *gin.Context) {
	body, err := decodeUserBody(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	who, err := records.EnrolmentUser(body)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	reqs := records.EnrolmentFields(body)
	assignments, err := store.AssignEnrolments(c.Request.Context(), httpx.TenantDB(c), who, reqs, a.gate.Now())
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	if assignments == nil {
		assignments = []learngate.Enrolment{}
	}
	c.JSON(http.StatusOK, gin.H{"assignments": assignments})
}

// listTopicAssignments answers GET /papi/topic_assignments: current topic
// enrolments, oldest first, records.Filtered by topic_ids, topic_id, user_name,
// user_id, updated_after and updated_before.
func (a *API) listTopicAssignments(c *gin.Context) {
	listEnrolments(a, c, "topic_ids", "topic_id", nil, store.ListTopicEnrolments)
}

// listTopicAssignmentsByTopic answers GET /papi/topic_assignments/by_topic/{id}.
func (a *API) listTopicAssignmentsByTopic(c *gin.Context) {
	listEnrolments(a, c, "topic_ids", "topic_id", narrowToTarget("topic_id"), store.ListTopicEnrolments)
}

// listTopicAssignmentsByUser answers GET /papi/topic_assignments/by_user/{id}
// (the internal user id).
func (a *API) listTopicAssignmentsByUser(c *gin.Context) {
	listEnrolments(a, c, "topic_ids", "topic_id", narrowToUser, store.ListTopicEnrolments)
}

// listEnrolments answers a topic or pathway enrolment list: it reads the
// page and the filters (idsParam, idParam, user_name, user_id, times),
// narrows them by the path's :id when narrow is set, and lists with list.
func listEnrolments[T learngate.Keyed](a *API, c *gin.Context, idsParam, idParam string, narrow func(*gin.Context, *list.EnrolmentFilter) error,
	list func(context.Context, *store.TenantDB, list.EnrolmentFilter, list.Page) ([]T, int64, error)) {
	page, err := a.parsePage(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	f, err := enrolmentFilter(c, idsParam, idParam)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	if narrow != nil {
		if err := narrow(c, &f); err != nil {
			httpx.RespondError(c, err)
			return
		}
	}
	records, total, err := list(c.Request.Context(), httpx.TenantDB(c), f, page)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	respondList(c, a, records, total, page)
}

// listUserTopicAssignments answers GET /papi/topic_assignments/user/{user_name}
// (any letter case): the user's current topic enrolments, or 404 "not found".
func (a *API) listUserTopicAssignments(c *gin.Context) {
	page, err := a.parsePage(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	f, err := enrolmentFilter(c, "topic_ids", "topic_id")
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	userName, err := pathText(c, "user_name")
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	records, total, err := store.ListUserTopicEnrolments(c.Request.Context(), httpx.TenantDB(c), userName, f, page)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	respondList(c, a, records, total, page)
}

// recordProgress answers POST /papi/topic_assignments/{id}/progress
// {"status": "Exploring"|"Applying"|"Conquered", "minutes": n}: 200 with the
// topic enrolment; 400 {"error"} for a bad body or a move backwards; 404
// {"error":"not found"} for no such current enrolment.
func (a *API) recordProgress(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	body, err := decodeUserBody(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	p, err := parseProgress(body)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	enrolment, err := store.RecordProgress(c.Request.Context(), httpx.TenantDB(c), id, p, a.gate.Now())
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.JSON(http.StatusOK, enrolment)
}

// parseProgress reads a progress body: status required (any letter case),
// minutes optional (a whole number, default 0).
func parseProgress(body map[string]any) (learngate.Progress, error) {
	var p learngate.Progress
	v, ok := body["status"]
	if !ok || v == nil {
		return p, learngate.Errorf(learngate.Invalid, "Missing parameter 'status'")
	}
	status, err := input.OneOf("status", v, learngate.ProgressStatuses)
	if err != nil {
		return p, err
	}
	p.Status = status
	if v, ok := body["minutes"]; ok && v != nil {
		if p.Minutes, err = input.Int("minutes", v); err != nil {
			return p, err
		}
	}
	return p, nil
}

// narrowToTarget returns the narrowing of a by_topic or by_pathway list:
// the path's :id is the topic or pathway id (name), an integer, else 400
// naming name.
func narrowToTarget(name string) func(*gin.Context, *list.EnrolmentFilter) error {
	return func(c *gin.Context, f *list.EnrolmentFilter) error {
		id, err := input.Int(name, c.Param("id"))
		f.TargetID = &id
		return err
	}
}

// narrowToUser is the narrowing of a by_user list: the path's :id is the
// internal user id, an integer, else 400 naming user_id.
func narrowToUser(c *gin.Context, f *list.EnrolmentFilter) error {
	id, err := input.Int("user_id", c.Param("id"))
	f.UserID = &id
	return err
}
