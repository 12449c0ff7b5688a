package handlers

import (
	"learngate/handlers/httpx"
	"learngate/handlers/idempotency"
	"learngate/handlers/ops"
	"learngate/handlers/scimapi"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"learngate/store"
)

// PublicRouter returns the public listener's routes: the Public API under
// /papi behind the chain tenant (404) → API key (401) → tenant handle →
// rate limit (429) → Content-Type (406) → Idempotency-Key, and the host-independent health
// checks.
func (s *Server) PublicRouter() (*gin.Engine, error) {
	s.setup()
	r := gin.New()
	r.HandleMethodNotAllowed = false
	if err := r.SetTrustedProxies(s.TrustedProxies); err != nil {
		return nil, err
	}
	r.Use(s.Gate.RequestLog("public"), httpx.StrictTransport(s.PublicScheme == "https"), gin.CustomRecovery(s.Gate.Recovered), s.onLearnerPages)
	r.GET("/healthz", httpx.Healthz)
	r.GET("/readyz", s.Gate.Readyz)
	r.GET("/favicon.ico", httpx.Favicon) // any host, no tenant lookup (handlers/httpx/favicon.go)
	docs, err := httpx.NewDocs()
	if err != nil {
		return nil, err
	}
	r.GET("/papi/openapi.json", docs.OpenAPI)
	r.GET("/docs", docs.Page)
	r.GET("/docs/redoc.standalone.js", docs.Script)

	// Learner sign-in and My learning (docs/decisions.md, "Sign-in"): handlers/signin_pages.go.
	if err := s.addSignInRoutes(r); err != nil {
		return nil, err
	}

	chain := s.papiChain()
	// Idempotency-Key (docs/api.md) comes last, for matched routes only.
	papi := r.Group("/papi", append(chain[:len(chain):len(chain)], idempotency.Step(idempotency.RefuseJSON))...)
	papi.GET("/ping", s.ping)

	// Routes whose errors are a bare JSON string: the lists (a bad page or
	// per_page, docs/decisions.md, "Lists and paging") and the external knowledge reads.
	// withBadRequestPrefix: a 400 message starts with "Bad request: "
	// (docs/decisions.md, "Error bodies"); the groups without it do not.
	stringErrors := papi.Group("", withErrorStyle(styleString), withBadRequestPrefix())

	// Catalog (docs/decisions.md, "Catalog, topics and pathways"): one generic handler per verb for the name-only kinds.
	stringErrors.GET("/roles", s.listCatalog(store.Roles))
	papi.POST("/roles", s.createCatalogItem(store.Roles))
	papi.DELETE("/roles/:id", s.deleteCatalogItem(store.Roles))
	stringErrors.GET("/groups", s.listCatalog(store.Groups))
	papi.POST("/groups", s.createCatalogItem(store.Groups))
	papi.DELETE("/groups/:id", s.deleteCatalogItem(store.Groups))
	stringErrors.GET("/goals", s.listCatalog(store.Goals))
	papi.POST("/goals", s.createCatalogItem(store.Goals))
	papi.DELETE("/goals/:id", s.deleteCatalogItem(store.Goals))
	stringErrors.GET("/skills", s.listCatalog(store.Skills))
	papi.POST("/skills", s.createCatalogItem(store.Skills))
	papi.DELETE("/skills/:id", s.deleteCatalogItem(store.Skills))
	stringErrors.GET("/categories", s.listCatalog(store.Categories))
	papi.POST("/categories", s.createCatalogItem(store.Categories))
	papi.DELETE("/categories/:id", s.deleteCatalogItem(store.Categories))
	stringErrors.GET("/custom_fields", s.listCustomFields)
	papi.POST("/custom_fields", s.createCustomField)
	papi.DELETE("/custom_fields/:id", s.deleteCustomField)

	// Topics and pathways (docs/decisions.md, "Catalog, topics and pathways"): errors as {"error": "..."}.
	objectPrefixErrors := papi.Group("", withBadRequestPrefix())
	stringErrors.GET("/topics", s.listTopics)
	objectPrefixErrors.POST("/topics", s.createTopic)
	objectPrefixErrors.GET("/topics/:id", s.showTopic)
	objectPrefixErrors.PUT("/topics/:id", s.updateTopic)
	stringErrors.GET("/pathways", s.listPathways)
	objectPrefixErrors.POST("/pathways", s.createPathway)
	objectPrefixErrors.GET("/pathways/:id", s.showPathway)
	objectPrefixErrors.PUT("/pathways/:id", s.updatePathway)

	// Users (docs/decisions.md, "Users"): 400/404 as JSON strings, 422 as the spec's user body.
	userErrors := papi.Group("", withErrorStyle(styleUser), withBadRequestPrefix())
	userErrors.GET("/users", s.listUsers)
	userErrors.POST("/users", s.createUser)
	userErrors.POST("/users/batch_save", s.batchSaveUsers)
	userErrors.GET("/users/:user_name", s.showUser)
	userErrors.PUT("/users/:user_name", s.updateUser)

	// External knowledge (docs/decisions.md, "Lists and paging" and "External knowledge"): reads answer 400 and
	// 404 as JSON strings; writes answer 404 "not found" and 400 {"error"};
	// the batch's 400s also name the failing record.
	stringErrors.GET("/external_knowledges", s.listExternalKnowledges)
	stringErrors.GET("/external_knowledges/:id", s.showExternalKnowledge)
	knowledgeErrors := papi.Group("", withErrorStyle(styleKnowledge), withBadRequestPrefix())
	knowledgeErrors.POST("/external_knowledges", s.createExternalKnowledge)
	knowledgeErrors.PUT("/external_knowledges/:id", s.updateExternalKnowledge)
	papi.POST("/external_knowledges/batch_save", withErrorStyle(styleKnowledgeBatch), withBadRequestPrefix(), s.batchSaveExternalKnowledges)

	// Enrolments (docs/decisions.md, "Enrolments"): lists as above; creation answers
	// {"errors": [...]}; progress and a single pathway enrolment {"error": ...}.
	stringErrors.GET("/topic_assignments", s.listTopicAssignments)
	stringErrors.GET("/topic_assignments/by_topic/:id", s.listTopicAssignmentsByTopic)
	stringErrors.GET("/topic_assignments/by_user/:id", s.listTopicAssignmentsByUser)
	stringErrors.GET("/topic_assignments/user/:user_name", s.listUserTopicAssignments)
	papi.POST("/topic_assignments", withErrorStyle(styleErrors), s.createTopicAssignments)
	papi.POST("/topic_assignments/:id/progress", s.recordProgress)
	stringErrors.GET("/pathway_assignments", s.listPathwayAssignments)
	stringErrors.GET("/pathway_assignments/by_pathway/:id", s.listPathwayAssignmentsByPathway)
	stringErrors.GET("/pathway_assignments/by_user/:id", s.listPathwayAssignmentsByUser)
	papi.GET("/pathway_assignments/:id", s.showPathwayAssignment)

	// Webhooks (docs/decisions.md, "Webhooks"): {"error"} bodies; a bad page on a list is a bare string.
	string400Errors := papi.Group("", withErrorStyle(styleString400), withBadRequestPrefix())
	string400Errors.GET("/webhooks", s.listWebhooks)
	papi.POST("/webhooks", s.createWebhook)
	papi.GET("/webhooks/:id", s.showWebhook)
	papi.PUT("/webhooks/:id", s.updateWebhook)
	papi.DELETE("/webhooks/:id", s.deleteWebhook)
	papi.POST("/webhooks/:id/rotate_secret", s.rotateWebhookSecret)
	papi.POST("/webhooks/:id/test", s.testWebhook)
	string400Errors.GET("/webhooks/:id/deliveries", s.listWebhookDeliveries)
	papi.POST("/webhooks/:id/deliveries/:delivery_id/retry", s.retryWebhookDelivery)

	// Certificates (docs/decisions.md, "Certificates"). A download carries a signed
	// token instead of an API key: it resolves the tenant and skips the key
	// check; having no key, it never uses the tenant's quota (docs/decisions.md,
	// "Rate limits") but a limit per client IP of its own.
	papi.GET("/certificates", s.requestCertificate)
	papi.GET("/certificates/status/:job_id", s.showCertificateJob)
	// HEAD answers as GET does, without the body (a link checker, curl -I).
	r.GET("/papi/certificates/download/:token", s.Gate.ResolveTenant, s.Gate.DownloadLimit, s.downloadCertificate)
	r.HEAD("/papi/certificates/download/:token", s.Gate.ResolveTenant, s.Gate.DownloadLimit, s.downloadCertificate)

	// SCIM 2.0 (docs/scim.md): handlers/scimapi/routes.go.
	scimAPI, err := scimapi.New(s.Gate, s.SCIM)
	if err != nil {
		return nil, err
	}
	scimAPI.Routes(r)

	// Unmatched paths go through their application's chain before the 404.
	unmatched := scimAPI.Unmatched()
	for _, mw := range chain {
		unmatched = append(unmatched, httpx.OnPath("/papi", mw))
	}
	r.NoRoute(append(unmatched, httpx.NotFound)...)
	return r, nil
}

