package ratelimit

import (
	"learngate/store/storetest"

	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/ulule/limiter/v3"
)

func TestRedisStoreSharedLimitAcrossInstances(t *testing.T) {
	ctx := context.Background()
	first := mustRedisClient(t)
	second := mustRedisClient(t)
	prefix := randomPrefix(t, first)
	limiters := []*Limiter{
		New(NewRedisStore(first, prefix), Options{}),
		New(NewRedisStore(second, prefix), Options{}),
	}
	const limit, workers, callsEach = 50, 8, 20

	var allowed atomic.Int64
	var wg sync.WaitGroup
	for _, lim := range limiters {
		for range workers {
			wg.Go(func() {
				for range callsEach {
					res := lim.Allow(ctx, "tenant-42", limit)
					if res.FailedOpen {
						t.Errorf("failed open: %+v", res)
						return
					}
					if res.Allowed {
						allowed.Add(1)
					}
				}
			})
		}
	}
	wg.Wait()
	if got := allowed.Load(); got != limit {
		t.Fatalf("allowed %d requests across two instances, want exactly %d", got, limit)
	}
	n, err := first.ZCard(ctx, prefix+"tenant-42").Result()
	if err != nil {
		t.Fatalf("ZCARD: %v", err)
	}
	if n != limit {
		t.Fatalf("sorted set holds %d hits, want %d", n, limit)
	}
}

func TestRedisStoreKeyLayout(t *testing.T) {
	ctx := context.Background()
	client := mustRedisClient(t)
	prefix := randomPrefix(t, client)
	store := NewRedisStore(client, prefix)
	rate := limiter.Rate{Period: 2 * time.Second, Limit: 100}
	if _, err := store.Increment(ctx, "k", 7, rate); err != nil {
		t.Fatalf("Increment: %v", err)
	}
	key := prefix + "k"
	members, err := client.ZRangeWithScores(ctx, key, 0, -1).Result()
	if err != nil {
		t.Fatalf("ZRANGE: %v", err)
	}
	if len(members) != 7 {
		t.Fatalf("got %d members, want 7 unique ones in the same microsecond", len(members))
	}
	for _, m := range members {
		if !strings.Contains(m.Member.(string), ":") || m.Score < 1e15 {
			t.Fatalf("member %v score %v, want \"<now_us>:<seq>\" scored in µs", m.Member, m.Score)
		}
	}
	ttl, err := client.PTTL(ctx, key).Result()
	if err != nil {
		t.Fatalf("PTTL: %v", err)
	}
	if ttl <= 0 || ttl > rate.Period {
		t.Fatalf("PTTL = %s, want within (0, %s]", ttl, rate.Period)
	}
}

func TestRedisStoreFailsOpen(t *testing.T) {
	ctx := context.Background()
	server := storetest.StartRedisServer(t)
	client := redis.NewClient(&redis.Options{
		Addr:         server.Addr(),
		DialTimeout:  200 * time.Millisecond,
		ReadTimeout:  200 * time.Millisecond,
		WriteTimeout: 200 * time.Millisecond,
		MaxRetries:   -1,
	})
	t.Cleanup(func() { _ = client.Close() })

	var logs bytes.Buffer
	var failOpens atomic.Int64
	store := NewRedisStore(client, "learngate:rl:")
	lim := New(store, Options{
		Window:     time.Minute,
		Logger:     slog.New(slog.NewTextHandler(&logs, nil)),
		OnFailOpen: func() { failOpens.Add(1) },
	})
	const limit = 3

	mustResult(t, "redis up", lim.Allow(ctx, "k", limit), true, 2)

	server.Stop()
	const downChecks = 5
	for i := range downChecks {
		start := time.Now()
		res := lim.Allow(ctx, "k", limit)
		if took := time.Since(start); took > time.Second {
			t.Fatalf("check %d while Redis is down took %s, want < 1s", i, took)
		}
		if !res.Allowed || !res.FailedOpen || res.Limit != limit || res.Remaining != limit || res.RetryAfter != 0 {
			t.Fatalf("check %d while Redis is down = %+v, want allowed and failed open with the full quota", i, res)
		}
		if res.Reset < time.Now().Add(time.Minute).Unix() {
			t.Fatalf("fail-open Reset = %d, want now + window", res.Reset)
		}
	}
	if got := failOpens.Load(); got != downChecks {
		t.Fatalf("OnFailOpen called %d times, want %d", got, downChecks)
	}
	if lines := strings.Count(logs.String(), "\n"); lines != 1 {
		t.Fatalf("logged %d lines while failing, want 1:\n%s", lines, logs.String())
	}
	if _, err := store.Peek(ctx, "k", limiter.Rate{Period: time.Minute, Limit: limit}); !errors.Is(err, ErrCircuitOpen) {
		t.Fatalf("Peek right after a failure: err = %v, want ErrCircuitOpen", err)
	}

	server.Start()
	deadline := time.Now().Add(5 * time.Second)
	for lim.Blocked(ctx, "probe", limit).FailedOpen {
		if time.Now().After(deadline) {
			t.Fatal("still failing open 5s after Redis came back")
		}
		time.Sleep(100 * time.Millisecond)
	}
	for i := range int64(limit) {
		mustResult(t, "redis back", lim.Allow(ctx, "k", limit), true, limit-i-1)
	}
	mustResult(t, "limited again", lim.Allow(ctx, "k", limit), false, 0)
}
