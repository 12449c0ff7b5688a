package handlers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"learngate/ratelimit"
	"learngate/store/storetest"
)

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
