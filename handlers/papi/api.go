// Package papi is the Public API under /papi (docs/api.md): the catalog,
// topics and pathways, users, enrolments, external knowledge, certificates
// and webhooks, behind the shared chain (httpx.Gate) and the
// Idempotency-Key. Its errors go through one Responder, respondPapi, in
// the shape each route group chooses (errors.go).
package papi

import (
	"github.com/gin-gonic/gin"

	"learngate/blob"
	"learngate/handlers/httpx"
	"learngate/webhook"
)

// Deps is what the Public API depends on besides the shared chain;
// cmd/learngate builds it.
type Deps struct {
	// WebhookPolicy says which webhook URLs may be registered
	// (LEARNGATE_WEBHOOK_ALLOW_PRIVATE).
	WebhookPolicy webhook.Policy
	// Blobs holds certificate PDFs and makes their download links.
	Blobs blob.Store
	// Downloads serves the links of a Local blob store at
	// /papi/certificates/download/{token}; nil (S3) makes that route 404.
	Downloads *blob.Local
	// PublicScheme (https or http) starts Local download links and the
	// Link headers of lists; https when empty.
	PublicScheme string
	// CursorKey signs the cursors of list links (LEARNGATE_SIGNING_KEY,
	// the same on every node); when empty, New sets a random key of the
	// process, whose cursors fail on other nodes and after a restart.
	CursorKey []byte
}

// API serves the Public API's routes (routes.go).
type API struct {
	// gate is the shared chain; its clock (Gate.Now) stamps what the API
	// writes and dates certificate jobs and links.
	gate *httpx.Gate
	// deps is read on every request, so that a change of the node's
	// settings reaches a running router.
	deps *Deps
}

// New returns the Public API behind gate over deps.
func New(gate *httpx.Gate, deps *Deps) *API {
	deps.CursorKey = httpx.SigningKey(deps.CursorKey)
	return &API{gate: gate, deps: deps}
}

// Chain is the middleware every /papi route (and every unmatched /papi
// path) goes through, in order.
func (a *API) Chain() []gin.HandlerFunc {
	g := a.gate
	return []gin.HandlerFunc{g.ResolveTenant, g.Authenticate, g.TenantHandle, g.RateLimit, g.RequireJSON}
}

// Unmatched is what an unmatched /papi path goes through before its 404:
// the whole chain, so that the 404 comes after the tenant, the key, the
// limit and the Content-Type. Other paths pass.
func (a *API) Unmatched() []gin.HandlerFunc {
	chain := a.Chain()
	steps := make([]gin.HandlerFunc, 0, len(chain))
	for _, mw := range chain {
		steps = append(steps, httpx.OnPath("/papi", mw))
	}
	return steps
}
