package handlers

import (
	"learngate/blob"
	"learngate/handlers/httpx"
	"learngate/handlers/ops"
	"learngate/handlers/papi"
	"learngate/handlers/scimapi"
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
	// Sessions stores the learner pages' sessions (public.web_sessions); a
	// *store.DB is one. Without it no sign-in lasts past its request.
	Sessions WebSessionStore
	// SAMLReplays remembers the SAML assertions used, so that none signs
	// in twice; a *store.DB is one. Without it every SAML sign-in fails.
	SAMLReplays SAMLReplayStore
	// TrustedProxies are the proxies whose X-Forwarded-For is believed.
	TrustedProxies []string
	// Blobs holds certificate PDFs and makes the learner pages' download
	// links.
	Blobs blob.Store
	// PublicScheme (https or http) is the public listener's scheme
	// (Strict-Transport-Security, the learner pages' cookies).
	PublicScheme string
	// CursorKey signs the learner pages' state (LEARNGATE_SIGNING_KEY, the
	// same on every node); when empty, PublicRouter sets a random key of
	// the process.
	CursorKey []byte

	// signIn and sessions serve the learner pages (setupSignIn, signInRoutes).
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
	s.CursorKey = httpx.SigningKey(s.CursorKey)
}
