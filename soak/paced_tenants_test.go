//go:build slow

package soak

import (
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"
)

// pacedTenants runs conns connections of the isolation test's mixed load,
// spread over tenants, each paced to one request per tenantInterval, for
// span (with 30 s to spare) or until the returned stop is called; the
// hostile scenarios run it beside their attacker. seed varies the
// requests. A failed request is counted in failures, the first 10 are
// reported.
func pacedTenants(t *testing.T, n *node, tenants []*isoTenant, conns int, span time.Duration, seed uint64) (stop func(), failures *atomic.Int64) {
	var stopped atomic.Bool
	failures = new(atomic.Int64)
	maxSteps := int(span/tenantInterval) + 10
	loadEnd := time.Now().Add(span + 30*time.Second)
	stop = startLoad(conns, &stopped, func(w int) {
		it := tenants[w%len(tenants)]
		rnd := rand.New(rand.NewPCG(uint64(w), seed))
		for i := 0; i < maxSteps && !stopped.Load() && time.Now().Before(loadEnd); i++ {
			began := time.Now()
			if msg := isoStep(n, it, nil, rnd); msg != "" {
				if failures.Add(1) <= 10 {
					t.Errorf("tenant %s: %s", it.slug, msg)
				}
			}
			time.Sleep(tenantInterval - time.Since(began))
		}
	})
	return stop, failures
}
