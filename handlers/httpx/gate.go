// Package httpx is the HTTP layer every learngate application shares: the
// request log and metrics, tenant resolution and the API-key chain, rate
// limits, JSON decoding within the body budgets, the one error mapping
// (RespondError, which hands the body to the route group's Responder), the
// health checks, the favicon and the API reference. It knows none of the
// applications (papi, ops, scimapi, web): they use it, never the reverse.
package httpx

import (
	"context"
	"crypto/rand"
	"log/slog"
	"time"

	"golang.org/x/sync/semaphore"

	"learngate/ratelimit"
	"learngate/store"
	"learngate/tenant"
)

// Gate holds what the shared chain depends on. cmd/learngate builds one
// and hands it to the applications that put their routes behind it; Init
// completes it before use.
type Gate struct {
	// DB opens the tenant handles that requests use (TenantHandle); a
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
	// AuthFailuresPerMinute limits failed API-key attempts per client IP.
	AuthFailuresPerMinute int64
	// DownloadsPerMinute limits certificate downloads per client IP and
	// tenant (LEARNGATE_DOWNLOADS_PER_MINUTE); DefaultDownloadsPerMinute when 0.
	DownloadsPerMinute int64
	// Now is the chain's clock (the failed-authentication blocklist); the
	// same clock as the limiter's. Default time.Now.
	Now func() time.Time

	blocklist *ratelimit.Blocklist
	// decodeBudget bounds the body bytes being decoded at once, shared by
	// every listener (holdDecodeBudget).
	decodeBudget *semaphore.Weighted
	// localFailures counts failed keys on this node while the Limiter's
	// store fails, so that the failed-key throttle never fails open.
	localFailures *ratelimit.Limiter
}

// Init fills what the Gate keeps of its own (clock, blocklist, decoding
// budget, local failure count); it may be called more than once.
func (g *Gate) Init() {
	if g.Now == nil {
		g.Now = time.Now
	}
	if g.blocklist == nil {
		g.blocklist = ratelimit.NewBlocklist(g.Now)
	}
	if g.decodeBudget == nil {
		g.decodeBudget = newDecodeBudget()
	}
	if g.localFailures == nil {
		g.localFailures = ratelimit.New(ratelimit.NewMemoryStore(g.Now), ratelimit.Options{Window: time.Minute, Now: g.Now})
	}
}

// TenantHandles opens tenant-scoped database handles. It is all the
// handlers get of the database: they reach data only through the store's
// functions on a tenant handle, never through a pool of their own, so they
// cannot build SQL.
type TenantHandles interface {
	Tenant(schema string) (*store.TenantDB, error)
}

// DefaultDownloadsPerMinute is the certificate download limit per client IP
// and tenant when Gate.DownloadsPerMinute is 0.
const DefaultDownloadsPerMinute = 60

// Blocklist is this node's blocklist of clients over a failure limit,
// shared by the API keys' throttle and the learner pages' SAML throttle.
func (g *Gate) Blocklist() *ratelimit.Blocklist { return g.blocklist }

// LocalFailures counts failures on this node while the Limiter's store
// fails, so that no failure throttle fails open.
func (g *Gate) LocalFailures() *ratelimit.Limiter { return g.localFailures }

// SigningKey returns key, or a random key of this process when key is
// empty: what it signs (list cursors, the learner pages' state) then fails
// on other nodes and after a restart.
func SigningKey(key []byte) []byte {
	if len(key) > 0 {
		return key
	}
	key = make([]byte, 32)
	_, _ = rand.Read(key) // never fails (crypto/rand)
	return key
}
