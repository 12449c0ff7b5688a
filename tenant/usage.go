package tenant

import (
	"sync"
	"time"
)

// usageInterval is how often at most a key's last_used_at is written.
const usageInterval = time.Minute

// usageTracker remembers when keys were used so that last_used_at is kept
// without a database write per request.
type usageTracker struct {
	mu      sync.Mutex
	now     func() time.Time
	written map[int64]time.Time
	pending map[int64]time.Time
}

func newUsageTracker(now func() time.Time) *usageTracker {
	return &usageTracker{now: now, written: map[int64]time.Time{}, pending: map[int64]time.Time{}}
}

// used notes a use of key id; it queues a write only when the last one
// queued for that key is a minute old or more.
func (u *usageTracker) used(id int64) {
	now := u.now()
	u.mu.Lock()
	defer u.mu.Unlock()
	if last, ok := u.written[id]; ok && now.Sub(last) < usageInterval {
		return
	}
	u.written[id] = now
	u.pending[id] = now
}

func (u *usageTracker) take() map[int64]time.Time {
	u.mu.Lock()
	defer u.mu.Unlock()
	p := u.pending
	u.pending = map[int64]time.Time{}
	return p
}

func (u *usageTracker) restore(p map[int64]time.Time) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for id, at := range p {
		if _, ok := u.pending[id]; !ok {
			u.pending[id] = at
		}
	}
}
