package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/ulule/limiter/v3"
)

// redisBreakerPause is how long a RedisStore stops calling Redis after an error.
const redisBreakerPause = time.Second

// ErrCircuitOpen is returned by RedisStore, without calling Redis, during the
// pause that follows a Redis error.
var ErrCircuitOpen = errors.New("ratelimit: redis circuit open")

// RedisStore is a limiter.Store keeping an exact sliding log of hits per key
// in Redis, shared by every application instance that uses the same Redis.
//
// Each call runs one Lua script on one key (prefix+key), so the store works
// on Redis Cluster; hit times come from the Redis clock.
//
// Circuit breaker: when a call fails (other than by the caller's context
// ending), the store skips Redis for one second and returns ErrCircuitOpen at
// once, so that checks do not wait on a dead server; Limiter turns that into
// a fail-open. After the pause one call probes Redis (the others keep getting
// ErrCircuitOpen until it answers); success closes the breaker, failure opens
// it for another second.
type RedisStore struct {
	client redis.UniversalClient
	prefix string
	script *redis.Script

	// openUntil is the unix nanosecond at which the breaker lets a probe
	// through, or 0 when the breaker is closed.
	openUntil atomic.Int64
}

// NewRedisStore returns a RedisStore using client, whose timeouts the caller
// keeps short, and prefixing every key with prefix (e.g. "learngate:rl:").
func NewRedisStore(client redis.UniversalClient, prefix string) *RedisStore {
	return &RedisStore{client: client, prefix: prefix, script: newSlidingLogScript()}
}

// Get records one hit for key unless the window already holds rate.Limit
// hits; a rejected call records nothing.
func (s *RedisStore) Get(ctx context.Context, key string, rate limiter.Rate) (limiter.Context, error) {
	return s.context(ctx, opGet, key, rate, 0)
}

// Peek reports the state of key's window without recording a hit.
func (s *RedisStore) Peek(ctx context.Context, key string, rate limiter.Rate) (limiter.Context, error) {
	return s.context(ctx, opPeek, key, rate, 0)
}

// Increment records count hits for key whatever the limit, and reports
// Reached when the window now holds at least rate.Limit hits.
func (s *RedisStore) Increment(ctx context.Context, key string, count int64, rate limiter.Rate) (limiter.Context, error) {
	return s.context(ctx, opIncr, key, rate, count)
}

// Reset deletes key.
func (s *RedisStore) Reset(ctx context.Context, key string, rate limiter.Rate) (limiter.Context, error) {
	return s.context(ctx, opReset, key, rate, 0)
}

// context runs one operation and converts its state for ulule.
func (s *RedisStore) context(ctx context.Context, o op, key string, rate limiter.Rate, count int64) (limiter.Context, error) {
	st, err := s.state(ctx, o, key, rate, count)
	if err != nil {
		return limiter.Context{}, err
	}
	periodUS, _ := periodMicros(rate) // checked by state
	return st.toContext(rate.Limit, periodUS), nil
}

// state executes the script for one operation behind the circuit breaker.
func (s *RedisStore) state(ctx context.Context, o op, key string, rate limiter.Rate, count int64) (windowState, error) {
	periodUS, err := periodMicros(rate)
	if err != nil {
		return windowState{}, err
	}
	if count < 0 {
		return windowState{}, fmt.Errorf("ratelimit: increment by %d: count must not be negative", count)
	}
	if !s.allowCall() {
		return windowState{}, ErrCircuitOpen
	}
	args := []any{string(o), strconv.FormatInt(periodUS, 10), strconv.FormatInt(rate.Limit, 10), strconv.FormatInt(count, 10)}
	vals, err := s.script.Run(ctx, s.client, []string{s.prefix + key}, args...).Int64Slice()
	if err == nil && len(vals) != 5 {
		err = fmt.Errorf("script returned %d values, want 5", len(vals))
	}
	if err != nil {
		if ctx.Err() == nil {
			s.openUntil.Store(time.Now().Add(redisBreakerPause).UnixNano())
		}
		return windowState{}, fmt.Errorf("ratelimit: redis %s %q: %w", o, key, err)
	}
	s.openUntil.Store(0)
	return windowState{count: vals[0], oldestUS: vals[1], nowUS: vals[2], reached: vals[3] == 1, freeUS: vals[4]}, nil
}

// allowCall reports whether the breaker lets this call reach Redis. Once the
// pause is over, exactly one caller wins the right to probe.
func (s *RedisStore) allowCall() bool {
	until := s.openUntil.Load()
	if until == 0 {
		return true
	}
	now := time.Now().UnixNano()
	if now < until {
		return false
	}
	return s.openUntil.CompareAndSwap(until, now+int64(redisBreakerPause))
}
