// Package ratelimit limits requests per key (a tenant, or an IP for failed
// logins) over a sliding window, on top of github.com/ulule/limiter/v3.
//
// Two limiter.Store implementations keep an exact sliding log of hits with
// the same semantics: RedisStore, shared by all instances, and MemoryStore,
// in-process. Limiter wraps either one for the HTTP middleware and fails open
// when the store is unavailable.
package ratelimit

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/ulule/limiter/v3"
)

const (
	// DefaultWindow is the sliding window used when Options.Window is zero.
	DefaultWindow = time.Minute
	// DefaultLimit is the per-tenant limit, per window, the product uses
	// when a tenant has no limit of its own.
	DefaultLimit = 300
	// failOpenLogEvery is the minimum time between two fail-open warnings.
	failOpenLogEvery = 10 * time.Second
)

// Result is the outcome of one rate-limit check.
type Result struct {
	Limit      int64
	Remaining  int64
	Reset      int64 // unix seconds, for X-RateLimit-Reset
	RetryAfter int64 // whole seconds >= 1 when !Allowed, else 0
	Allowed    bool
	FailedOpen bool // the store failed and the request was let through
}

// Options configures a Limiter. The zero value is usable.
type Options struct {
	// Window is the sliding window; DefaultWindow when zero.
	Window time.Duration
	// Logger receives a warning when a check fails open, at most one line
	// per 10 s while the store keeps failing; nothing is logged when nil.
	Logger *slog.Logger
	// OnFailOpen, when set, is called once per check that failed open.
	OnFailOpen func()
	// Now is the clock of fail-open results (and of RetryAfter with a store
	// from outside this package; this package's stores use their own clock);
	// time.Now when nil.
	Now func() time.Time
}

// Limiter checks keys against per-call limits over one sliding window (or
// a window per call, Rule).
// It is safe for concurrent use.
type Limiter struct {
	store      limiter.Store
	window     time.Duration
	logger     *slog.Logger
	onFailOpen func()
	now        func() time.Time

	lastWarn   atomic.Int64 // unix nanos of the last fail-open warning
	suppressed atomic.Int64 // fail-opens not logged since the last warning
}

// New returns a Limiter over store.
func New(store limiter.Store, opts Options) *Limiter {
	l := &Limiter{
		store:      store,
		window:     opts.Window,
		logger:     opts.Logger,
		onFailOpen: opts.OnFailOpen,
		now:        opts.Now,
	}
	if l.window <= 0 {
		l.window = DefaultWindow
	}
	if l.logger == nil {
		l.logger = slog.New(slog.DiscardHandler)
	}
	if l.now == nil {
		l.now = time.Now
	}
	return l
}

// Allow records one hit for key if under limit (store Get).
// A limit <= 0 means DefaultLimit.
func (l *Limiter) Allow(ctx context.Context, key string, limit int64) Result {
	return l.check(ctx, opGet, key, limit)
}

// Blocked reports, without recording, whether key is at or over limit (store
// Peek): Allowed is false when it is. A limit <= 0 means DefaultLimit.
func (l *Limiter) Blocked(ctx context.Context, key string, limit int64) Result {
	return l.check(ctx, opPeek, key, limit)
}

// Record counts one hit for key regardless of the limit (store Increment by
// 1): Allowed is false once the window holds limit hits or more.
// A limit <= 0 means DefaultLimit.
func (l *Limiter) Record(ctx context.Context, key string, limit int64) Result {
	return l.check(ctx, opIncr, key, limit)
}

// Rule is a limit over a window of its own, for a caller that counts keys
// over several windows on one Limiter (the password throttle: per name and
// address over 15 minutes, per address over an hour). A Limit <= 0 means
// DefaultLimit; a Window <= 0 the Limiter's window.
type Rule struct {
	Limit  int64
	Window time.Duration
}

// BlockedBy is Blocked under rule's limit and window.
func (l *Limiter) BlockedBy(ctx context.Context, key string, rule Rule) Result {
	return l.checkRule(ctx, opPeek, key, rule)
}

