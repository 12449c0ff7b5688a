package ratelimit

import (
	"sync"
	"time"
)

// maxBlocked bounds a Blocklist; a full list is emptied rather than grown.
const maxBlocked = 100_000

// maxFailed bounds the failures remembered per blocked key; a full set is
// emptied rather than grown.
const maxFailed = 32

// Blocklist remembers, in process memory, keys (client IPs) that went over
// a limit and until when. It lets a hot path refuse a blocked client without
// a round trip to the shared store: the shared count is only consulted when a
// failure is recorded, and each node learns of a block on its first failure
// from that client after the shared count crossed the limit.
type Blocklist struct {
	mu      sync.Mutex
	now     func() time.Time
	entries map[string]blockEntry
}

// blockEntry is one blocked key: until when, when it may next probe, and
// what its probes found wrong.
type blockEntry struct {
	until     time.Time
	nextProbe time.Time
	failed    map[string]struct{}
}

// NewBlocklist returns an empty blocklist; now is the clock (nil: time.Now).
func NewBlocklist(now func() time.Time) *Blocklist {
	if now == nil {
		now = time.Now
	}
	return &Blocklist{now: now, entries: map[string]blockEntry{}}
}

// Block refuses key until the given time.
func (b *Blocklist) Block(key string, until time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, ok := b.entries[key]
	if !ok && len(b.entries) >= maxBlocked {
		b.entries = map[string]blockEntry{}
	}
	e.until = until
	b.entries[key] = e
}

// Probe reports whether blocked key may have one request checked in full
// now: true at most once every interval while it is blocked. A caller uses
// it to let a request through to a costly check (a database lookup) that a
// blocked client's requests otherwise skip.
func (b *Blocklist) Probe(key string, every time.Duration) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, ok := b.entries[key]
	now := b.now()
	if !ok || !now.Before(e.until) || now.Before(e.nextProbe) {
		return false
	}
	e.nextProbe = now.Add(every)
	b.entries[key] = e
	return true
}

// Fail remembers that what (e.g. the hash of an API key) failed for blocked
// key, so that Failed answers it without a probe while the block lasts.
func (b *Blocklist) Fail(key, what string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, ok := b.entries[key]
	if !ok {
		return
	}
	if e.failed == nil || len(e.failed) >= maxFailed {
		e.failed = map[string]struct{}{}
	}
	e.failed[what] = struct{}{}
	b.entries[key] = e
}

// Failed reports whether what already failed for blocked key (Fail).
func (b *Blocklist) Failed(key, what string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, ok := b.entries[key].failed[what]
	return ok
}

// Blocked reports whether key is blocked and, if so, the whole seconds
// (at least 1) until it is let through again.
func (b *Blocklist) Blocked(key string) (bool, int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, ok := b.entries[key]
	if !ok {
		return false, 0
	}
	left := e.until.Sub(b.now())
	if left <= 0 {
		delete(b.entries, key)
		return false, 0
	}
	secs := int64((left + time.Second - 1) / time.Second)
	return true, max(secs, 1)
}
