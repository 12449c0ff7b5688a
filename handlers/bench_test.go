package handlers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/redis/go-redis/v9"

	"learngate/ratelimit"
	"learngate/store/storetest"
	"learngate/tenant"
)

// BenchmarkPingChain measures a warm GET /papi/ping through the whole chain
// (request log, tenant, key, rate limit, content type) in process, with the
// limiter in Redis (as in production) and in memory.
func BenchmarkPingChain(b *testing.B) {
	for _, tc := range []struct {
		name  string
		store func(h *harness) harnessOptions
	}{
		{"redis-limiter", func(*harness) harnessOptions { return harnessOptions{} }},
		{"memory-limiter", func(*harness) harnessOptions {
			return harnessOptions{Store: ratelimit.NewMemoryStore(nil)}
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			h := newHarness(b, tc.store(nil))
			key := h.createTenant("bench")
			limit := int64(1_000_000)
			if _, err := h.registry.Update(b.Context(), "bench", raisedLimit(limit)); err != nil {
				b.Fatal(err)
			}
			req := httptest.NewRequest(http.MethodGet, "/papi/ping", nil)
			req.Host = "bench.learngate.localhost"
			req.Header.Set("Authorization", key)
			if w := serve(h.public, req); w.Code != http.StatusOK {
				b.Fatalf("warm-up status %d: %s", w.Code, w.Body.String())
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if w := serve(h.public, req); w.Code != http.StatusOK {
					b.Fatalf("status %d", w.Code)
				}
			}
		})
	}
}

// BenchmarkBareGin is the baseline: one gin route writing the same JSON,
// with no middleware at all.
func BenchmarkBareGin(b *testing.B) {
	r := gin.New()
	r.GET("/papi/ping", func(c *gin.Context) { c.JSON(http.StatusOK, gin.H{"organisation": "bench"}) })
	req := httptest.NewRequest(http.MethodGet, "/papi/ping", nil)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if w := serve(r, req); w.Code != http.StatusOK {
			b.Fatalf("status %d", w.Code)
		}
	}
}

func serve(h http.Handler, req *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

// raisedLimit is a patch that raises a tenant's rate limit out of the benchmark's way.
func raisedLimit(limit int64) tenant.TenantPatch {
	return tenant.TenantPatch{RateLimitPerMinute: &limit}
}

// BenchmarkPingChainRedisTransport measures the same warm GET /papi/ping
// with the limiter on a private Redis reached over TCP (127.0.0.1) and
// over a Unix socket (LEARNGATE_REDIS_URL=unix://...).
func BenchmarkPingChainRedisTransport(b *testing.B) {
	for _, tc := range []struct {
		name string
		opts func(b *testing.B) *redis.Options
	}{
		{"tcp", func(b *testing.B) *redis.Options {
			return &redis.Options{Addr: storetest.StartRedisServer(b).Addr(), MaxRetries: -1}
		}},
		{"unix", func(b *testing.B) *redis.Options {
			return &redis.Options{Network: "unix", Addr: storetest.StartUnixRedis(b), MaxRetries: -1}
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			client := redis.NewClient(tc.opts(b))
			b.Cleanup(func() { client.Close() })
			h := newHarness(b, harnessOptions{Store: ratelimit.NewRedisStore(client, "learngate:rl:")})
			key := h.createTenant("bench")
			if _, err := h.registry.Update(b.Context(), "bench", raisedLimit(1_000_000)); err != nil {
				b.Fatal(err)
			}
			req := httptest.NewRequest(http.MethodGet, "/papi/ping", nil)
			req.Host = "bench.learngate.localhost"
			req.Header.Set("Authorization", key)
			if w := serve(h.public, req); w.Code != http.StatusOK {
				b.Fatalf("warm-up status %d: %s", w.Code, w.Body.String())
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if w := serve(h.public, req); w.Code != http.StatusOK {
					b.Fatalf("status %d", w.Code)
				}
			}
		})
	}
}

// BenchmarkRedisLimiterRoundTrip splits the Redis limiter's share of a ping
// (docs/performance.md, P6) on a private Redis over TCP and over a Unix
// socket: a bare PING, one limiter check (one EVALSHA) and the whole chain,
// each with go-redis options as serve sets them (250 ms timeouts, so every
// command arms a read and a write deadline) and with variants that drop
// per-call work: no deadlines, RESP2 instead of RESP3, no CLIENT SETINFO.
func BenchmarkRedisLimiterRoundTrip(b *testing.B) {
	tcp := storetest.StartRedisServer(b).Addr()
	sock := storetest.StartUnixRedis(b)
	transports := []struct{ name, network, addr string }{{"tcp", "tcp", tcp}, {"unix", "unix", sock}}
	variants := []struct {
		name string
		set  func(o *redis.Options)
	}{
		{"serve-options", func(o *redis.Options) {}},
		{"resp2", func(o *redis.Options) { o.Protocol = 2 }},
		{"no-deadlines", func(o *redis.Options) { o.ReadTimeout, o.WriteTimeout = -2, -2 }},
		{"no-identity", func(o *redis.Options) { o.DisableIdentity = true }},
	}
	for _, tr := range transports {
		for _, v := range variants {
			o := &redis.Options{Network: tr.network, Addr: tr.addr, MaxRetries: -1, DialerRetries: 1,
				DialTimeout: 250 * time.Millisecond, ReadTimeout: 250 * time.Millisecond,
				WriteTimeout: 250 * time.Millisecond, PoolTimeout: 250 * time.Millisecond}
			v.set(o)
			client := redis.NewClient(o)
			b.Cleanup(func() { client.Close() })
			ctx := context.Background()
			b.Run(tr.name+"/"+v.name+"/ping", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := client.Ping(ctx).Err(); err != nil {
						b.Fatal(err)
					}
				}
			})
			lim := ratelimit.New(ratelimit.NewRedisStore(client, "lgbench:"+storetest.RandomSuffix()+":"), ratelimit.Options{})
			b.Run(tr.name+"/"+v.name+"/check", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if res := lim.Allow(ctx, "bench", 1<<40); !res.Allowed || res.FailedOpen {
						b.Fatalf("Allow = %+v", res)
					}
				}
			})
			b.Run(tr.name+"/"+v.name+"/chain", func(b *testing.B) {
				h := newHarness(b, harnessOptions{Store: ratelimit.NewRedisStore(client, "lgbench:"+storetest.RandomSuffix()+":")})
				key := h.createTenant("bench")
				if _, err := h.registry.Update(b.Context(), "bench", raisedLimit(1_000_000)); err != nil {
					b.Fatal(err)
				}
				req := httptest.NewRequest(http.MethodGet, "/papi/ping", nil)
				req.Host = "bench.learngate.localhost"
				req.Header.Set("Authorization", key)
				if w := serve(h.public, req); w.Code != http.StatusOK {
					b.Fatalf("warm-up status %d: %s", w.Code, w.Body.String())
				}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if w := serve(h.public, req); w.Code != http.StatusOK {
						b.Fatalf("status %d", w.Code)
					}
				}
			})
		}
	}
}
