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
func (s *MemoryStore) Get(_ context.Context, key string, rate limiter.Rate) (limiter.Context, error) {
	return s.apply(key, rate, func(n int64) (int64, bool) {
		if n < rate.Limit {
			return 1, false
		}
		return 0, true
	})
}

// Peek reports the state of key's window without recording a hit.
func (s *MemoryStore) Peek(_ context.Context, key string, rate limiter.Rate) (limiter.Context, error) {
	return s.apply(key, rate, func(n int64) (int64, bool) {
		return 0, n >= rate.Limit
	})
}

// Increment records count hits for key whatever the limit, and reports
// Reached when the window now holds at least rate.Limit hits.
func (s *MemoryStore) Increment(_ context.Context, key string, count int64, rate limiter.Rate) (limiter.Context, error) {
	if count < 0 {
		return limiter.Context{}, fmt.Errorf("ratelimit: increment by %d: count must not be negative", count)
	}
	return s.apply(key, rate, func(n int64) (int64, bool) {
		return count, n+count >= rate.Limit
	})
}

// Reset forgets every hit of key.
func (s *MemoryStore) Reset(_ context.Context, key string, rate limiter.Rate) (limiter.Context, error) {
	periodUS, err := periodMicros(rate)
	if err != nil {
		return limiter.Context{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.logs, key)
	state := windowState{oldestUS: -1, nowUS: s.now().UnixMicro()}
	return state.toContext(rate.Limit, periodUS), nil
}

// apply prunes key's log, asks decide how many hits to add given the count
// left in the window, records them and reports the resulting state.
func (s *MemoryStore) apply(key string, rate limiter.Rate, decide func(n int64) (add int64, reached bool)) (limiter.Context, error) {
	periodUS, err := periodMicros(rate)
	if err != nil {
		return limiter.Context{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()

	now := s.now()
	s.sweep(now)
	nowUS := now.UnixMicro()

	entry := s.logs[key]
	if entry == nil {
		entry = &hitLog{}
	}
	entry.periodUS = periodUS
	entry.prune(nowUS - periodUS)

	add, reached := decide(int64(len(entry.hits)))
	entry.record(nowUS, add)

	if len(entry.hits) == 0 {
		delete(s.logs, key)
	} else {
		s.logs[key] = entry
	}
	state := windowState{count: int64(len(entry.hits)), oldestUS: -1, nowUS: nowUS, reached: reached}
	if len(entry.hits) > 0 {
		state.oldestUS = entry.hits[0]
	}
	return state.toContext(rate.Limit, periodUS), nil
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