// papiChain is the middleware every /papi route (and every unmatched /papi
// path) goes through, in order.
func (s *Server) papiChain() []gin.HandlerFunc {
	return []gin.HandlerFunc{s.Gate.ResolveTenant, s.Gate.Authenticate, s.Gate.TenantHandle, s.Gate.RateLimit, s.Gate.RequireJSON}
}

// OpsRouter returns the ops listener's routes (docs/decisions.md, "Ops API"),
// every one behind the ops bearer token: the ops API (handlers/ops) on the
// shared request log, recovery and body limit.
func (s *Server) OpsRouter() *gin.Engine {
	s.setup()
	r := gin.New()
	r.Use(s.Gate.RequestLog("ops"), gin.CustomRecovery(s.Gate.Recovered), ops.Auth(s.Ops.Token), s.Gate.LimitBody)
	ops.New(s.Ops).Routes(r)
	r.NoRoute(httpx.NotFound)
	return r
}

// TLSAskRouter returns the routes of the TLS ask listener
// (LEARNGATE_TLS_ASK_ADDR): GET /tls/ask?domain= alone, without the ops
// token, answered as GET /ops/v1/tls/ask is (200 when a certificate may be
// issued for the domain, 404 otherwise); anything else is 404. Caddy's
// on-demand TLS cannot send a token (docs/decisions.md, "The TLS ask
// listener").
func (s *Server) TLSAskRouter() *gin.Engine {
	s.setup()
	r := gin.New()
	_ = r.SetTrustedProxies(nil) // never fails for nil
	r.Use(s.Gate.RequestLog("tls_ask"), gin.CustomRecovery(s.Gate.Recovered))
	ops.New(s.Ops).TLSAskRoutes(r)
	r.NoRoute(httpx.NotFound)
	return r
}

// MetricsRouter serves a process without the API, `learngate worker`:
// GET /healthz (200 while the process is up) and GET /metrics of registry
// behind the ops token; 404 for the rest.
func MetricsRouter(registry *prometheus.Registry, opsToken string) *gin.Engine {
	r := gin.New()
	r.Use(gin.Recovery())
	r.GET("/healthz", httpx.Healthz)
	r.GET("/metrics", ops.Auth(opsToken), gin.WrapH(promhttp.HandlerFor(registry, promhttp.HandlerOpts{})))
	r.NoRoute(httpx.NotFound)
	return r
}
