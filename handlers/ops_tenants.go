package handlers

import (
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"learngate"
	"learngate/input"
	"learngate/tenant"
)

// opsAuth admits requests carrying `Authorization: Bearer <ops token>`.
func (s *Server) opsAuth(c *gin.Context) {
	h := c.GetHeader("Authorization")
	ok := len(h) > 7 && strings.EqualFold(h[:7], "bearer ")
	if !ok || s.OpsToken == "" || subtle.ConstantTimeCompare([]byte(h[7:]), []byte(s.OpsToken)) != 1 {
		c.AbortWithStatusJSON(http.StatusUnauthorized, gin.H{"error": "unauthorized"})
		return
	}
	c.Next()
}

// opsPathParams refuses a path parameter (slug, domain, id) holding a NUL
// character or invalid UTF-8 with 400 {"error": "Illegal value '…' for
// '<param>'"}, before any handler passes it to PostgreSQL, which cannot
// hold it (docs/reliability.md, "Hostile and careless clients").
func opsPathParams(c *gin.Context) {
	for _, p := range c.Params {
		if _, err := input.QueryText(p.Key, p.Value); err != nil {
			respondError(c, err)
			return
		}
	}
	c.Next()
}

// createTenantRequest is the body of POST /ops/v1/tenants.
type createTenantRequest struct {
	Slug               string   `json:"slug"`
	Name               string   `json:"name"`
	Timezone           string   `json:"timezone"`
	APIEnabled         *bool    `json:"api_enabled"`
	RateLimitPerMinute *int64   `json:"rate_limit_per_minute"`
	CustomDomains      []string `json:"custom_domains"`
}

// createTenant onboards a tenant: 201 {"tenant", "api_key"}.
func (s *Server) createTenant(c *gin.Context) {
	var req createTenantRequest
	if err := decodeStrict(c, &req); err != nil {
		respondError(c, err)
		return
	}
	t, key, err := s.Registry.Create(c.Request.Context(), tenant.NewTenantInput{
		Slug: req.Slug, Name: req.Name, Timezone: req.Timezone, APIEnabled: req.APIEnabled,
		RateLimitPerMinute: req.RateLimitPerMinute, CustomDomains: req.CustomDomains,
	})
	if err != nil {
		respondError(c, err)
		return
	}
	c.JSON(http.StatusCreated, gin.H{"tenant": s.tenantView(c, t), "api_key": key})
}

// listTenants answers every tenant as a JSON array.
func (s *Server) listTenants(c *gin.Context) {
	ts, err := s.Registry.List(c.Request.Context())
	if err != nil {
		respondError(c, err)
		return
	}
	nodes, err := s.Registry.DatabaseNodes(c.Request.Context(), ts...)
	if err != nil {
		respondError(c, err)
		return
	}
	c.JSON(http.StatusOK, viewTenants(ts, nodes))
}

// showTenant answers one tenant.
func (s *Server) showTenant(c *gin.Context) {
	t, err := s.Registry.Show(c.Request.Context(), c.Param("slug"))
	if err != nil {
		respondError(c, err)
		return
	}
	c.JSON(http.StatusOK, s.tenantView(c, t))
}

// updateTenantRequest is the body of PATCH /ops/v1/tenants/{slug}.
type updateTenantRequest struct {
	Name               *string `json:"name"`
	Timezone           *string `json:"timezone"`
	APIEnabled         *bool   `json:"api_enabled"`
	RateLimitPerMinute *int64  `json:"rate_limit_per_minute"`
	Status             *string `json:"status"`
}

// updateTenant changes a tenant; the change reaches every node within 1 s.
func (s *Server) updateTenant(c *gin.Context) {
	var req updateTenantRequest
	if err := decodeStrict(c, &req); err != nil {
		respondError(c, err)
		return
	}
	t, err := s.Registry.Update(c.Request.Context(), c.Param("slug"), tenant.TenantPatch{
		Name: req.Name, Timezone: req.Timezone, APIEnabled: req.APIEnabled,
		RateLimitPerMinute: req.RateLimitPerMinute, Status: req.Status,
	})
	if err != nil {
		respondError(c, err)
		return
	}
	c.JSON(http.StatusOK, s.tenantView(c, t))
}

// deleteTenant offboards a tenant; ?confirm=<slug> must repeat the slug.
func (s *Server) deleteTenant(c *gin.Context) {
	slug := c.Param("slug")
	if c.Query("confirm") != slug {
		respondError(c, learngate.Errorf(learngate.Invalid, "confirm must repeat the slug to delete tenant %s", input.Quote(slug)))
		return
	}
	if err := s.Registry.Delete(c.Request.Context(), slug); err != nil {
		respondError(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

// tlsAsk answers Caddy's on-demand TLS question: 200 when a certificate may
// be issued for ?domain, else 404.
func (s *Server) tlsAsk(c *gin.Context) {
	domain := c.Query("domain")
	ok, err := s.Registry.TLSAllowed(c.Request.Context(), domain)
	if err != nil {
		respondError(c, err)
		return
	}
	if !ok {
		c.JSON(http.StatusNotFound, gin.H{"error": "not found"})
		return
	}
	c.JSON(http.StatusOK, gin.H{"domain": tenant.NormalizeHost(domain)})
}
