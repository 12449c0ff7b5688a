//go:build slow

package handlers

import (
	"crypto/rand"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestWrongKeyTimingThroughRouter is tenant's timing test through the
// whole chain: each guess comes from its own address, so none is blocked.
func TestWrongKeyTimingThroughRouter(t *testing.T) {
	if testing.Short() {
		t.Skip("timing sample")
	}
	h := newHarness(t, harnessOptions{})
	key := h.createTenant("acme")
	raw, err := h.server.PublicRouter()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	wrong := func(shared int) string {
		b := []byte(unregisteredKey(t))
		copy(b, key[:shared])
		if b[shared] == key[shared] {
			b[shared] ^= 1 // '-'/'_' and letters stay printable
		}
		return string(b)
	}
	sample := func(rounds int) (far, near time.Duration) {
		var farTimes, nearTimes []time.Duration
		coin := make([]byte, rounds)
		_, _ = rand.Read(coin)
		for i := range rounds {
			for j := range 2 {
				isNear := (coin[i]&1 == 1) == (j == 0)
				k := wrong(0)
				if isNear {
					k = wrong(31)
				}
				n++
				req := httptest.NewRequest(http.MethodGet, "/papi/ping", nil)
				req.Host = "acme.learngate.localhost"
				req.RemoteAddr = fmt.Sprintf("10.%d.%d.%d:1", n>>16&255, n>>8&255, n&255)
				req.Header.Set("Authorization", k)
				w := httptest.NewRecorder()
				start := time.Now()
				raw.ServeHTTP(w, req)
				d := time.Since(start)
				if w.Code != http.StatusUnauthorized {
					t.Fatalf("wrong key: status %d %s", w.Code, w.Body.String())
				}
				if isNear {
					nearTimes = append(nearTimes, d)
				} else {
					farTimes = append(farTimes, d)
				}
			}
		}
		return medianOf(farTimes), medianOf(nearTimes)
	}
	sample(50)
	far, near := sample(300)
	t.Logf("router: median of a wrong key sharing 0 characters %v, sharing 31 %v", far, near)
	lo, hi := min(far, near), max(far, near)
	if float64(hi) > 1.5*float64(lo) {
		t.Fatalf("medians %v (0 shared) and %v (31 shared) differ by more than 1.5x", far, near)
	}
}