// RecordBy is Record under rule's limit and window.
func (l *Limiter) RecordBy(ctx context.Context, key string, rule Rule) Result {
	return l.checkRule(ctx, opIncr, key, rule)
}

// check runs o against the store with a rate for limit over the Limiter's
// window.
func (l *Limiter) check(ctx context.Context, o op, key string, limit int64) Result {
	return l.checkRule(ctx, o, key, Rule{Limit: limit})
}

// checkRule runs o against the store with rule's rate and turns the
// answer, or the store's failure, into a Result. RetryAfter is the seconds,
// rounded up, until the window has room again, from the store's own clock
// to the microsecond: at least 1, at most the window.
func (l *Limiter) checkRule(ctx context.Context, o op, key string, rule Rule) Result {
	limit, window := rule.Limit, rule.Window
	if limit <= 0 {
		limit = DefaultLimit
	}
	if window <= 0 {
		window = l.window
	}
	rate := limiter.Rate{Period: window, Limit: limit}
	var res Result
	var err error
	if ss, ok := l.store.(stateStore); ok {
		res, err = l.checkState(ctx, ss, o, key, rate)
	} else {
		res, err = l.checkStore(ctx, o, key, rate)
	}
	if err != nil {
		now := l.now()
		l.failOpen(now, err)
		return Result{
			Limit:      limit,
			Remaining:  limit,
			Reset:      ceilDiv(now.Add(window).UnixMicro(), microsPerSecond),
			Allowed:    true,
			FailedOpen: true,
		}
	}
	return res
}

// checkState runs o on one of this package's stores.
func (l *Limiter) checkState(ctx context.Context, ss stateStore, o op, key string, rate limiter.Rate) (Result, error) {
	st, err := ss.state(ctx, o, key, rate, 1)
	if err != nil {
		return Result{}, err
	}
	periodUS, err := periodMicros(rate)
	if err != nil {
		return Result{}, err
	}
	lc := st.toContext(rate.Limit, periodUS)
	res := Result{Limit: lc.Limit, Remaining: lc.Remaining, Reset: lc.Reset, Allowed: !lc.Reached}
	if !res.Allowed {
		res.RetryAfter = st.retryAfter(periodUS)
	}
	return res, nil
}

// checkStore runs o on any other limiter.Store through ulule's Limiter;
// RetryAfter then comes from whole seconds and may be a second long.
func (l *Limiter) checkStore(ctx context.Context, o op, key string, rate limiter.Rate) (Result, error) {
	rl := limiter.Limiter{Store: l.store, Rate: rate}
	var lc limiter.Context
	var err error
	switch o {
	case opGet:
		lc, err = rl.Get(ctx, key)
	case opPeek:
		lc, err = rl.Peek(ctx, key)
	default:
		lc, err = rl.Increment(ctx, key, 1)
	}
	if err != nil {
		return Result{}, err
	}
	res := Result{Limit: lc.Limit, Remaining: lc.Remaining, Reset: lc.Reset, Allowed: !lc.Reached}
	if !res.Allowed {
		most := max(ceilDiv(rate.Period.Microseconds(), microsPerSecond), 1)
		res.RetryAfter = min(max(1, lc.Reset-l.now().Unix()), most)
	}
	return res, nil
}

// failOpen reports a store failure: OnFailOpen every time, a log line at
// most once per failOpenLogEvery.
func (l *Limiter) failOpen(now time.Time, err error) {
	if l.onFailOpen != nil {
		l.onFailOpen()
	}
	last := l.lastWarn.Load()
	if last != 0 && now.UnixNano()-last < int64(failOpenLogEvery) {
		l.suppressed.Add(1)
		return
	}
	if !l.lastWarn.CompareAndSwap(last, now.UnixNano()) {
		l.suppressed.Add(1)
		return
	}
	l.logger.Warn("rate limit store failed, letting requests through",
		slog.Any("error", err),
		slog.Int64("suppressed", l.suppressed.Swap(0)))
}
