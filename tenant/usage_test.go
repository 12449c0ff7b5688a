package tenant

import (
	"context"
	"testing"
	"time"

	"learngate"
)

func TestLastUsedWrittenAtMostOncePerMinute(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t0 := time.Date(2030, 1, 2, 3, 4, 5, 123456000, time.UTC)
	clock := &fakeClock{now: t0}
	r, _, _ := newTestRegistry(t, Options{Now: clock.Now})
	_, key := mustCreate(t, r, NewTenantInput{Slug: "acme"})
	_, key2, err := r.CreateKey(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	tn := mustResolve(t, r, "acme.learngate.localhost")

	// lastUsed returns the stored last_used_at of the keys, oldest key first.
	lastUsed := func() []*time.Time {
		t.Helper()
		keys, err := r.ListKeys(ctx, "acme")
		if err != nil || len(keys) != 2 {
			t.Fatalf("ListKeys = %v, %v", keys, err)
		}
		return []*time.Time{keys[0].LastUsedAt, keys[1].LastUsedAt}
	}
	use := func(key string, times int) {
		t.Helper()
		for range times {
			if err := r.Authenticate(ctx, tn, key); err != nil {
				t.Fatalf("Authenticate: %v", err)
			}
		}
	}
	// expect checks the stored times; nil means never used.
	expect := func(step string, want ...*time.Time) {
		t.Helper()
		r.FlushUsage(ctx)
		got := lastUsed()
		for i := range want {
			switch {
			case want[i] == nil && got[i] == nil:
			case want[i] == nil || got[i] == nil || !got[i].Equal(*want[i]):
				t.Fatalf("%s: key %d last_used_at = %v, want %v", step, i+1, fmtTime(got[i]), fmtTime(want[i]))
			}
		}
	}

	expect("before any use", nil, nil)

	use(key, 100)
	expect("after 100 uses at t0", &t0, nil)

	t30 := t0.Add(30 * time.Second)
	clock.Set(t30)
	use(key, 50)
	use(key2, 1) // another key's first use is written regardless of the first key's
	expect("30 s later", &t0, &t30)

	clock.Set(t0.Add(time.Minute - time.Millisecond))
	use(key, 50)
	expect("just under a minute later", &t0, &t30)

	t60 := t0.Add(time.Minute)
	clock.Set(t60)
	use(key, 50)
	use(key2, 50) // 30 s after its last write: not yet
	expect("a minute later", &t60, &t30)

	t95 := t0.Add(95 * time.Second)
	clock.Set(t95)
	use(key2, 1)
	expect("a minute after key 2's write", &t60, &t95)

	// Refused requests are not uses.
	clock.Set(t0.Add(10 * time.Minute))
	if err := r.Authenticate(ctx, tn, key+"x"); !learngate.IsCode(err, learngate.Unauthorized) {
		t.Fatalf("Authenticate with a wrong key: %v", err)
	}
	expect("after a refused request", &t60, &t95)
}

func fmtTime(t *time.Time) string {
	if t == nil {
		return "never"
	}
	return t.UTC().Format(time.RFC3339Nano)
}
