package main

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestRedisReady: /readyz shows Redis as "none" without LEARNGATE_REDIS_URL
// (no check) and as down when it does not answer; it never fails readiness.
func TestRedisReady(t *testing.T) {
	if (&app{}).redisReady() != nil {
		t.Fatal("a check of Redis without LEARNGATE_REDIS_URL")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	client := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	t.Cleanup(func() { client.Close() })
	check := (&app{redis: client}).redisReady()
	if check == nil {
		t.Fatal("no check of a configured Redis")
	}
	if err := check(context.Background()); err == nil {
		t.Fatal("a Redis where nothing listens answers")
	}
}
