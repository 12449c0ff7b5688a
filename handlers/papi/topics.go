package papi

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"learngate/handlers/httpx"
	"learngate/records"
	"learngate/store"
)

// Topics (docs/decisions.md, "Catalog, topics and pathways"): GET/POST /papi/topics and GET/PUT
// /papi/topics/{id}. Errors are {"error": "..."}; the list answers a bad
// page, per_page or time filter as the other lists do.

// listTopics answers GET /papi/topics: oldest first, in the list envelope,
// records.Filtered by updated_after and updated_before.
func (a *API) listTopics(c *gin.Context) {
	page, f, err := a.parseListQuery(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	topics, total, err := store.ListTopics(c.Request.Context(), httpx.TenantDB(c), f, page)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	respondList(c, a, topics, total, page)
}

// createTopic answers POST /papi/topics: 201 with the topic; 400 for a bad
// body or value; 422 when the enrolment code is taken.
func (a *API) createTopic(c *gin.Context) {
	body, err := decodeUserBody(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	in, err := records.ParseTopic(body, true)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	topic, err := store.CreateTopic(c.Request.Context(), httpx.TenantDB(c), in, a.gate.Now())
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.JSON(http.StatusCreated, topic)
}

// showTopic answers GET /papi/topics/{id}: the topic, or 404.
func (a *API) showTopic(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	topic, err := store.GetTopic(c.Request.Context(), httpx.TenantDB(c), id)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.JSON(http.StatusOK, topic)
}

// updateTopic answers PUT /papi/topics/{id}: only the given fields change;
// 200 with the topic, 404 for no such topic, else as createTopic.
func (a *API) updateTopic(c *gin.Context) {
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
	in, err := records.ParseTopic(body, false)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	topic, err := store.UpdateTopic(c.Request.Context(), httpx.TenantDB(c), id, in, a.gate.Now())
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.JSON(http.StatusOK, topic)
}
