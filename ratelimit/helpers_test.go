package ratelimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// testRedisURL returns the Redis the tests share.
func testRedisURL() string {
	if u := os.Getenv("LEARNGATE_TEST_REDIS_URL"); u != "" {
		return u
	}
	return "redis://127.0.0.1:6379/0"
}

// mustRedisClient returns a client on the shared test Redis, closed at the
// end of the test. The test fails if Redis does not answer.
func mustRedisClient(tb testing.TB) *redis.Client {
	tb.Helper()
	opts, err := redis.ParseURL(testRedisURL())
	if err != nil {
		tb.Fatalf("parse LEARNGATE_TEST_REDIS_URL: %v", err)
	}
	client := redis.NewClient(opts)
	tb.Cleanup(func() { _ = client.Close() })
	if err := client.Ping(context.Background()).Err(); err != nil {
		tb.Fatalf("test Redis at %s is not reachable: %v", testRedisURL(), err)
	}
	return client
}

// randomPrefix returns a key prefix of its own for one test and deletes the
// keys under it when the test ends.
func randomPrefix(tb testing.TB, client *redis.Client) string {
	tb.Helper()
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	prefix := "learngate:test:rl:" + hex.EncodeToString(b) + ":"
	tb.Cleanup(func() {
		ctx := context.Background()
		iter := client.Scan(ctx, 0, prefix+"*", 100).Iterator()
		for iter.Next(ctx) {
			client.Del(ctx, iter.Val())
		}
	})
	return prefix
}

// fakeClock is a settable clock for MemoryStore and Limiter.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

// newFakeClock returns a clock set to a fixed instant that is not on a whole second.
func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2025, 3, 1, 12, 0, 0, 250_000_000, time.UTC)}
}

// Now returns the clock's time.
func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
