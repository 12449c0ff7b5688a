package ratelimit

import (
	"testing"
	"time"
)

func TestBlocklist(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	b := NewBlocklist(func() time.Time { return now })
	if blocked, _ := b.Blocked("192.0.2.1"); blocked {
		t.Fatal("fresh blocklist blocks")
	}
	b.Block("192.0.2.1", now.Add(1500*time.Millisecond))
	if blocked, secs := b.Blocked("192.0.2.1"); !blocked || secs != 2 {
		t.Fatalf("Blocked = %v, %d; want true, 2", blocked, secs)
	}
	if blocked, _ := b.Blocked("192.0.2.2"); blocked {
		t.Fatal("another key is blocked")
	}
	now = now.Add(1400 * time.Millisecond)
	if blocked, secs := b.Blocked("192.0.2.1"); !blocked || secs != 1 {
		t.Fatalf("Blocked near the end = %v, %d; want true, 1", blocked, secs)
	}
	now = now.Add(100 * time.Millisecond)
	if blocked, _ := b.Blocked("192.0.2.1"); blocked {
		t.Fatal("still blocked after the block ended")
	}
}
