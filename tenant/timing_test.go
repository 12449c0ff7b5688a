package tenant

import (
	"context"
	"crypto/rand"
	"sort"
	"testing"
	"time"

	"learngate"
)

// Timing of a wrong key (docs/reliability.md, "Brute force"). Authenticate
// never compares key text: it hashes the key with SHA-256, looks the hash
// up (the cache's map, else the api_keys index on key_hash) and compares
// hashes with subtle.ConstantTimeCompare. How much of a guess matches a
// real key therefore cannot change what it costs. These tests check that
// from the outside: wrong keys sharing 31 leading characters with a real
// key take as long, in the median, as wrong keys sharing none.

// keyAlphabet is the base64url alphabet of key text.
const keyAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// wrongKey returns a key of real's length whose first shared characters
// are real's and whose next character differs from real's.
func wrongKey(tb testing.TB, real string, shared int) string {
	tb.Helper()
	b := make([]byte, len(real))
	if _, err := rand.Read(b); err != nil {
		tb.Fatal(err)
	}
	for i := range b {
		b[i] = keyAlphabet[int(b[i])%len(keyAlphabet)]
	}
	copy(b, real[:shared])
	if b[shared] == real[shared] {
		b[shared] = keyAlphabet[(indexOf(keyAlphabet, real[shared])+1)%len(keyAlphabet)]
	}
	return string(b)
}

func indexOf(s string, c byte) int {
	for i := range len(s) {
		if s[i] == c {
			return i
		}
	}
	return 0
}

// medianGap samples check on far and near keys, interleaved in random
// order so that load on the machine hits both alike, and returns both
// medians.
func medianGap(tb testing.TB, samples int, far, near func() string, check func(key string)) (time.Duration, time.Duration) {
	tb.Helper()
	var farTimes, nearTimes []time.Duration
	coin := make([]byte, samples)
	if _, err := rand.Read(coin); err != nil {
		tb.Fatal(err)
	}
	for i := range samples {
		for j, nearFirst := 0, coin[i]&1 == 1; j < 2; j++ {
			isNear := nearFirst == (j == 0)
			key := far()
			if isNear {
				key = near()
			}
			start := time.Now()
			check(key)
			d := time.Since(start)
			if isNear {
				nearTimes = append(nearTimes, d)
			} else {
				farTimes = append(farTimes, d)
			}
		}
	}
	return median(farTimes), median(nearTimes)
}

func median(ds []time.Duration) time.Duration {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}

// assertSimilar fails unless the two medians are within a factor of
// tolerance of each other: generous, as the machine is shared, yet far
// below what a check doing more work for a matching prefix (a lookup by
// the key's stored prefix, a byte-by-byte compare of a longer secret, a
// password hash of the candidates) would cost.
func assertSimilar(tb testing.TB, what string, far, near time.Duration, tolerance float64) {
	tb.Helper()
	tb.Logf("%s: median of a wrong key sharing 0 characters %v, sharing 31 %v", what, far, near)
	lo, hi := min(far, near), max(far, near)
	if float64(hi) > tolerance*float64(lo) {
		tb.Fatalf("%s: medians %v (0 shared) and %v (31 shared) differ by more than %.1fx", what, far, near, tolerance)
	}
}

func TestWrongKeyTimingDoesNotDependOnMatchingPrefix(t *testing.T) {
	if testing.Short() {
		t.Skip("timing sample")
	}
	ctx := context.Background()
	r, _, _ := newTestRegistry(t, Options{})
	_, key := mustCreate(t, r, NewTenantInput{Slug: "acme"})
	tn := mustResolve(t, r, "acme.learngate.localhost")
	check := func(k string) {
		if err := r.Authenticate(ctx, tn, k); !learngate.IsCode(err, learngate.Unauthorized) {
			t.Fatalf("Authenticate(wrong key) = %v, want Unauthorized", err)
		}
	}
	far := func() string { return wrongKey(t, key, 0) }
	near := func() string { return wrongKey(t, key, 31) }
	medianGap(t, 50, far, near, check) // warm the pool and the plan
	f, n := medianGap(t, 400, far, near, check)
	assertSimilar(t, "Registry.Authenticate", f, n, 1.5)
}

func TestWrongKeysNeverMatch(t *testing.T) {
	ctx := context.Background()
	r, _, _ := newTestRegistry(t, Options{})
	_, key := mustCreate(t, r, NewTenantInput{Slug: "acme"})
	tn := mustResolve(t, r, "acme.learngate.localhost")
	// Every length of shared prefix, up to one character short of the key.
	for shared := 0; shared < len(key); shared++ {
		if err := r.Authenticate(ctx, tn, wrongKey(t, key, shared)); !learngate.IsCode(err, learngate.Unauthorized) {
			t.Fatalf("a key sharing %d leading characters: %v, want Unauthorized", shared, err)
		}
	}
	if err := r.Authenticate(ctx, tn, key); err != nil {
		t.Fatalf("the key itself: %v", err)
	}
}
