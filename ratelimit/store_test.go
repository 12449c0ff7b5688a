package ratelimit

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/ulule/limiter/v3"
)

// suiteWindow is the window of the behaviour suite; short so that the Redis
// run, which really sleeps, stays quick.
const suiteWindow = 2 * time.Second

// storeEnv is one store under test, with a Limiter over it and a way to let
// time pass for that store.
type storeEnv struct {
	store   limiter.Store
	lim     *Limiter
	advance func(time.Duration)
	now     func() time.Time
	exact   bool // the clock is fake, so Reset can be checked to the second
}

// storeKind is one store the behaviour suite runs against.
type storeKind struct {
	name     string
	parallel bool
	setup    func(t *testing.T) storeEnv
}

// storeKinds returns the stores the behaviour suite runs against.
func storeKinds() []storeKind {
	return []storeKind{
		{
			name: "memory",
			setup: func(t *testing.T) storeEnv {
				clock := newFakeClock()
				store := NewMemoryStore(clock.Now)
				lim := New(store, Options{Window: suiteWindow, Now: clock.Now})
				return storeEnv{store: store, lim: lim, advance: clock.Advance, now: clock.Now, exact: true}
			},
		},
		{
			name:     "redis",
			parallel: true,
			setup: func(t *testing.T) storeEnv {
				client := mustRedisClient(t)
				store := NewRedisStore(client, randomPrefix(t, client))
				lim := New(store, Options{Window: suiteWindow})
				return storeEnv{store: store, lim: lim, advance: time.Sleep, now: time.Now}
			},
		},
	}
}

// storeBehaviours returns the semantics both stores must share.
func storeBehaviours() []storeBehaviour {
	return []storeBehaviour{
		{"limit then reject", testLimitThenReject},
		{"window slides one hit at a time", testWindowSlides},
		{"rejected requests do not consume quota", testRejectedDoNotConsume},
		{"record and blocked count failures", testRecordAndBlocked},
		{"increment by several", testIncrementBySeveral},
		{"reset deletes the key", testReset},
		{"retry after is the exact wait", testRetryAfterExact},
	}
}

// storeBehaviour is one named check of the suite.
type storeBehaviour struct {
	name string
	run  func(t *testing.T, e storeEnv)
}

func TestStoreBehaviours(t *testing.T) {
	for _, kind := range storeKinds() {
		t.Run(kind.name, func(t *testing.T) {
			for _, b := range storeBehaviours() {
				t.Run(b.name, func(t *testing.T) {
					if kind.parallel {
						t.Parallel()
					}
					b.run(t, kind.setup(t))
				})
			}
		})
	}
}

// mustResult checks the parts of a Result that matter for a step.
func mustResult(t *testing.T, step string, got Result, allowed bool, remaining int64) {
	t.Helper()
	if got.FailedOpen {
		t.Fatalf("%s: failed open: %+v", step, got)
	}
	if got.Allowed != allowed || got.Remaining != remaining {
		t.Fatalf("%s: got allowed=%v remaining=%d, want allowed=%v remaining=%d (%+v)",
			step, got.Allowed, got.Remaining, allowed, remaining, got)
	}
	if allowed && got.RetryAfter != 0 {
		t.Fatalf("%s: RetryAfter = %d on an allowed check", step, got.RetryAfter)
	}
	if !allowed && got.RetryAfter < 1 {
		t.Fatalf("%s: RetryAfter = %d, want >= 1", step, got.RetryAfter)
	}
}

func testLimitThenReject(t *testing.T, e storeEnv) {
	ctx := context.Background()
	const limit = 5
	first := e.now()
	for i := range int64(limit) {
		res := e.lim.Allow(ctx, "tenant", limit)
		mustResult(t, "allow", res, true, limit-i-1)
		if res.Limit != limit {
			t.Fatalf("Limit = %d, want %d", res.Limit, limit)
		}
	}
	res := e.lim.Allow(ctx, "tenant", limit)
	mustResult(t, "over the limit", res, false, 0)

	// Reset is when the oldest hit leaves the window, rounded up.
	if e.exact {
		want := ceilDiv(first.Add(suiteWindow).UnixMicro(), microsPerSecond)
		if res.Reset != want {
			t.Fatalf("Reset = %d, want %d", res.Reset, want)
		}
	} else if lo, hi := first.Unix(), e.now().Add(suiteWindow).Unix()+1; res.Reset < lo || res.Reset > hi {
		t.Fatalf("Reset = %d, want within [%d, %d]", res.Reset, lo, hi)
	}

	// Another key has its own quota.
	mustResult(t, "other key", e.lim.Allow(ctx, "other", limit), true, limit-1)
}

func testWindowSlides(t *testing.T, e storeEnv) {
	ctx := context.Background()
	const limit = 3
	mustResult(t, "oldest hit", e.lim.Allow(ctx, "k", limit), true, 2)
	e.advance(suiteWindow / 2)
	mustResult(t, "second hit", e.lim.Allow(ctx, "k", limit), true, 1)
	mustResult(t, "third hit", e.lim.Allow(ctx, "k", limit), true, 0)
	mustResult(t, "full", e.lim.Allow(ctx, "k", limit), false, 0)

	// Just past the oldest hit's expiry only that hit's slot is free: a
	// fixed window would have handed back the whole quota.
	e.advance(suiteWindow/2 + 150*time.Millisecond)
	mustResult(t, "slot of the oldest hit", e.lim.Allow(ctx, "k", limit), true, 0)
	mustResult(t, "no more slots", e.lim.Allow(ctx, "k", limit), false, 0)
}

