package main

import (
	"context"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
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

	client, ok := a.redis.(*redis.Client)
	if !ok {
		t.Fatalf("client %T, want *redis.Client for a redis:// URL", a.redis)
	}
	opts := client.Options()
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

// TestRedisClusterClientFailsFast checks the client of the cluster form:
// the same short timeouts and no retries, and a call to a cluster that is
// not there fails within one round of refused dials.
func TestRedisClusterClientFailsFast(t *testing.T) {
	var ports []string
	for range 2 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("find a free port: %v", err)
		}
		ports = append(ports, strconv.Itoa(l.Addr().(*net.TCPAddr).Port))
		l.Close()
	}
	c, err := newRedisClient("redis+cluster://127.0.0.1:" + ports[0] + ",127.0.0.1:" + ports[1])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cluster, ok := c.(*redis.ClusterClient)
	if !ok {
		t.Fatalf("client %T, want *redis.ClusterClient", c)
	}
	opts := cluster.Options()
	if opts.DialerRetries != 1 || opts.MaxRetries != -1 || opts.MaxRedirects != 2 {
		t.Errorf("DialerRetries = %d, MaxRetries = %d, MaxRedirects = %d; want 1, -1 (none) and 2",
			opts.DialerRetries, opts.MaxRetries, opts.MaxRedirects)
	}
	if want := []string{"127.0.0.1:" + ports[0], "127.0.0.1:" + ports[1]}; len(opts.Addrs) != 2 || opts.Addrs[0] != want[0] || opts.Addrs[1] != want[1] {
		t.Errorf("Addrs = %v, want %v", opts.Addrs, want)
	}
	for name, d := range map[string]time.Duration{"dial": opts.DialTimeout, "read": opts.ReadTimeout,
		"write": opts.WriteTimeout, "pool": opts.PoolTimeout} {
		if d <= 0 || d > 250*time.Millisecond {
			t.Errorf("%s timeout = %v, want (0, 250ms]", name, d)
		}
	}
	start := time.Now()
	if err := pingRedis(context.Background(), c); err == nil {
		t.Fatal("ping of a stopped cluster succeeded")
	}
	if took := time.Since(start); took >= time.Second {
		t.Errorf("ping of a stopped cluster took %v, want well under a second", took)
	}
}
