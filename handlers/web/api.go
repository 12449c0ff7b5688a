// Package web is the learner pages on a tenant's host, outside /papi and
// without an API key (docs/decisions.md, "Sign-in"): sign-in by password,
// OIDC and SAML, sign-out, the forced new password, and My learning.
// They are server-rendered HTML from embedded templates, no JavaScript,
// one stylesheet; their errors are pages, never JSON, never an internal
// message (respondPage).
package web

import (
	"embed"
	"html/template"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/text/message/catalog"

	"learngate/blob"
	"learngate/handlers/httpx"
	"learngate/tenant"
)

// Deps is what the learner pages depend on besides the shared chain;
// cmd/learngate builds it.
type Deps struct {
	// Sessions stores the learners' sessions (public.web_sessions); a
	// *store.DB is one. Without it no sign-in lasts past its request.
	Sessions SessionStore
	// SAMLReplays remembers the SAML assertions used, so that none signs
	// in twice; a *store.DB is one. Without it every SAML sign-in fails.
	SAMLReplays SAMLReplayStore
	// Blobs holds certificate PDFs and makes My learning's download links.
	Blobs blob.Store
	// PublicScheme (https or http) is the public listener's scheme: the
	// cookies' Secure flag and __Host- prefix, the SAML endpoints' URLs.
	PublicScheme string
	// CursorKey signs the pages' state (LEARNGATE_SIGNING_KEY, the same on
	// every node); when empty, New sets a random key of the process.
	CursorKey []byte
}

// Pages serves the learner pages (routes.go).
type Pages struct {
	// gate is the shared chain: the registry, the tenant handles, the
	// limiter, metrics, logger and clock.
	gate *httpx.Gate
	// deps is read on every request, so that a change of the node's
	// settings reaches a running router.
	deps *Deps

	// signIn and sessions are built once by New.
	signIn   *signInState
	sessions *sessionManager
	// samlParses bounds the SAML parses running at once (signin_saml_bounds.go).
	samlParses samlParseGate
	// samlTarpit delays the 429 of a throttled ACS post (signin_saml_bounds.go).
	samlTarpit tarpit
}

//go:embed pages/*.html pages/sign-in.css
var pageFiles embed.FS

// signInState is what the learner pages keep between requests.
type signInState struct {
	pages    *template.Template
	css      []byte
	catalog  catalog.Catalog
	idp      *providerCache // identity providers' documents (signin_provider.go)
	outcomes *prometheus.CounterVec
	// keys sign the anonymous CSRF token and seal started sign-ins
	// (signin_state.go).
	keys stateKeys
}

// New returns the learner pages behind gate over deps: it loads the
// templates, stylesheet and messages and builds the state keys and the
// session manager; it fails when the embedded pages do not load. The
// gate must be complete (httpx.Gate.Init).
func New(gate *httpx.Gate, deps *Deps) (*Pages, error) {
	deps.CursorKey = httpx.SigningKey(deps.CursorKey)
	s := &Pages{gate: gate, deps: deps}
	pages, err := template.ParseFS(pageFiles, "pages/*.html")
	if err != nil {
		return nil, err
	}
	css, err := pageFiles.ReadFile("pages/sign-in.css")
	if err != nil {
		return nil, err
	}
	keys, err := newStateKeys(deps.CursorKey)
	if err != nil {
		return nil, err
	}
	s.signIn = &signInState{pages: pages, css: css, catalog: pageCatalog(), outcomes: gate.Metrics.SignIns, keys: keys,
		idp: newProviderCache(s.idpGuard(), gate.Now)}
	s.sessions = newSessionManager(deps.Sessions, deps.PublicScheme == "https", gate.Now)
	return s, nil
}

// idpGuard is the registry's guard of calls to identity providers; a
// node without a registry (the API reference alone) gets the strict one.
func (s *Pages) idpGuard() *tenant.IdPGuard {
	if s.gate.Registry == nil {
		return tenant.NewIdPGuard(tenant.IdPGuardOptions{})
	}
	return s.gate.Registry.IdPGuard()
}
