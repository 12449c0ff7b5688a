package handlers

import (
	"learngate/handlers/httpx"
	"learngate/handlers/ops"
	"learngate/handlers/papi"
	"learngate/handlers/scimapi"
	"learngate/handlers/web"
)

// Server holds what the handlers depend on. cmd/learngate builds one and
// asks it for the public and ops routers.
type Server struct {
	// Gate is the shared chain (handlers/httpx): the database handles, the
	// registry, limits, metrics, logger, health checks and the clock
	// (Gate.Now: timestamps written, certificate job and link expiry).
	*httpx.Gate
	// Ops is what the ops API (handlers/ops) depends on.
	Ops ops.Deps
	// SCIM is what SCIM (handlers/scimapi) depends on besides Gate.
	SCIM scimapi.Deps
	// Papi is what the Public API (handlers/papi) depends on besides
	// Gate; the API reads it on every request.
	Papi papi.Deps
	// Web is what the learner pages (handlers/web) depend on besides
	// Gate; the pages read it on every request.
	Web web.Deps
	// TrustedProxies are the proxies whose X-Forwarded-For is believed.
	TrustedProxies []string
	// PublicScheme (https or http) is the public listener's scheme
	// (Strict-Transport-Security).
	PublicScheme string
}

// setup completes the shared chain (httpx.Gate.Init).
func (s *Server) setup() {
	s.Init()
}
