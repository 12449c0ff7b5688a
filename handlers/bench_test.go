package handlers

import (
	"net/http"
	"net/http/httptest"
	"testing"

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
