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

func TestBlocklistProbe(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	b := NewBlocklist(func() time.Time { return now })
	if b.Probe("192.0.2.1", 3*time.Second) {
		t.Fatal("a key that is not blocked probes")
	}
	b.Block("192.0.2.1", now.Add(10*time.Second))
	if !b.Probe("192.0.2.1", 3*time.Second) {
		t.Fatal("first probe of a blocked key refused")
	}
	now = now.Add(3*time.Second - time.Nanosecond)
	if b.Probe("192.0.2.1", 3*time.Second) {
		t.Fatal("second probe within the interval allowed")
	}
	b.Block("192.0.2.1", now.Add(20*time.Second)) // a longer block keeps the probe interval
	if b.Probe("192.0.2.1", 3*time.Second) {
		t.Fatal("blocking again handed out a new probe")
	}
	now = now.Add(time.Nanosecond)
	if !b.Probe("192.0.2.1", 3*time.Second) {
		t.Fatal("no probe after the interval")
	}
	now = now.Add(30 * time.Second)
	if b.Probe("192.0.2.1", 3*time.Second) {
		t.Fatal("a key whose block ended probes")
	}
}

func TestBlocklistFailed(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	b := NewBlocklist(func() time.Time { return now })
	b.Fail("192.0.2.1", "k1") // not blocked: nothing to remember it on
	if b.Failed("192.0.2.1", "k1") {
		t.Fatal("a failure of a key that is not blocked is remembered")
	}
	b.Block("192.0.2.1", now.Add(10*time.Second))
	b.Fail("192.0.2.1", "k1")
	if !b.Failed("192.0.2.1", "k1") || b.Failed("192.0.2.1", "k2") || b.Failed("192.0.2.2", "k1") {
		t.Fatal("Failed does not answer for exactly the failure remembered")
	}
	for i := range maxFailed {
		b.Fail("192.0.2.1", "other"+string(rune('a'+i)))
	}
	if b.Failed("192.0.2.1", "k1") {
		t.Fatal("the set of failures grew beyond its bound")
	}
	now = now.Add(11 * time.Second)
	if blocked, _ := b.Blocked("192.0.2.1"); blocked || b.Failed("192.0.2.1", "othera") {
		t.Fatal("failures outlive the block")
	}
}
