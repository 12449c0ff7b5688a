package ops

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"learngate"
	"learngate/handlers/httpx"
)

// addDomainRequest is the body of POST /ops/v1/tenants/{slug}/domains.
type addDomainRequest struct {
	Domain string `json:"domain"`
}

// addDomain attaches a custom domain: 201 with the tenant; 409 when taken.
func (a *API) addDomain(c *gin.Context) {
	var req addDomainRequest
	if err := httpx.DecodeStrict(c, &req); err != nil {
		httpx.RespondError(c, err)
		return
	}
	t, err := a.deps.Tenants.AddDomain(c.Request.Context(), c.Param("slug"), req.Domain)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.JSON(http.StatusCreated, a.tenantView(c, t))
}

// removeDomain detaches a custom domain: 204.
func (a *API) removeDomain(c *gin.Context) {
	if err := a.deps.Tenants.RemoveDomain(c.Request.Context(), c.Param("slug"), c.Param("domain")); err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

// createdKey is a new key as ops see it: its record plus its text, once.
type createdKey struct {
	keyView
	Key string `json:"api_key"`
}

// createKey makes a new API key: 201 with the key's text, shown only now.
func (a *API) createKey(c *gin.Context) {
	k, text, err := a.deps.Tenants.CreateKey(c.Request.Context(), c.Param("slug"))
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.JSON(http.StatusCreated, createdKey{keyView: viewKey(k), Key: text})
}

// listKeys answers a tenant's keys (id, prefix, created_at, last_used_at,
// revoked_at) as a JSON array.
func (a *API) listKeys(c *gin.Context) {
	keys, err := a.deps.Tenants.ListKeys(c.Request.Context(), c.Param("slug"))
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	out := make([]keyView, len(keys))
	for i, k := range keys {
		out[i] = viewKey(k)
	}
	c.JSON(http.StatusOK, out)
}

// revokeKey revokes a key: 204.
func (a *API) revokeKey(c *gin.Context) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id < 1 {
		httpx.RespondError(c, learngate.Errorf(learngate.NotFound, "api key %s not found", c.Param("id")))
		return
	}
	if err := a.deps.Tenants.RevokeKey(c.Request.Context(), c.Param("slug"), id); err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}
