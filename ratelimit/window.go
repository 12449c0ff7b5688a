package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ulule/limiter/v3"
)

// microsPerSecond converts between the microsecond hit timestamps the stores
// keep and the unix seconds reported in limiter.Context.Reset.
const microsPerSecond = int64(time.Second / time.Microsecond)

// errBadRate is returned by both stores when a rate cannot be applied.
var errBadRate = errors.New("ratelimit: rate period must be at least 1µs")

// periodMicros returns the rate's period in microseconds, checking it is usable.
func periodMicros(rate limiter.Rate) (int64, error) {
	p := rate.Period.Microseconds()
	if p <= 0 {
		return 0, fmt.Errorf("period %s: %w", rate.Period, errBadRate)
	}
	return p, nil
}

// op is what one store call does to a key's window.
type op string

const (
	opGet   op = "get"   // record one hit unless the window is full
	opPeek  op = "peek"  // record nothing
	opIncr  op = "incr"  // record count hits whatever the limit
	opReset op = "reset" // forget every hit
)

// stateStore is a store that reports the whole window state of a call, so
// that Limiter can compute Retry-After to the microsecond instead of from
// the whole seconds of limiter.Context. Both stores of this package are.
type stateStore interface {
	state(ctx context.Context, o op, key string, rate limiter.Rate, count int64) (windowState, error)
}

// windowState is what a store knows about one key after a check:
// the number of hits left in the window and the timestamps that matter.
type windowState struct {
	count    int64 // hits in the window after the operation
	oldestUS int64 // oldest hit in the window, unix µs; -1 when there are none
	// freeUS is the hit whose leaving makes room for one more (with n hits
	// and limit l, the (n-l+1)-th oldest), unix µs; -1 while there is room.
	freeUS  int64
	nowUS   int64 // the store's clock during the operation, unix µs
	reached bool
}

// freeIndex returns the index, in a window of n hits sorted oldest first,
// of the hit whose leaving makes room under limit, or -1 while there is room.
func freeIndex(n, limit int64) int64 {
	if n == 0 || n < limit {
		return -1
	}
	return min(n-max(limit, 1), n-1)
}

// retryAfter returns the seconds, rounded up, until the window has room for
// one more hit: at least 1 and at most the period (rounded up to a second).
func (s windowState) retryAfter(periodUS int64) int64 {
	most := max(ceilDiv(periodUS, microsPerSecond), 1)
	if s.freeUS < 0 {
		return 1
	}
	secs := ceilDiv(s.freeUS+periodUS-s.nowUS, microsPerSecond)
	return min(max(secs, 1), most)
}

// toContext turns a window state into the limiter.Context that ulule expects.
// Reset is the unix second, rounded up, at which the oldest hit leaves the
// window, or now+period when the window is empty.
func (s windowState) toContext(limit, periodUS int64) limiter.Context {
	from := s.nowUS
	if s.oldestUS >= 0 {
		from = s.oldestUS
	}
	remaining := limit - s.count
	if remaining < 0 || s.reached {
		remaining = 0
	}
	return limiter.Context{
		Limit:     limit,
		Remaining: remaining,
		Reset:     ceilDiv(from+periodUS, microsPerSecond),
		Reached:   s.reached,
	}
}

// ceilDiv divides a by a positive b, rounding towards positive infinity.
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a > 0 {
		q++
	}
	return q
}
