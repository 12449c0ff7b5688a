package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"learngate"
	"learngate/handlers/httpx"
	"learngate/store/storetest"
	"learngate/tenant"
)

// registryChannel is the channel of cache invalidations (package tenant).
const registryChannel = "learngate:registry:changed"

// TestRedisCluster runs two nodes on a real three-master Redis Cluster
// named by the cluster form of LEARNGATE_REDIS_URL: the limiter keys of
// many tenants, spread over every master, are limited across both nodes
// with no MOVED or CROSSSLOT error and no fail-open; an invalidation
// published by one node reaches the other's registry; /readyz says Redis
// is up.
func TestRedisCluster(t *testing.T) {
	cluster := storetest.StartRedisCluster(t)
	migratedCLIEnv(t)
	t.Setenv("LEARNGATE_REDIS_URL", cluster.URL)
	mustRun(t, "migrate", "-q")
	mustRun(t, "tenant", "create", "acme")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	nodes := make([]*app, 2)
	for i := range nodes {
		a, err := openApp(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(a.close)
		if _, ok := a.redis.(*redis.ClusterClient); !ok {
			t.Fatalf("node %d: client %T, want a cluster client", i, a.redis)
		}
		nodes[i] = a
	}

	t.Run("readiness", func(t *testing.T) {
		public, err := newServer(nodes[0], blobStores{}).PublicRouter()
		if err != nil {
			t.Fatal(err)
		}
		w := httptest.NewRecorder()
		public.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/readyz", nil))
		if w.Code != http.StatusOK || w.Body.String() != `{"database":"up","redis":"up"}` {
			t.Fatalf("/readyz: %d %s", w.Code, w.Body.String())
		}
	})

	t.Run("limiter keys on every master", func(t *testing.T) {
		const tenants, limit = 40, 3
		var failedOpen sync.Map
		metrics := []*httpx.Metrics{httpx.NewMetrics(), httpx.NewMetrics()}
		la, lb := newLimiter(nodes[0], metrics[0]), newLimiter(nodes[1], metrics[1])
		var wg sync.WaitGroup
		allowed := make([]int, tenants)
		for i := range tenants {
			wg.Go(func() {
				key := fmt.Sprintf("tenant:%d", i+1)
				for call := range limit + 2 {
					l := la
					if call%2 == 1 {
						l = lb
					}
					r := l.Allow(ctx, key, limit)
					if r.FailedOpen {
						failedOpen.Store(key, true)
					}
					if r.Allowed {
						allowed[i]++
					}
				}
			})
		}
		wg.Wait()
		failedOpen.Range(func(k, _ any) bool { t.Errorf("%s failed open", k); return true })
		for i, n := range allowed {
			if n != limit {
				t.Errorf("tenant:%d: %d of %d calls allowed, want %d", i+1, n, limit+2, limit)
			}
		}
		// The keys live on all three masters: each master answered scripts.
		var mu sync.Mutex
		perMaster := map[string]int{}
		err := nodes[0].redis.(*redis.ClusterClient).ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
			keys, err := m.Keys(ctx, "learngate:rl:tenant:*").Result()
			mu.Lock()
			defer mu.Unlock()
			perMaster[m.Options().Addr] = len(keys)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		total := 0
		for addr, n := range perMaster {
			if n == 0 {
				t.Errorf("master %s holds no limiter key: %v", addr, perMaster)
			}
			total += n
		}
		if len(perMaster) != 3 || total != tenants {
			t.Fatalf("keys per master %v, want %d keys on 3 masters", perMaster, tenants)
		}
	})

	t.Run("invalidation reaches the other node", func(t *testing.T) {
		a, b := nodes[0], nodes[1]
		// Node b polls the database hourly: only the Redis message can
		// explain a quick update.
		reg := tenant.NewRegistry(b.db, tenant.Options{Redis: b.redis, PollInterval: time.Hour,
			BaseDomains: b.cfg.BaseDomains, Logger: b.logger})
		go reg.Run(ctx)
		waitUntil(t, 5*time.Second, "node b subscribed", func() bool {
			subscribers := 0
			var mu sync.Mutex
			_ = b.redis.(*redis.ClusterClient).ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
				n, err := m.PubSubNumSub(ctx, registryChannel).Result()
				mu.Lock()
				defer mu.Unlock()
				subscribers += int(n[registryChannel])
				return err
			})
			return subscribers > 0
		})
		tn, err := reg.Resolve(ctx, "acme.learngate.localhost")
		if err != nil || tn.Status != learngate.TenantActive {
			t.Fatalf("resolve on node b: %+v, %v", tn, err)
		}
		suspended := learngate.TenantSuspended
		if _, err := a.registry.Update(ctx, "acme", tenant.TenantPatch{Status: &suspended}); err != nil {
			t.Fatal(err)
		}
		took := waitUntil(t, time.Second, "node b sees the suspension", func() bool {
			tn, err := reg.Resolve(ctx, "acme.learngate.localhost")
			return err == nil && tn.Status == learngate.TenantSuspended
		})
		t.Logf("node b saw the suspension after %v", took.Round(time.Millisecond))
	})
}

// waitUntil polls cond every 10 ms and fails t when it is still false
// after limit; it returns how long cond took.
func waitUntil(t *testing.T, limit time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > limit {
			t.Fatalf("%s: not within %v", what, limit)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return time.Since(start)
}
