package handlers

import (
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"learngate/ratelimit"
	"learngate/store"
)

// PublicRouter returns the public listener's routes: the Public API under
// /papi behind the chain tenant (404) → API key (401) → rate limit (429) →
// Content-Type (406), and the host-independent health checks.
func (s *Server) PublicRouter() (*gin.Engine, error) {
	if s.Now == nil {
		s.Now = time.Now
	}
	if s.blocklist == nil {
		s.blocklist = ratelimit.NewBlocklist(s.Now)
	}
	r := gin.New()
	r.HandleMethodNotAllowed = false
	if err := r.SetTrustedProxies(s.TrustedProxies); err != nil {
		return nil, err
	}
	r.Use(s.requestLog("public"), gin.CustomRecovery(s.recovered))
	r.GET("/healthz", s.healthz)
	r.GET("/readyz", s.readyz)

	chain := []gin.HandlerFunc{s.resolveTenant, s.authenticate, s.rateLimit, requireJSON}
	papi := r.Group("/papi", chain...)
	papi.GET("/ping", s.ping)

	// Lists answer a bad page or per_page with a bare JSON string (DECISIONS.md section 4).
	lists := papi.Group("", withErrorStyle(styleString))

	// Catalog (DECISIONS.md section 5): one generic handler per verb for the name-only kinds.
	lists.GET("/roles", s.listCatalog(store.Roles))
	papi.POST("/roles", s.createCatalogItem(store.Roles))
	papi.DELETE("/roles/:id", s.deleteCatalogItem(store.Roles))
	lists.GET("/groups", s.listCatalog(store.Groups))
	papi.POST("/groups", s.createCatalogItem(store.Groups))
	papi.DELETE("/groups/:id", s.deleteCatalogItem(store.Groups))
	lists.GET("/goals", s.listCatalog(store.Goals))
	papi.POST("/goals", s.createCatalogItem(store.Goals))
	papi.DELETE("/goals/:id", s.deleteCatalogItem(store.Goals))
	lists.GET("/skills", s.listCatalog(store.Skills))
	papi.POST("/skills", s.createCatalogItem(store.Skills))
	papi.DELETE("/skills/:id", s.deleteCatalogItem(store.Skills))
	lists.GET("/categories", s.listCatalog(store.Categories))
	papi.POST("/categories", s.createCatalogItem(store.Categories))
	papi.DELETE("/categories/:id", s.deleteCatalogItem(store.Categories))
	lists.GET("/custom_fields", s.listCustomFields)
	papi.POST("/custom_fields", s.createCustomField)
	papi.DELETE("/custom_fields/:id", s.deleteCustomField)

	// Users (DECISIONS.md section 6): 400/404 as JSON strings, 422 as the spec's user body.
	users := papi.Group("", withErrorStyle(styleUser))
	users.GET("/users", s.listUsers)
	users.POST("/users", s.createUser)
	users.POST("/users/batch_save", s.batchSaveUsers)
	users.GET("/users/:user_name", s.showUser)
	users.PUT("/users/:user_name", s.updateUser)

	// Certificates (DECISIONS.md section 9). A download carries a signed
	// token instead of an API key: it resolves the tenant and counts
	// against its rate limit, but skips the key check.
	papi.GET("/certificates", s.requestCertificate)
	papi.GET("/certificates/status/:job_id", s.showCertificateJob)
	r.GET("/papi/certificates/download/:token", s.resolveTenant, s.rateLimit, s.downloadCertificate)

	unmatched := make([]gin.HandlerFunc, 0, len(chain)+1)
	for _, mw := range chain {
		unmatched = append(unmatched, onPapi(mw))
	}
	r.NoRoute(append(unmatched, notFound)...)
	return r, nil
}

// OpsRouter returns the ops listener's routes (DECISIONS.md section 11),
// every one behind the ops bearer token.
func (s *Server) OpsRouter() *gin.Engine {
	r := gin.New()
	r.Use(s.requestLog("ops"), gin.CustomRecovery(s.recovered), s.opsAuth, limitBody)
	r.GET("/metrics", gin.WrapH(promhttp.HandlerFor(s.Metrics.Registry, promhttp.HandlerOpts{})))

	v1 := r.Group("/ops/v1")
	v1.POST("/tenants", s.createTenant)
	v1.GET("/tenants", s.listTenants)
	v1.GET("/tenants/:slug", s.showTenant)
	v1.PATCH("/tenants/:slug", s.updateTenant)
	v1.DELETE("/tenants/:slug", s.deleteTenant)
	v1.POST("/tenants/:slug/domains", s.addDomain)
	v1.DELETE("/tenants/:slug/domains/:domain", s.removeDomain)
	v1.POST("/tenants/:slug/api_keys", s.createKey)
	v1.GET("/tenants/:slug/api_keys", s.listKeys)
	v1.DELETE("/tenants/:slug/api_keys/:id", s.revokeKey)
	v1.GET("/tls/ask", s.tlsAsk)
	r.NoRoute(notFound)
	return r
}

// recovered turns a panic into a logged 500.
func (s *Server) recovered(c *gin.Context, err any) {
	s.Logger.Error("panic", "request_id", requestID(c), "panic", err)
	c.AbortWithStatusJSON(500, gin.H{"error": "internal error"})
}
