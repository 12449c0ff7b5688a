package handlers

import (
	"context"
	"log/slog"
	"time"

	"learngate/blob"
	"learngate/handlers/httpx"
	"learngate/handlers/ops"
	"learngate/ratelimit"
	"learngate/tenant"
	"learngate/webhook"
)

// Server holds what the handlers depend on. cmd/learngate builds one and
// asks it for the public and ops routers.
type Server struct {
	// DB opens the tenant handles that requests use (tenantHandle); a
	// *store.DB is one.
	DB       httpx.TenantHandles
	Registry *tenant.Registry
	Limiter  *ratelimit.Limiter
	Metrics  *httpx.Metrics
	Logger   *slog.Logger
	// Ready reports whether PostgreSQL answers: /readyz answers 503 when
	// it does not.
	Ready func(ctx context.Context) error
	// RedisReady reports whether Redis answers, for the body of /readyz
	// (which stays 200 while Redis is down); nil when no Redis is configured.
	RedisReady func(ctx context.Context) error
	// NodesDown lists the database worker nodes ("host:port") that cannot
	// be reached, for the body of /readyz (which stays 200: only the
	// tenants placed on them fail); nil on a single PostgreSQL.
	NodesDown func(ctx context.Context) ([]string, error)
	// Ops is what the ops API (handlers/ops) depends on.
	Ops ops.Deps
	// AuthFailuresPerMinute limits failed API-key attempts per client IP.
	AuthFailuresPerMinute int64
	// DownloadsPerMinute limits certificate downloads per client IP and
	// tenant (LEARNGATE_DOWNLOADS_PER_MINUTE); DefaultDownloadsPerMinute when 0.
	DownloadsPerMinute int64
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
	// Now is the handlers' clock (timestamps written, the failed-
	// authentication blocklist, certificate job and link expiry); the same clock
	// as the limiter's. Default time.Now.
	Now func() time.Time

	// gate is the shared chain (handlers/httpx) over the fields above.
	gate *httpx.Gate
	// scimDocs are the SCIM discovery documents (scim_discovery.go).
	scimDocs *scimDiscovery
	// signIn and sessions serve the learner pages (addSignInRoutes).
	signIn   *signInState
	sessions *sessionManager
	// samlParses bounds the SAML parses running at once (signin_saml_bounds.go).
	samlParses samlParseGate
	// samlTarpit delays the 429 of a throttled ACS post (signin_saml_bounds.go).
	samlTarpit tarpit
}

// setup builds the shared chain from the Server's fields, once, and
// fills the defaults (clock, cursor key).
func (s *Server) setup() {
	if s.gate != nil {
		return
	}
	s.gate = &httpx.Gate{DB: s.DB, Registry: s.Registry, Limiter: s.Limiter, Metrics: s.Metrics, Logger: s.Logger,
		Ready: s.Ready, RedisReady: s.RedisReady, NodesDown: s.NodesDown, AuthFailuresPerMinute: s.AuthFailuresPerMinute,
		DownloadsPerMinute: s.DownloadsPerMinute, Now: s.Now}
	s.gate.Init()
	s.Now = s.gate.Now
	s.CursorKey = newCursorKey(s.CursorKey)
}
