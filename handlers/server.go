package handlers

import (
	"learngate/blob"
	"learngate/handlers/httpx"
	"learngate/handlers/ops"
	"learngate/handlers/scimapi"
	"learngate/webhook"
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
	// TrustedProxies are the proxies whose X-Forwarded-For is believed.
	TrustedProxies []string
	// WebhookPolicy says which webhook URLs may be registered
	// (LEARNGATE_WEBHOOK_ALLOW_PRIVATE).
	WebhookPolicy webhook.Policy
	// Blobs holds certificate PDFs and makes their download links.
	Blobs blob.Store
	// Downloads serves the links of a Local blob store at
	// /papi/certificates/download/{token}; nil (S3) makes that route 404.
	Downloads *blob.Local
	// PublicScheme (https or http) starts Local download links and the
	// Link headers of lists.
	PublicScheme string
	// CursorKey signs the cursors of list links (LEARNGATE_SIGNING_KEY,
	// the same on every node); when empty, PublicRouter sets a random key
	// of the process, whose cursors fail on other nodes and after a restart.
	CursorKey []byte

	// signIn and sessions serve the learner pages (addSignInRoutes).
	signIn   *signInState
	sessions *sessionManager
	// samlParses bounds the SAML parses running at once (signin_saml_bounds.go).
	samlParses samlParseGate
	// samlTarpit delays the 429 of a throttled ACS post (signin_saml_bounds.go).
	samlTarpit tarpit
}

// setup completes the shared chain (httpx.Gate.Init) and the cursor key.
func (s *Server) setup() {
	s.Init()
	s.CursorKey = newCursorKey(s.CursorKey)
}
