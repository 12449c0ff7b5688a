package ratelimit

import (
	"sync"
	"time"
)

// maxBlocked bounds a Blocklist; a full list is emptied rather than grown.
const maxBlocked = 100_000

// Blocklist remembers, in process memory, keys (client IPs) that went over
// a limit and until when. It lets a hot path refuse a blocked client without
// a round trip to the shared store: the shared count is only consulted when a
// failure is recorded, and each node learns of a block on its first failure
// from that client after the shared count crossed the limit.
type Blocklist struct {
	mu    sync.Mutex
	now   func() time.Time
	until map[string]time.Time
}

// NewBlocklist returns an empty blocklist; now is the clock (nil: time.Now).
func NewBlocklist(now func() time.Time) *Blocklist {
	if now == nil {
		now = time.Now
	}
	return &Blocklist{now: now, until: map[string]time.Time{}}
}

// Block refuses key until the given time.
func (b *Blocklist) Block(key string, until time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.until) >= maxBlocked {
		b.until = map[string]time.Time{}
	}
	b.until[key] = until
}

// Blocked reports whether key is blocked and, if so, the whole seconds
// (at least 1) until it is let through again.
func (b *Blocklist) Blocked(key string) (bool, int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	until, ok := b.until[key]
	if !ok {
		return false, 0
	}
	left := until.Sub(b.now())
	if left <= 0 {
		delete(b.until, key)
		return false, 0
	}
	secs := int64((left + time.Second - 1) / time.Second)
	return true, max(secs, 1)
}
