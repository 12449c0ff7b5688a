package handlers

import (
	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"learngate/handlers/httpx"
	"learngate/handlers/ops"
	"learngate/handlers/papi"
	"learngate/handlers/scimapi"
	"learngate/handlers/web"
)

// PublicRouter returns the public listener's routes: the host-independent
// health checks, favicon and API reference, the learner pages
// (handlers/web), the Public API (handlers/papi) and SCIM
// (handlers/scimapi), each application behind the shared chain
// (httpx.Gate) with its own error responder; an unmatched path goes
// through its application's chain before its 404.
func (s *Server) PublicRouter() (*gin.Engine, error) {
	s.setup()
	r := gin.New()
	r.HandleMethodNotAllowed = false
	if err := r.SetTrustedProxies(s.TrustedProxies); err != nil {
		return nil, err
	}
	// The learner pages (docs/decisions.md, "Sign-in"): handlers/web/routes.go.
	pages, err := web.New(s.Gate, &s.Web)
	if err != nil {
		return nil, err
	}
	r.Use(s.Gate.RequestLog("public"), httpx.StrictTransport(s.PublicScheme == "https"), gin.CustomRecovery(s.Gate.Recovered), pages.OnPages)
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

	pages.Routes(r)

	// The Public API (docs/api.md): handlers/papi/routes.go.
	papiAPI := papi.New(s.Gate, &s.Papi)
	papiAPI.Routes(r)

	// SCIM 2.0 (docs/scim.md): handlers/scimapi/routes.go.
	scimAPI, err := scimapi.New(s.Gate, s.SCIM)
	if err != nil {
		return nil, err
	}
	scimAPI.Routes(r)

	// Unmatched paths go through their application's chain before the 404.
	unmatched := append(scimAPI.Unmatched(), papiAPI.Unmatched()...)
	r.NoRoute(append(unmatched, httpx.NotFound)...)
	return r, nil
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
