package ratelimit

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// TestRetryAfterMemoryBoundary walks a 60 s window second by second with a
// clock that is not on a whole second: Retry-After is the wait rounded up,
// 60 at most, 1 at least, and the request is accepted once it has passed.
func TestRetryAfterMemoryBoundary(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock() // 12:00:00.25
	lim := New(NewMemoryStore(clock.Now), Options{Window: time.Minute, Now: clock.Now})
	start := clock.Now()
	mustResult(t, "hit", lim.Allow(ctx, "k", 1), true, 0)
	for _, tc := range []struct {
		after time.Duration
		want  int64
	}{
		{0, 60},
		{time.Microsecond, 60},
		{750 * time.Millisecond, 60}, // on a whole second of the clock
		{time.Second, 59},
		{30*time.Second + 250*time.Millisecond, 30},
		{58*time.Second + 999_999*time.Microsecond, 2},
		{59 * time.Second, 1},
		{59*time.Second + 999_999*time.Microsecond, 1},
	} {
		t.Run(tc.after.String(), func(t *testing.T) {
			clock.Advance(start.Add(tc.after).Sub(clock.Now()))
			res := lim.Allow(ctx, "k", 1)
			mustResult(t, "full", res, false, 0)
			if res.RetryAfter != tc.want {
				t.Fatalf("RetryAfter = %d, want %d", res.RetryAfter, tc.want)
			}
		})
	}
	clock.Advance(start.Add(time.Minute).Sub(clock.Now()))
	mustResult(t, "accepted once the wait is over", lim.Allow(ctx, "k", 1), true, 0)
}

// TestRetryAfterOverLimitMemory: five failures recorded against a limit of
// three (or a tenant whose limit was lowered) leave room when the third
// oldest leaves.
func TestRetryAfterOverLimitMemory(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	lim := New(NewMemoryStore(clock.Now), Options{Window: time.Minute, Now: clock.Now})
	var res Result
	for range 5 {
		res = lim.Record(ctx, "ip", 3)
		clock.Advance(10 * time.Second)
	}
	clock.Advance(-10 * time.Second) // at the fifth failure, 40 s after the first
	if res.Allowed || res.RetryAfter != 40 {
		t.Fatalf("Record = %+v, want refused with RetryAfter 40 (the third failure leaves at 80 s)", res)
	}
	clock.Advance(40*time.Second - time.Microsecond)
	mustResult(t, "just before", lim.Blocked(ctx, "ip", 3), false, 0)
	clock.Advance(time.Microsecond)
	mustResult(t, "room again", lim.Blocked(ctx, "ip", 3), true, 1)
}

// TestRetryAfterRedisNeverAboveWindow: right after a hit on the Redis clock
// (which never stands on a whole second), the wait of a 60 s window is 60,
// not 61; with a 1 s window it is 1, not 2.
func TestRetryAfterRedisNeverAboveWindow(t *testing.T) {
	ctx := context.Background()
	client := mustRedisClient(t)
	for _, window := range []time.Duration{time.Minute, time.Second} {
		lim := New(NewRedisStore(client, randomPrefix(t, client)), Options{Window: window})
		want := int64(window / time.Second)
		for i := range 5 {
			key := "k" + strconv.Itoa(i)
			mustResult(t, "hit", lim.Allow(ctx, key, 1), true, 0)
			res := lim.Allow(ctx, key, 1)
			mustResult(t, "full", res, false, 0)
			if res.RetryAfter != want {
				t.Fatalf("window %s: RetryAfter = %d, want %d", window, res.RetryAfter, want)
			}
		}
	}
}
