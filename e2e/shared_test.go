//go:build e2e

package e2e

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"
)

// sharedState is property 3: one rate-limit budget per tenant across both
// nodes, and ops changes honoured by both nodes within 1 s.
func (r *e2eRun) sharedState(t *testing.T, figures *[]string) {
	topo := r.topo
	held := 0
	for _, b := range r.budgets {
		host := topo.host(b.slug)
		ok := true
		for i := 0; i < budgetLimit; i++ {
			if a := topo.node(i%2, http.MethodGet, host, "/ping", b.key); a.status != 200 {
				t.Errorf("%s request %d of %d on node %d: %s", b.slug, i+1, budgetLimit, i%2+1, a)
				ok = false
			}
		}
		for n := 0; n < 2; n++ {
			if a := topo.node(n, http.MethodGet, host, "/ping", b.key); a.status != http.StatusTooManyRequests {
				t.Errorf("%s request %d on node %d: %s, want 429", b.slug, budgetLimit+1+n, n+1, a)
				ok = false
			}
		}
		if ok {
			held++
		}
	}
	r.budgetsHeld = held
	*figures = append(*figures, fmt.Sprintf("limit %d over 2 nodes held for %d of %d tenants (then 429 on each node)",
		budgetLimit, held, len(r.budgets)))

	d := r.delta
	host := topo.host(d.slug)
	// A second key and a custom domain, both seen by both nodes first (warm caches).
	a := topo.opsCall(0, http.MethodPost, "/ops/v1/tenants/delta/api_keys", nil)
	if a.status != http.StatusCreated {
		t.Fatalf("create key: %s", a)
	}
	var key2 struct {
		ID     int64  `json:"id"`
		APIKey string `json:"api_key"`
	}
	a.decode(t, &key2)
	domain := "learn.delta-e2e.example"
	if a := topo.opsCall(0, http.MethodPost, "/ops/v1/tenants/delta/domains", map[string]string{"domain": domain}); a.status != http.StatusCreated {
		t.Fatalf("add domain: %s", a)
	}
	waitBoth(t, "the new key and domain", time.Now(), func(n int) bool {
		return topo.node(n, http.MethodGet, host, "/ping", key2.APIKey).status == 200 &&
			topo.node(n, http.MethodGet, domain, "/ping", d.key).status == 200
	})

	var worst time.Duration
	measure := func(what string, change func() answer, wantStatus int, done func(n int) bool) {
		start := time.Now()
		if a := change(); a.status != wantStatus {
			t.Fatalf("%s: %s", what, a)
		}
		delay := waitBoth(t, what, start, done)
		worst = max(worst, delay)
		*figures = append(*figures, what+" "+ms(delay))
		if delay > time.Second {
			t.Errorf("%s honoured by both nodes after %v, over 1 s", what, delay)
		}
	}
	measure("rate-limit change", func() answer {
		return topo.opsCall(0, http.MethodPatch, "/ops/v1/tenants/delta", map[string]any{"rate_limit_per_minute": 777})
	}, 200, func(n int) bool {
		return topo.node(n, http.MethodGet, host, "/ping", d.key).header.Get("X-RateLimit-Limit") == "777"
	})
	measure("key revocation", func() answer {
		return topo.opsCall(1, http.MethodDelete, "/ops/v1/tenants/delta/api_keys/"+strconv.FormatInt(key2.ID, 10), nil)
	}, http.StatusNoContent, func(n int) bool {
		return topo.node(n, http.MethodGet, host, "/ping", key2.APIKey).status == http.StatusUnauthorized
	})
	measure("domain removal", func() answer {
		return topo.opsCall(0, http.MethodDelete, "/ops/v1/tenants/delta/domains/"+domain, nil)
	}, http.StatusNoContent, func(n int) bool {
		a := topo.node(n, http.MethodGet, domain, "/ping", d.key)
		return a.status == http.StatusNotFound && string(a.body) == `{"error":"unknown organisation"}`
	})
	measure("suspend", func() answer {
		return topo.opsCall(1, http.MethodPatch, "/ops/v1/tenants/delta", map[string]any{"status": "suspended"})
	}, 200, func(n int) bool {
		return topo.node(n, http.MethodGet, host, "/ping", d.key).status == http.StatusUnauthorized
	})
	*figures = append(*figures, "slowest "+ms(worst))
}

// waitBoth polls both nodes, every 5 ms for at most 3 s, until done holds
// on each, and returns the time from start until it held on the later one.
func waitBoth(t *testing.T, what string, start time.Time, done func(n int) bool) time.Duration {
	t.Helper()
	var slowest time.Duration
	for n := 0; n < 2; n++ {
		ok := false
		for time.Since(start) < 3*time.Second {
			if done(n) {
				ok = true
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		if !ok {
			t.Errorf("%s: node %d did not honour it within 3 s", what, n+1)
			return time.Since(start)
		}
		slowest = max(slowest, time.Since(start))
	}
	return slowest
}
