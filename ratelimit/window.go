package ratelimit

import (
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

// windowState is what a store knows about one key after a check:
// the number of hits left in the window and the timestamps that matter.
type windowState struct {
	count    int64 // hits in the window after the operation
	oldestUS int64 // oldest hit in the window, unix µs; -1 when there are none
	nowUS    int64 // the store's clock during the operation, unix µs
	reached  bool
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
