package ops

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"learngate"
	"learngate/handlers/httpx"
)

// Tenant placement on a Citus cluster (docs/operations.md, "Moving tenants between database nodes"):
// where a tenant's schema lives, and moving it to another worker.

// tenantView returns t as the ops API shows it, with its database node. A
// node that cannot be read (a catalog error) leaves database_node null
// rather than failing the answer: the tenant itself was read or written.
func (a *API) tenantView(c *gin.Context, t learngate.Tenant) tenantView {
	nodes, err := a.deps.Tenants.DatabaseNodes(c.Request.Context(), t)
	if err != nil {
		httpx.Logger(c).Warn("database node of tenant", "request_id", httpx.RequestID(c), "tenant", t.Slug, "err", err)
	}
	return viewTenant(t, nodes[t.Schema])
}

// moveRequest is the body of POST /ops/v1/tenants/{slug}/move.
type moveRequest struct {
	Node *string `json:"node"`
}

// moveTenant queues the move of the tenant's schema to another worker:
// 202 {"move": {...}} with a Location to poll.
func (a *API) moveTenant(c *gin.Context) {
	var req moveRequest
	if err := httpx.DecodeStrict(c, &req); err != nil {
		httpx.RespondError(c, err)
		return
	}
	if req.Node == nil || *req.Node == "" {
		httpx.RespondError(c, learngate.Errorf(learngate.Invalid, "node is required (\"host:port\" of a worker node)"))
		return
	}
	slug := c.Param("slug")
	m, err := a.deps.Tenants.Move(c.Request.Context(), slug, *req.Node)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.Header("Location", "/ops/v1/tenants/"+slug+"/moves/"+strconv.FormatInt(m.ID, 10))
	c.JSON(http.StatusAccepted, gin.H{"move": viewMove(m)})
}

// showMove answers one move of the tenant, with its progress while it runs.
func (a *API) showMove(c *gin.Context) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		httpx.RespondError(c, learngate.Errorf(learngate.NotFound, "move %s of tenant %s not found", c.Param("id"), c.Param("slug")))
		return
	}
	m, err := a.deps.Tenants.ShowMove(c.Request.Context(), c.Param("slug"), id)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"move": viewMove(m)})
}
