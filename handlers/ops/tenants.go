package ops

import (
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"learngate"
	"learngate/handlers/httpx"
	"learngate/input"
	"learngate/tenant"
)

// Auth admits requests carrying `Authorization: Bearer <token>`; an
// empty token admits none.
func Auth(token string) gin.HandlerFunc {
	return func(c *gin.Context) {
		h := c.GetHeader("Authorization")
		ok := len(h) > 7 && strings.EqualFold(h[:7], "bearer ")
		if !ok || token == "" || subtle.ConstantTimeCompare([]byte(h[7:]), []byte(token)) != 1 {
			c.AbortWithStatusJSON(http.StatusUnauthorized, gin.H{"error": "unauthorized"})
			return
		}
		c.Next()
	}
}

// opsPathParams refuses a path parameter (slug, domain, id) holding a NUL
// character or invalid UTF-8 with 400 {"error": "Illegal value '…' for
// '<param>'"}, before any handler passes it to PostgreSQL, which cannot
// hold it (docs/reliability.md, "Hostile and careless clients").
func opsPathParams(c *gin.Context) {
	for _, p := range c.Params {
		if _, err := input.QueryText(p.Key, p.Value); err != nil {
			httpx.RespondError(c, err)
			return
		}
	}
	c.Next()
}

// CreateTenantRequest is the body of POST /ops/v1/tenants.
type CreateTenantRequest struct {
	Slug               string   `json:"slug"`
	Name               string   `json:"name"`
	Timezone           string   `json:"timezone"`
	APIEnabled         *bool    `json:"api_enabled"`
	RateLimitPerMinute *int64   `json:"rate_limit_per_minute"`
	CustomDomains      []string `json:"custom_domains"`
}

// createTenant onboards a tenant: 201 {"tenant", "api_key"}.
func (a *API) createTenant(c *gin.Context) {
	var req CreateTenantRequest
	if err := httpx.DecodeStrict(c, &req); err != nil {
		httpx.RespondError(c, err)
		return
	}
	t, key, err := a.deps.Tenants.Create(c.Request.Context(), tenant.NewTenantInput{
		Slug: req.Slug, Name: req.Name, Timezone: req.Timezone, APIEnabled: req.APIEnabled,
		RateLimitPerMinute: req.RateLimitPerMinute, CustomDomains: req.CustomDomains,
	})
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.JSON(http.StatusCreated, gin.H{"tenant": a.tenantView(c, t), "api_key": key})
}

// listTenants answers every tenant as a JSON array.
func (a *API) listTenants(c *gin.Context) {
	ts, err := a.deps.Tenants.List(c.Request.Context())
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	nodes, err := a.deps.Tenants.DatabaseNodes(c.Request.Context(), ts...)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.JSON(http.StatusOK, viewTenants(ts, nodes))
}

// showTenant answers one tenant.
func (a *API) showTenant(c *gin.Context) {
	t, err := a.deps.Tenants.Show(c.Request.Context(), c.Param("slug"))
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.JSON(http.StatusOK, a.tenantView(c, t))
}

// UpdateTenantRequest is the body of PATCH /ops/v1/tenants/{slug}.
type UpdateTenantRequest struct {
	Name               *string `json:"name"`
	Timezone           *string `json:"timezone"`
	APIEnabled         *bool   `json:"api_enabled"`
	RateLimitPerMinute *int64  `json:"rate_limit_per_minute"`
	Status             *string `json:"status"`
}

// updateTenant changes a tenant; the change reaches every node within 1 s.
func (a *API) updateTenant(c *gin.Context) {
	var req UpdateTenantRequest
	if err := httpx.DecodeStrict(c, &req); err != nil {
		httpx.RespondError(c, err)
		return
	}
	t, err := a.deps.Tenants.Update(c.Request.Context(), c.Param("slug"), tenant.TenantPatch{
		Name: req.Name, Timezone: req.Timezone, APIEnabled: req.APIEnabled,
		RateLimitPerMinute: req.RateLimitPerMinute, Status: req.Status,
	})
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.JSON(http.StatusOK, a.tenantView(c, t))
}

// deleteTenant offboards a tenant; ?confirm=<slug> must repeat the slug.
func (a *API) deleteTenant(c *gin.Context) {
	slug := c.Param("slug")
	if c.Query("confirm") != slug {
		httpx.RespondError(c, learngate.Errorf(learngate.Invalid, "confirm must repeat the slug to delete tenant %s", input.Quote(slug)))
		return
	}
	if err := a.deps.Tenants.Delete(c.Request.Context(), slug); err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

// TLSAsk answers Caddy's on-demand TLS question: 200 when a certificate may
// be issued for ?domain, else 404.
func (a *API) TLSAsk(c *gin.Context) {
	domain := c.Query("domain")
	ok, err := a.deps.Tenants.TLSAllowed(c.Request.Context(), domain)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	if !ok {
		c.JSON(http.StatusNotFound, gin.H{"error": "not found"})
		return
	}
	c.JSON(http.StatusOK, gin.H{"domain": tenant.NormalizeHost(domain)})
}
