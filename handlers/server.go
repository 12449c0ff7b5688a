package handlers

import (
	"context"
	"log/slog"
	"time"

	"golang.org/x/sync/semaphore"

	"learngate/blob"
	"learngate/ratelimit"
	"learngate/store"
	"learngate/tenant"
	"learngate/webhook"
)

// Server holds what the handlers depend on. cmd/learngate builds one and
// asks it for the public and ops routers.
type Server struct {
	// DB opens the tenant handles that requests use (tenantHandle); a
	// *store.DB is one.
	DB       TenantHandles
	Registry *tenant.Registry
	Limiter  *ratelimit.Limiter
	Metrics  *Metrics
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
	// OpsToken is the bearer token of the ops API.
	OpsToken string
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

	blocklist *ratelimit.Blocklist
	// decodeBudget bounds the body bytes being decoded at once, shared by
	// both listeners (holdDecodeBudget).
	decodeBudget *semaphore.Weighted
	// localFailures counts failed keys on this node while the Limiter's
	// store fails, so that the failed-key throttle never fails open.
	localFailures *ratelimit.Limiter
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

// TenantHandles opens tenant-scoped database handles. It is all the
// handlers get of the database: they reach data only through the store's
// functions on a tenant handle, never through a pool of their own, so they
// cannot build SQL. The ops API reaches the database through the Registry
// and /readyz through Ready.
type TenantHandles interface {
	Tenant(schema string) (*store.TenantDB, error)
}

// DefaultDownloadsPerMinute is the certificate download limit per client IP
// and tenant when Server.DownloadsPerMinute is 0.
const DefaultDownloadsPerMinute = 60
