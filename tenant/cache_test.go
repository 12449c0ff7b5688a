package tenant

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"learngate"
)

func TestResolveServedFromCache(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// No Run: nothing but the registry's own changes drops its cache.
	r, db, _ := newTestRegistry(t, Options{})
	acme, key := mustCreate(t, r, NewTenantInput{Slug: "acme", CustomDomains: []string{"learn.acme.example"}})
	mustCreate(t, r, NewTenantInput{Slug: "other"})

	warm := mustResolve(t, r, "acme.learngate.localhost")
	mustResolve(t, r, "learn.acme.example")
	if err := r.Authenticate(ctx, warm, key); err != nil {
		t.Fatal(err)
	}

	// Behind the registry's back: rename and suspend the tenant, drop its domain and keys.
	for _, q := range []string{
		`UPDATE public.tenants SET slug = 'renamed', status = 'suspended' WHERE id = $1`,
		`DELETE FROM public.tenant_domains WHERE tenant_id = $1`,
		`DELETE FROM public.api_keys WHERE tenant_id = $1`,
	} {
		if _, err := db.Pool().ExecContext(ctx, q, acme.ID); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := db.TenantBySlug(ctx, "acme"); !learngate.IsCode(err, learngate.NotFound) {
		t.Fatalf("the database still has slug acme: %v", err)
	}

	// Still answered from memory.
	for range 3 {
		for _, host := range []string{"acme.learngate.localhost", "ACME.learngate.localhost:443", "learn.acme.example"} {
			got := mustResolve(t, r, host)
			if got.ID != acme.ID || got.Slug != "acme" || got.Status != learngate.TenantActive {
				t.Fatalf("Resolve(%s) = %q (%s), want the cached active acme", host, got.Slug, got.Status)
			}
		}
		if err := r.Authenticate(ctx, warm, key); err != nil {
			t.Fatalf("Authenticate with the cached key: %v", err)
		}
	}

	// Any change through the registry drops the cache: now the database answers.
	if _, err := r.Update(ctx, "other", TenantPatch{Name: ptr("Other")}); err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"acme.learngate.localhost", "learn.acme.example"} {
		if _, err := r.Resolve(ctx, host); !learngate.IsCode(err, learngate.NotFound) {
			t.Fatalf("Resolve(%s) after invalidation: %v, want NotFound", host, err)
		}
	}
	renamed := mustResolve(t, r, "renamed.learngate.localhost")
	if renamed.ID != acme.ID || renamed.Status != learngate.TenantSuspended {
		t.Fatalf("Resolve(renamed) = %d (%s)", renamed.ID, renamed.Status)
	}
	if err := r.Authenticate(ctx, renamed, key); !learngate.IsCode(err, learngate.Unauthorized) {
		t.Fatalf("Authenticate with the deleted key: %v, want Unauthorized", err)
	}
}

// nodeChange is a change made on one node and how another node shows it.
type nodeChange struct {
	name string
	// apply makes the change through node a.
	apply func(ctx context.Context, a *Registry, keyID int64) error
	// seen reports whether node b answers with the change.
	seen func(ctx context.Context, b *Registry, key string) bool
}

var nodeChanges = []nodeChange{
	{
		name: "suspend",
		apply: func(ctx context.Context, a *Registry, _ int64) error {
			_, err := a.Update(ctx, "acme", TenantPatch{Status: ptr(learngate.TenantSuspended)})
			return err
		},
		seen: func(ctx context.Context, b *Registry, key string) bool {
			tn, err := b.Resolve(ctx, "acme.learngate.localhost")
			return err == nil && tn.Status == learngate.TenantSuspended &&
				learngate.IsCode(b.Authenticate(ctx, tn, key), learngate.Unauthorized)
		},
	},
	{
		name: "revoke key",
		apply: func(ctx context.Context, a *Registry, keyID int64) error {
			return a.RevokeKey(ctx, "acme", keyID)
		},
		seen: func(ctx context.Context, b *Registry, key string) bool {
			tn, err := b.Resolve(ctx, "acme.learngate.localhost")
			return err == nil && learngate.IsCode(b.Authenticate(ctx, tn, key), learngate.Unauthorized)
		},
	},
	{
		name: "remove domain",
		apply: func(ctx context.Context, a *Registry, _ int64) error {
			return a.RemoveDomain(ctx, "acme", "learn.acme.example")
		},
		seen: func(ctx context.Context, b *Registry, _ string) bool {
			_, err := b.Resolve(ctx, "learn.acme.example")
			return learngate.IsCode(err, learngate.NotFound)
		},
	},
}

