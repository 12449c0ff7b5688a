package papi

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"learngate/handlers/httpx"
	"learngate/records"
	"learngate/store"
)

// Pathways (docs/decisions.md, "Catalog, topics and pathways"): GET/POST /papi/pathways and GET/PUT
// /papi/pathways/{id}. Errors are {"error": "..."}; the list answers a bad
// page, per_page or time filter as the other lists do.

// listPathways answers GET /papi/pathways: oldest first, in the list
// envelope, records.Filtered by updated_after and updated_before.
func (a *API) listPathways(c *gin.Context) {
	page, f, err := a.parseListQuery(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	pathways, total, err := store.ListPathways(c.Request.Context(), httpx.TenantDB(c), f, page)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	respondList(c, a, pathways, total, page)
}

// createPathway answers POST /papi/pathways: 201 with the pathway; 400 for
// a bad body or value (an unknown or repeated topic among them); 422 when
// the enrolment code is taken.
func (a *API) createPathway(c *gin.Context) {
	body, err := decodeUserBody(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	in, err := records.ParsePathway(body, true)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	pathway, err := store.CreatePathway(c.Request.Context(), httpx.TenantDB(c), in, a.gate.Now())
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.JSON(http.StatusCreated, pathway)
}

// showPathway answers GET /papi/pathways/{id}: the pathway, or 404.
func (a *API) showPathway(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	pathway, err := store.GetPathway(c.Request.Context(), httpx.TenantDB(c), id)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.JSON(http.StatusOK, pathway)
}

// updatePathway answers PUT /papi/pathways/{id}: only the given fields
// change (topics, when given, replace the list); 200 with the pathway, 404
// for no such pathway, else as createPathway.
func (a *API) updatePathway(c *gin.Context) {
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
	in, err := records.ParsePathway(body, false)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	pathway, err := store.UpdatePathway(c.Request.Context(), httpx.TenantDB(c), id, in, a.gate.Now())
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.JSON(http.StatusOK, pathway)
}