func testRejectedDoNotConsume(t *testing.T, e storeEnv) {
	ctx := context.Background()
	const limit = 2
	mustResult(t, "first", e.lim.Allow(ctx, "k", limit), true, 1)
	mustResult(t, "second", e.lim.Allow(ctx, "k", limit), true, 0)
	e.advance(300 * time.Millisecond)
	for range 5 {
		mustResult(t, "rejected", e.lim.Allow(ctx, "k", limit), false, 0)
	}
	// The accepted hits have left; the rejected ones were never recorded.
	e.advance(suiteWindow - 300*time.Millisecond + 100*time.Millisecond)
	mustResult(t, "quota back", e.lim.Allow(ctx, "k", limit), true, 1)
	mustResult(t, "quota back", e.lim.Allow(ctx, "k", limit), true, 0)
	mustResult(t, "full again", e.lim.Allow(ctx, "k", limit), false, 0)
}

func testRecordAndBlocked(t *testing.T, e storeEnv) {
	ctx := context.Background()
	const limit = 3
	ip := "login:203.0.113.7"
	mustResult(t, "clean ip", e.lim.Blocked(ctx, ip, limit), true, 3)
	mustResult(t, "failure 1", e.lim.Record(ctx, ip, limit), true, 2)
	mustResult(t, "failure 2", e.lim.Record(ctx, ip, limit), true, 1)
	mustResult(t, "still allowed", e.lim.Blocked(ctx, ip, limit), true, 1)
	mustResult(t, "failure 3", e.lim.Record(ctx, ip, limit), false, 0)
	mustResult(t, "failure 4 still counted", e.lim.Record(ctx, ip, limit), false, 0)
	for range 3 {
		mustResult(t, "blocked", e.lim.Blocked(ctx, ip, limit), false, 0)
	}
	mustResult(t, "allow on the same key", e.lim.Allow(ctx, ip, limit), false, 0)

	// Blocked and the rejected Allow recorded nothing: after the window the key is clean.
	e.advance(suiteWindow + 100*time.Millisecond)
	mustResult(t, "after the window", e.lim.Blocked(ctx, ip, limit), true, 3)
}

func testIncrementBySeveral(t *testing.T, e storeEnv) {
	ctx := context.Background()
	rate := limiter.Rate{Period: suiteWindow, Limit: 10}
	for _, step := range []struct {
		count     int64
		remaining int64
		reached   bool
	}{
		{count: 4, remaining: 6},
		{count: 5, remaining: 1},
		{count: 1, remaining: 0, reached: true},
		{count: 3, remaining: 0, reached: true},
	} {
		got, err := e.store.Increment(ctx, "burst", step.count, rate)
		if err != nil {
			t.Fatalf("Increment(%d): %v", step.count, err)
		}
		if got.Remaining != step.remaining || got.Reached != step.reached || got.Limit != 10 {
			t.Fatalf("Increment(%d) = %+v, want remaining=%d reached=%v", step.count, got, step.remaining, step.reached)
		}
	}
	if _, err := e.store.Increment(ctx, "burst", -1, rate); err == nil {
		t.Fatal("Increment(-1) succeeded, want an error")
	}
}

func testReset(t *testing.T, e storeEnv) {
	ctx := context.Background()
	const limit = 2
	e.lim.Allow(ctx, "k", limit)
	e.lim.Allow(ctx, "k", limit)
	mustResult(t, "full", e.lim.Allow(ctx, "k", limit), false, 0)
	rate := limiter.Rate{Period: suiteWindow, Limit: limit}
	got, err := e.store.Reset(ctx, "k", rate)
	if err != nil {
		t.Fatalf("Reset: %v", err)
	}
	if got.Remaining != limit || got.Reached {
		t.Fatalf("Reset = %+v, want the full quota", got)
	}
	mustResult(t, "after reset", e.lim.Allow(ctx, "k", limit), true, 1)
}

// testRetryAfterExact checks Retry-After against the window of suiteWindow
// (2 s): the seconds, rounded up, until one more request would be accepted,
// never above the window, at least 1, counted from the store's clock and
// not from whole seconds (which made it one second too long).
func testRetryAfterExact(t *testing.T, e storeEnv) {
	ctx := context.Background()
	windowSecs := int64(suiteWindow / time.Second)
	for i := range 3 {
		key := "exact-" + strconv.Itoa(i)
		mustResult(t, "hit", e.lim.Allow(ctx, key, 1), true, 0)
		res := e.lim.Allow(ctx, key, 1)
		mustResult(t, "full", res, false, 0)
		if res.RetryAfter != windowSecs {
			t.Fatalf("RetryAfter right after the hit = %d, want %d (the window, never more)", res.RetryAfter, windowSecs)
		}
	}
	// 1.5 s later the hit leaves in 0.5 s: rounded up, 1.
	e.advance(1500 * time.Millisecond)
	res := e.lim.Allow(ctx, "exact-0", 1)
	mustResult(t, "still full", res, false, 0)
	if res.RetryAfter != 1 {
		t.Fatalf("RetryAfter 0.5 s before the hit leaves = %d, want 1", res.RetryAfter)
	}

	// With more failures recorded than the limit, room comes back when
	// enough of them have left, not when the oldest has.
	mustResult(t, "failure 1", e.lim.Record(ctx, "over", 2), true, 1)
	e.advance(1200 * time.Millisecond)
	mustResult(t, "failure 2", e.lim.Record(ctx, "over", 2), false, 0)
	res = e.lim.Record(ctx, "over", 2)
	mustResult(t, "failure 3", res, false, 0)
	if res.RetryAfter != windowSecs {
		t.Fatalf("RetryAfter with 3 failures over a limit of 2 = %d, want %d (when the second leaves)", res.RetryAfter, windowSecs)
	}
}
