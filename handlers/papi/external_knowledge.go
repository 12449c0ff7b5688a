package papi

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"learngate"
	"learngate/handlers/httpx"
	"learngate/input"
	"learngate/records"
	"learngate/store"
	"learngate/store/list"
)

// External knowledge (docs/api.md, "External knowledge"; docs/decisions.md,
// "Lists and paging" and "External knowledge"). GET routes answer 400 and 404 as bare JSON strings
// (StyleString); POST and PUT answer 404 "not found" as a string and other
// errors as {"error": ...} (StyleKnowledge); the batch adds the failing
// record's index and user_name to its 400s (StyleKnowledgeBatch).

// listExternalKnowledges answers GET /papi/external_knowledges: oldest
// first, in the list envelope, records.Filtered by updated_after, updated_before
// and user_name.
func (a *API) listExternalKnowledges(c *gin.Context) {
	page, updated, err := a.parseListQuery(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	f := list.KnowledgeFilter{UpdatedFilter: updated}
	if f.UserName, err = input.QueryText("user_name", c.Query("user_name")); err != nil {
		httpx.RespondError(c, err)
		return
	}
	records, total, err := store.ListExternalKnowledges(c.Request.Context(), httpx.TenantDB(c), f, page)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	respondList(c, a, records, total, page)
}

// showExternalKnowledge answers GET /papi/external_knowledges/{id}: the
// record, or 404 "not found".
func (a *API) showExternalKnowledge(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	k, err := store.GetExternalKnowledge(c.Request.Context(), httpx.TenantDB(c), id)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.JSON(http.StatusOK, k)
}

// createExternalKnowledge answers POST /papi/external_knowledges: 201 with
// the record; 400 {"error"} for invalid input; 404 "not found" when no user
// has the user_name.
func (a *API) createExternalKnowledge(c *gin.Context) {
	body, err := decodeUserBody(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	in, err := records.ParseKnowledge(body, true, a.tenantToday(c))
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	k, err := store.CreateExternalKnowledge(c.Request.Context(), httpx.TenantDB(c), in, a.gate.Now())
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.JSON(http.StatusCreated, k)
}

// updateExternalKnowledge answers PUT /papi/external_knowledges/{id}: only
// the given fields change; 200 with the record, 404 "not found", 400
// {"error"} for invalid input or a user_name of another user.
func (a *API) updateExternalKnowledge(c *gin.Context) {
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
	in, err := records.ParseKnowledge(body, false, time.Time{})
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	k, err := store.UpdateExternalKnowledge(c.Request.Context(), httpx.TenantDB(c), id, in, a.gate.Now())
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.JSON(http.StatusOK, k)
}

// batchSaveExternalKnowledges answers POST
// /papi/external_knowledges/batch_save: every record is created, or none.
// 200 {"created", "updated": 0, "unchanged": 0}; 400 {"error", "index",
// "user_name"} naming the first failing record, or with index and
// user_name null for a body without a usable external_knowledges array.
func (a *API) batchSaveExternalKnowledges(c *gin.Context) {
	body, err := decodeUserBody(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	items, err := knowledgeBatchItems(body)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	rows := records.KnowledgeBatchRows(items, a.tenantToday(c))
	res, err := store.BatchCreateExternalKnowledges(c.Request.Context(), httpx.TenantDB(c), rows, a.gate.Now())
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.JSON(http.StatusOK, res)
}

// knowledgeBatchItems returns the external_knowledges array of a batch
// body: Invalid when it is missing, not an array, empty or longer than
// store.MaxBatchKnowledges.
func knowledgeBatchItems(body map[string]any) ([]any, error) {
	const field = "external_knowledges"
	v, ok := body[field]
	if !ok || v == nil {
		return nil, records.MissingParameter(field)
	}
	items, ok := v.([]any)
	if !ok {
		return nil, input.IllegalValue(field, v)
	}
	switch {
	case len(items) == 0:
		return nil, learngate.Errorf(learngate.Invalid, "'%s' must hold at least one record", field)
	case len(items) > store.MaxBatchKnowledges:
		return nil, learngate.Errorf(learngate.Invalid, "'%s' may hold at most %d records, %d given",
			field, store.MaxBatchKnowledges, len(items))
	}
	return items, nil
}

// tenantToday is today's date in the tenant's time zone, at midnight UTC
// as input.Date gives dates: the date_obtained of a record sent without one.
func (a *API) tenantToday(c *gin.Context) time.Time {
	return records.TenantToday(httpx.CurrentTenant(c).Timezone, a.gate.Now())
}
