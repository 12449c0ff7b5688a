package ratelimit

import (
	"context"
	"testing"
	"time"

	"github.com/ulule/limiter/v3"
)

func TestMemoryStoreWindowEdge(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	lim := New(NewMemoryStore(clock.Now), Options{Now: clock.Now})
	const limit = 4

	// Hits spread over the minute: at 0 s, 15 s, 30 s and 45 s.
	start := clock.Now()
	for i := range int64(limit) {
		mustResult(t, "spread hit", lim.Allow(ctx, "tenant", limit), true, limit-i-1)
		clock.Advance(15 * time.Second)
	}
	clock.Advance(-time.Microsecond) // 60 s - 1 µs after the first hit
	res := lim.Allow(ctx, "tenant", limit)
	mustResult(t, "oldest hit still inside", res, false, 0)
	if want := ceilDiv(start.Add(time.Minute).UnixMicro(), microsPerSecond); res.Reset != want {
		t.Fatalf("Reset = %d, want %d", res.Reset, want)
	}
	if res.RetryAfter != 1 {
		t.Fatalf("RetryAfter = %d, want 1 (the oldest hit leaves within the second)", res.RetryAfter)
	}

	clock.Advance(2 * time.Microsecond) // just past first hit + window
	mustResult(t, "slot of the first hit", lim.Allow(ctx, "tenant", limit), true, 0)
	res = lim.Allow(ctx, "tenant", limit)
	mustResult(t, "the other three still count", res, false, 0)
	if want := ceilDiv(start.Add(75*time.Second).UnixMicro(), microsPerSecond); res.Reset != want {
		t.Fatalf("Reset = %d, want %d (when the 15 s hit leaves)", res.Reset, want)
	}
	if res.RetryAfter != 15 {
		t.Fatalf("RetryAfter = %d, want 15 (the 15 s hit leaves in 14.999999 s)", res.RetryAfter)
	}
}

func TestMemoryStoreResetField(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock() // 12:00:00.25
	store := NewMemoryStore(clock.Now)
	rate := limiter.Rate{Period: time.Minute, Limit: 10}
	next := clock.Now().Add(time.Minute).Truncate(time.Second).Add(time.Second).Unix()

	for _, tc := range []struct {
		name string
		call func() (limiter.Context, error)
	}{
		{"peek with no hits", func() (limiter.Context, error) { return store.Peek(ctx, "k", rate) }},
		{"first hit", func() (limiter.Context, error) { return store.Get(ctx, "k", rate) }},
		{"reset", func() (limiter.Context, error) { return store.Reset(ctx, "k", rate) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.call()
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			if got.Reset != next {
				t.Fatalf("Reset = %d, want %d (now + period, rounded up)", got.Reset, next)
			}
		})
	}
}

func TestMemoryStoreSweepsIdleKeys(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	store := NewMemoryStore(clock.Now)
	short := limiter.Rate{Period: time.Second, Limit: 5}
	long := limiter.Rate{Period: time.Hour, Limit: 5}
	for _, key := range []string{"a", "b", "c"} {
		if _, err := store.Get(ctx, key, short); err != nil {
			t.Fatalf("Get: %v", err)
		}
	}
	if _, err := store.Get(ctx, "long", long); err != nil {
		t.Fatalf("Get: %v", err)
	}
	if n := store.keyCount(); n != 4 {
		t.Fatalf("keyCount = %d, want 4", n)
	}
	clock.Advance(memorySweepInterval + time.Second)
	if _, err := store.Peek(ctx, "unrelated", short); err != nil {
		t.Fatalf("Peek: %v", err)
	}
	if n := store.keyCount(); n != 1 {
		t.Fatalf("keyCount after sweep = %d, want 1 (only the hour-long key)", n)
	}
}

func TestMemoryStoreRejectsBadRate(t *testing.T) {
	store := NewMemoryStore(nil)
	if _, err := store.Get(context.Background(), "k", limiter.Rate{Limit: 1}); err == nil {
		t.Fatal("Get with a zero period succeeded, want an error")
	}
}
