package ratelimit

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/ulule/limiter/v3"
)

// memorySweepInterval is how often, by the store's clock, a MemoryStore call
// also walks every key and drops those whose hits have all left their window.
const memorySweepInterval = time.Minute

// MemoryStore is an in-process limiter.Store keeping an exact sliding log of
// hits per key. It has the same semantics as RedisStore and suits tests and
// single-instance deployments.
//
// Old hits are pruned whenever a key is used; idle keys are swept lazily,
// at most once per minute, during ordinary calls, so the store starts no
// goroutine and needs no Close.
type MemoryStore struct {
	now func() time.Time

	mu        sync.Mutex
	logs      map[string]*hitLog
	lastSweep time.Time
}

// hitLog is the sliding log of one key.
type hitLog struct {
	hits     []int64 // unix µs, ascending
	periodUS int64   // the period last used with this key, for sweeping
}

// NewMemoryStore returns an empty MemoryStore reading time from now,
// or from time.Now when now is nil.
func NewMemoryStore(now func() time.Time) *MemoryStore {
	if now == nil {
		now = time.Now
	}
	return &MemoryStore{now: now, logs: make(map[string]*hitLog)}
}

// Get records one hit for key unless the window already holds rate.Limit
// hits; a rejected call records nothing.
func (s *MemoryStore) Get(ctx context.Context, key string, rate limiter.Rate) (limiter.Context, error) {
	return s.context(ctx, opGet, key, rate, 0)
}

// Peek reports the state of key's window without recording a hit.
func (s *MemoryStore) Peek(ctx context.Context, key string, rate limiter.Rate) (limiter.Context, error) {
	return s.context(ctx, opPeek, key, rate, 0)
}

// Increment records count hits for key whatever the limit, and reports
// Reached when the window now holds at least rate.Limit hits.
func (s *MemoryStore) Increment(ctx context.Context, key string, count int64, rate limiter.Rate) (limiter.Context, error) {
	return s.context(ctx, opIncr, key, rate, count)
}

// Reset forgets every hit of key.
func (s *MemoryStore) Reset(ctx context.Context, key string, rate limiter.Rate) (limiter.Context, error) {
	return s.context(ctx, opReset, key, rate, 0)
}

// context runs one operation and converts its state for ulule.
func (s *MemoryStore) context(ctx context.Context, o op, key string, rate limiter.Rate, count int64) (limiter.Context, error) {
	st, err := s.state(ctx, o, key, rate, count)
	if err != nil {
		return limiter.Context{}, err
	}
	periodUS, _ := periodMicros(rate) // checked by state
	return st.toContext(rate.Limit, periodUS), nil
}

// state runs one operation on key's log: it prunes the log, records the
// hits the operation adds given the count left in the window and reports
// the resulting state.
func (s *MemoryStore) state(_ context.Context, o op, key string, rate limiter.Rate, count int64) (windowState, error) {
	periodUS, err := periodMicros(rate)
	if err != nil {
		return windowState{}, err
	}
	if count < 0 {
		return windowState{}, fmt.Errorf("ratelimit: increment by %d: count must not be negative", count)
	}
	s.mu.Lock()
	defer s.mu.Unlock()

	now := s.now()
	s.sweep(now)
	nowUS := now.UnixMicro()
	if o == opReset {
		delete(s.logs, key)
		return windowState{oldestUS: -1, freeUS: -1, nowUS: nowUS}, nil
	}

	entry := s.logs[key]
	if entry == nil {
		entry = &hitLog{}
	}
	entry.periodUS = periodUS
	entry.prune(nowUS - periodUS)

	n := int64(len(entry.hits))
	var add int64
	var reached bool
	switch o {
	case opGet:
		if n < rate.Limit {
			add = 1
		} else {
			reached = true
		}
	case opPeek:
		reached = n >= rate.Limit
	case opIncr:
		add, reached = count, n+count >= rate.Limit
	default:
		return windowState{}, fmt.Errorf("ratelimit: unknown operation %q", o)
	}
	entry.record(nowUS, add)

	if len(entry.hits) == 0 {
		delete(s.logs, key)
	} else {
		s.logs[key] = entry
	}
	n = int64(len(entry.hits))
	state := windowState{count: n, oldestUS: -1, freeUS: -1, nowUS: nowUS, reached: reached}
	if n > 0 {
		state.oldestUS = entry.hits[0]
	}
	if i := freeIndex(n, rate.Limit); i >= 0 {
		state.freeUS = entry.hits[i]
	}
	return state, nil
}

// sweep drops keys whose hits have all left their window, at most once per
// memorySweepInterval. The caller holds s.mu.
func (s *MemoryStore) sweep(now time.Time) {
	if now.Sub(s.lastSweep) < memorySweepInterval {
		return
	}
	s.lastSweep = now
	nowUS := now.UnixMicro()
	for key, entry := range s.logs {
		if len(entry.hits) == 0 || entry.hits[len(entry.hits)-1] <= nowUS-entry.periodUS {
			delete(s.logs, key)
		}
	}
}

// keyCount returns how many keys the store holds; tests use it to check sweeping.
func (s *MemoryStore) keyCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.logs)
}

// prune removes the hits at or before cutoff (unix µs).
func (l *hitLog) prune(cutoffUS int64) {
	i := sort.Search(len(l.hits), func(i int) bool { return l.hits[i] > cutoffUS })
	l.hits = l.hits[i:] // the dropped prefix is freed when append next grows the slice
}

// record adds n hits at nowUS, keeping the log sorted even if the clock
// stepped backwards.
func (l *hitLog) record(nowUS, n int64) {
	if n <= 0 {
		return
	}
	at := sort.Search(len(l.hits), func(i int) bool { return l.hits[i] > nowUS })
	if at == len(l.hits) {
		for range n {
			l.hits = append(l.hits, nowUS)
		}
		return
	}
	l.hits = slices.Insert(l.hits, at, slices.Repeat([]int64{nowUS}, int(n))...)
}
