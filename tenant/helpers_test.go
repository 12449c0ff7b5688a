package tenant

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"learngate"
	"learngate/store"
	"learngate/store/storetest"
)

// testBaseDomains are the base domains of every test registry.
var testBaseDomains = []string{"learngate.localhost", "learngate.test"}

// newTestRegistry returns a registry over a fresh migrated database, and
// the database and its URL.
func newTestRegistry(tb testing.TB, opts Options) (*Registry, *store.DB, string) {
	tb.Helper()
	db, url := storetest.NewDB(tb)
	return newRegistryOn(db, opts), db, url
}

// newRegistryOn returns a registry over db with the test defaults filled in.
func newRegistryOn(db *store.DB, opts Options) *Registry {
	if opts.BaseDomains == nil {
		opts.BaseDomains = testBaseDomains
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return NewRegistry(db, opts)
}

// openNode opens a second pool on the database at url, as another node would.
func openNode(tb testing.TB, url string) *store.DB {
	tb.Helper()
	db, err := store.Open(context.Background(), url)
	if err != nil {
		tb.Fatalf("open second pool: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// newRedis returns a client of the test Redis, closed when tb ends.
func newRedis(tb testing.TB) *redis.Client {
	tb.Helper()
	opts, err := redis.ParseURL(storetest.RedisURL())
	if err != nil {
		tb.Fatalf("parse redis url: %v", err)
	}
	c := redis.NewClient(opts)
	tb.Cleanup(func() { c.Close() })
	if err := c.Ping(context.Background()).Err(); err != nil {
		tb.Fatalf("redis at %s: %v", storetest.RedisURL(), err)
	}
	return c
}

// runRegistry runs r.Run until tb ends, and waits for it to return.
func runRegistry(tb testing.TB, r *Registry) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.Run(ctx)
	}()
	tb.Cleanup(func() {
		cancel()
		<-done
	})
}

// mustCreate onboards a tenant and returns it with its first key.
func mustCreate(tb testing.TB, r *Registry, in NewTenantInput) (learngate.Tenant, string) {
	tb.Helper()
	t, key, err := r.Create(context.Background(), in)
	if err != nil {
		tb.Fatalf("Create(%s): %v", in.Slug, err)
	}
	return t, key
}

// mustResolve resolves host and fails the test when it does not.
func mustResolve(tb testing.TB, r *Registry, host string) learngate.Tenant {
	tb.Helper()
	t, err := r.Resolve(context.Background(), host)
	if err != nil {
		tb.Fatalf("Resolve(%s): %v", host, err)
	}
	return t
}

// registryCounts is how many tenant rows, domains, keys and tenant schemas exist.
type registryCounts struct {
	Tenants int `db:"tenants"`
	Domains int `db:"domains"`
	Keys    int `db:"keys"`
	Schemas int `db:"schemas"`
}

func countRegistry(tb testing.TB, db *store.DB) registryCounts {
	tb.Helper()
	var c registryCounts
	err := db.Pool().Get(&c, `SELECT
		(SELECT count(*) FROM public.tenants) AS tenants,
		(SELECT count(*) FROM public.tenant_domains) AS domains,
		(SELECT count(*) FROM public.api_keys) AS keys,
		(SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'tenant\_%') AS schemas`)
	if err != nil {
		tb.Fatalf("count registry: %v", err)
	}
	return c
}

// waitFor polls cond every 10 ms until it holds and returns how long that
// took; it fails the test when cond does not hold within limit.
func waitFor(tb testing.TB, limit time.Duration, what string, cond func() bool) time.Duration {
	tb.Helper()
	start := time.Now()
	for {
		if cond() {
			return time.Since(start)
		}
		if time.Since(start) > limit {
			tb.Fatalf("%s: not within %v", what, limit)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// fakeClock is a settable clock for Options.Now.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

func ptr[T any](v T) *T { return &v }