func TestChangeReachesOtherNode(t *testing.T) {
	t.Parallel()
	modes := []struct {
		name  string
		redis bool
		poll  time.Duration
	}{
		// Polling every hour: only the Redis message can explain a quick update.
		{"redis pub/sub", true, time.Hour},
		{"polling without redis", false, 200 * time.Millisecond},
	}
	for _, mode := range modes {
		for _, change := range nodeChanges {
			t.Run(mode.name+"/"+change.name, func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				optsA := Options{PollInterval: mode.poll}
				optsB := Options{PollInterval: mode.poll}
				var rdb *redis.Client
				published := &publishRecorder{}
				if mode.redis {
					rdbA := newRedis(t)
					rdbA.AddHook(published)
					optsA.Redis = rdbA
					rdb = newRedis(t)
					optsB.Redis = rdb
				}
				a, _, url := newTestRegistry(t, optsA)
				b := newRegistryOn(openNode(t, url), optsB)
				_, key := mustCreate(t, a, NewTenantInput{Slug: "acme", CustomDomains: []string{"learn.acme.example"}})
				keys, err := a.ListKeys(ctx, "acme")
				if err != nil || len(keys) != 1 {
					t.Fatalf("ListKeys = %v, %v", keys, err)
				}
				runRegistry(t, a)
				runRegistry(t, b)
				if mode.redis {
					waitSubscribed(t, b, rdb)
				}

				// Node b's cache is warm with the old state.
				tn := mustResolve(t, b, "acme.learngate.localhost")
				mustResolve(t, b, "learn.acme.example")
				if err := b.Authenticate(ctx, tn, key); err != nil {
					t.Fatal(err)
				}
				if change.seen(ctx, b, key) {
					t.Fatal("node b shows the change before it is made")
				}

				publishedBefore := published.count()
				if err := change.apply(ctx, a, keys[0].ID); err != nil {
					t.Fatalf("change through node a: %v", err)
				}
				took := waitFor(t, time.Second, "node b sees the change", func() bool { return change.seen(ctx, b, key) })
				t.Logf("node b saw the change after %v", took.Round(time.Millisecond))
				// Other tests publish on the same channel too; that node a announced
				// its change, and node b listens (waitSubscribed), is what counts.
				if mode.redis && published.count() == publishedBefore {
					t.Fatalf("node a did not publish an invalidation on %s", invalidationChannel)
				}
			})
		}
	}
}

// TestPollingSeesChangeMadeBeforeFirstPoll: a node whose cache was filled
// before its first poll must not take the generation it first reads as
// the one its cache reflects.
func TestPollingSeesChangeMadeBeforeFirstPoll(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	opts := Options{PollInterval: 200 * time.Millisecond}
	a, _, url := newTestRegistry(t, opts)
	b := newRegistryOn(openNode(t, url), opts)
	mustCreate(t, a, NewTenantInput{Slug: "acme"})

	if got := mustResolve(t, b, "acme.learngate.localhost"); got.Status != learngate.TenantActive {
		t.Fatalf("status = %s", got.Status)
	}
	if _, err := a.Update(ctx, "acme", TenantPatch{Status: ptr(learngate.TenantSuspended)}); err != nil {
		t.Fatal(err)
	}
	runRegistry(t, b)
	waitFor(t, time.Second, "node b sees the suspension", func() bool {
		tn, err := b.Resolve(ctx, "acme.learngate.localhost")
		return err == nil && tn.Status == learngate.TenantSuspended
	})
}

// waitSubscribed returns once r's Redis subscription delivers messages:
// it publishes invalidations until r's cache epoch moves.
func waitSubscribed(tb testing.TB, r *Registry, rdb *redis.Client) {
	tb.Helper()
	start := r.cache.currentEpoch()
	waitFor(tb, 5*time.Second, "redis subscription", func() bool {
		if err := rdb.Publish(context.Background(), invalidationChannel, "1").Err(); err != nil {
			tb.Fatalf("publish: %v", err)
		}
		time.Sleep(5 * time.Millisecond)
		return r.cache.currentEpoch() != start
	})
}

// publishRecorder is a go-redis hook counting PUBLISHes on the invalidation channel.
type publishRecorder struct {
	mu sync.Mutex
	n  int
}

func (p *publishRecorder) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n
}

func (p *publishRecorder) DialHook(next redis.DialHook) redis.DialHook { return next }

func (p *publishRecorder) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		args := cmd.Args()
		if err == nil && cmd.Name() == "publish" && len(args) > 1 && args[1] == invalidationChannel {
			p.mu.Lock()
			p.n++
			p.mu.Unlock()
		}
		return err
	}
}

func (p *publishRecorder) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
