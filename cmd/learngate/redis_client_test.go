package main

import (
	"context"
	"net"
	"strconv"
	"testing"
	"time"
)

// TestRedisClientFailsFast checks the Redis client serve builds: with Redis
// gone, a call fails after one refused dial, not after go-redis's default
// five dials 100 ms apart, which made requests wait over a second while
// the limiter failed open (R1 in docs/reliability.md).
func TestRedisClientFailsFast(t *testing.T) {
	cliEnv(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("find a free port: %v", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close() // nobody listens there now
	t.Setenv("LEARNGATE_REDIS_URL", "redis://127.0.0.1:"+strconv.Itoa(port)+"/0")
	a, err := openApp(context.Background())
	if err != nil {
		t.Fatalf("open app: %v", err)
	}
	defer a.close()

	opts := a.redis.Options()
	if opts.DialerRetries != 1 || opts.MaxRetries != 0 {
		t.Errorf("DialerRetries = %d, MaxRetries = %d; want 1 and 0", opts.DialerRetries, opts.MaxRetries)
	}
	for name, d := range map[string]time.Duration{"dial": opts.DialTimeout, "read": opts.ReadTimeout,
		"write": opts.WriteTimeout, "pool": opts.PoolTimeout} {
		if d <= 0 || d > 250*time.Millisecond {
			t.Errorf("%s timeout = %v, want (0, 250ms]", name, d)
		}
	}
	start := time.Now()
	if err := a.redis.Ping(context.Background()).Err(); err == nil {
		t.Fatal("ping of a stopped Redis succeeded")
	}
	// Five dials would sleep 4 × 100 ms between them.
	if took := time.Since(start); took >= 400*time.Millisecond {
		t.Errorf("ping of a stopped Redis took %v, want one refused dial", took)
	}
}
