package ratelimit

import (
	"context"
	"testing"
	"time"
)

// TestRuleWindows: one Limiter counts two keys over windows of their own
// (15 minutes and an hour), on the memory store and on Redis; Retry-After
// is bounded by each key's window, not the Limiter's minute.
func TestRuleWindows(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	client := mustRedisClient(t)
	stores := map[string]*Limiter{
		"memory": New(NewMemoryStore(clock.Now), Options{Window: time.Minute, Now: clock.Now}),
		"redis":  New(NewRedisStore(client, randomPrefix(t, client)), Options{Window: time.Minute}),
	}
	for name, l := range stores {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			pair, addr := Rule{Limit: 2, Window: 15 * time.Minute}, Rule{Limit: 3, Window: time.Hour}
			for range 2 {
				l.RecordBy(ctx, "pair", pair)
			}
			r := l.BlockedBy(ctx, "pair", pair)
			if r.Allowed || r.RetryAfter < 14*60 || r.RetryAfter > 15*60 {
				t.Fatalf("pair after 2 = %+v, want blocked for about 15 minutes", r)
			}
			for range 2 {
				l.RecordBy(ctx, "addr", addr)
			}
			if r := l.BlockedBy(ctx, "addr", addr); !r.Allowed {
				t.Fatalf("addr after 2 of 3 = %+v", r)
			}
			if r := l.RecordBy(ctx, "addr", addr); r.Allowed || r.RetryAfter < 59*60 || r.RetryAfter > 3600 {
				t.Fatalf("addr after 3 = %+v, want blocked for about an hour", r)
			}
			if name == "memory" {
				clock.Advance(15*time.Minute + time.Second)
				if r := l.BlockedBy(ctx, "pair", pair); !r.Allowed {
					t.Fatalf("pair after 15 minutes = %+v", r)
				}
				if r := l.BlockedBy(ctx, "addr", addr); r.Allowed {
					t.Fatalf("addr after 15 minutes = %+v, want still blocked", r)
				}
			}
		})
	}
}
