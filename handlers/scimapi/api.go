// Package scimapi is SCIM 2.0 under /scim/v2 (docs/scim.md): discovery,
// Users and Groups, behind the shared chain with SCIM's media types, every
// error in SCIM's shape (respondSCIMError) from the chain's first step. The
// filters and PATCH operations it applies are the root package scim's.
package scimapi

import (
	"github.com/gin-gonic/gin"

	"learngate/handlers/httpx"
)

// Deps is what SCIM depends on besides the shared chain; cmd/learngate
// builds it.
type Deps struct {
	// PublicScheme (https or http) starts the base URL that the discovery
	// documents name; https when empty.
	PublicScheme string
}

// API serves the SCIM routes (routes.go).
type API struct {
	// gate is the shared chain the SCIM routes run behind; its clock
	// (Gate.Now) stamps what SCIM writes.
	gate *httpx.Gate
	deps Deps
	// docs are the discovery documents (discovery.go).
	docs *scimDiscovery
}

// New returns SCIM behind gate over deps; it fails when the embedded
// discovery documents do not load.
func New(gate *httpx.Gate, deps Deps) (*API, error) {
	docs, err := loadSCIMDiscovery()
	if err != nil {
		return nil, err
	}
	return &API{gate: gate, deps: deps, docs: docs}, nil
}

// chain is the request chain of the SCIM resources: the shared steps with
// SCIM's error shape from the first, and SCIM's media types.
func (a *API) chain() []gin.HandlerFunc {
	g := a.gate
	return []gin.HandlerFunc{httpx.WithResponder(respondSCIMError), g.ResolveTenant, g.Authenticate, g.TenantHandle, g.RateLimit, a.requireSCIMJSON}
}

// Unmatched is what an unmatched /scim/v2 path goes through before its
// 404: the chain without its media-type step, so that the 404 comes after
// the tenant, the key and the limit, in SCIM's shape. Other paths pass.
func (a *API) Unmatched() []gin.HandlerFunc {
	chain := a.chain()
	steps := make([]gin.HandlerFunc, 0, len(chain)-1)
	for _, mw := range chain[:len(chain)-1] {
		steps = append(steps, httpx.OnPath("/scim/v2", mw))
	}
	return steps
}
