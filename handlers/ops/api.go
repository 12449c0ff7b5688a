// Package ops is the ops API (docs/decisions.md, "Ops API"): tenants, their
// domains, keys, SSO and placement, and the TLS ask, every route behind
// the ops bearer token (Auth). Its errors are {"error": "<message>"}
// (httpx.RespondPlain).
package ops

import (
	"github.com/prometheus/client_golang/prometheus"

	"learngate/tenant"
)

// Deps is what the ops API depends on; cmd/learngate builds it.
type Deps struct {
	// Tenants creates, changes and removes tenants.
	Tenants *tenant.Registry
	// Token is the bearer token of every ops route.
	Token string
	// Metrics is the registry GET /metrics serves.
	Metrics *prometheus.Registry
}

// API serves the ops routes (routes.go).
type API struct {
	deps Deps
}

// New returns the ops API over deps.
func New(deps Deps) *API {
	return &API{deps: deps}
}
