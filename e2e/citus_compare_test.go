//go:build e2e_citus

package e2e

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

// compare is property 6: the same short bounded load against a tenant of
// the plain-PostgreSQL node and a tenant of Citus serve node 1, one after
// the other in this run: GET /papi/users?per_page=100 (4 clients, 3 s) and
// a batch save of 20 new users (2 clients, 3 s). Figures only, no timed
// assertion; every request must answer 200.
func (r *citusRun) compare(t *testing.T, p *citusProp) {
	topo := r.topo
	made := time.Now()
	plain := topo.createTenant(t, topo.plainOps, "cmp")
	plainMade := time.Since(made)
	made = time.Now()
	citus := topo.createTenant(t, topo.ops[0], "cmp")
	p.figure("POST /ops/v1/tenants: plain %s, Citus %s", ms(plainMade), ms(time.Since(made)))
	sides := []struct {
		name string
		base string
		tn   tenant
	}{{"plain", topo.plain, plain}, {"Citus", topo.nodes[0], citus}}
	// The same 200 users on each side.
	for _, s := range sides {
		for b := 0; b < 2; b++ {
			var rows []map[string]any
			for k := 0; k < 100; k++ {
				rows = append(rows, newUser(fmt.Sprintf("seed-%d-%d", b, k)))
			}
			if a := topo.api(s.base, http.MethodPost, s.tn.slug, "/papi/users/batch_save", s.tn.key, map[string]any{"people": rows}, nil); a.status != 200 {
				t.Fatalf("seed %s: %s", s.name, a)
			}
		}
	}
	type result struct {
		p50, p99 time.Duration
		rps      float64
		n, bad   int
	}
	measure := func(clients int, f func(w, i int) answer) result {
		start := time.Now()
		ops := load(clients, 3*time.Second, 100000, func(w, i int) op { return op{answer: f(w, i)} })
		elapsed := time.Since(start)
		var ds []time.Duration
		res := result{n: len(ops)}
		for _, o := range ops {
			if o.err != nil || o.status != 200 {
				res.bad++
				if res.bad <= 3 {
					t.Errorf("comparison load: %s", o.answer)
				}
			}
			ds = append(ds, o.took)
		}
		res.p50, res.p99 = quantile(ds, 0.50), quantile(ds, 0.99)
		res.rps = float64(len(ops)) / elapsed.Seconds()
		return res
	}
	for _, lw := range []struct {
		what    string
		clients int
		f       func(base string, tn tenant, seq string) func(w, i int) answer
	}{
		{"GET /papi/users?per_page=100", 4, func(base string, tn tenant, _ string) func(w, i int) answer {
			return func(int, int) answer {
				return topo.api(base, http.MethodGet, tn.slug, "/papi/users?per_page=100", tn.key, nil, nil)
			}
		}},
		{"POST /papi/users/batch_save (20 new users)", 2, func(base string, tn tenant, seq string) func(w, i int) answer {
			return func(w, i int) answer {
				var rows []map[string]any
				for k := 0; k < 20; k++ {
					rows = append(rows, newUser(fmt.Sprintf("%s-%d-%d-%d", seq, w, i, k)))
				}
				return topo.api(base, http.MethodPost, tn.slug, "/papi/users/batch_save", tn.key, map[string]any{"people": rows}, nil)
			}
		}},
	} {
		var res [2]result
		for k, s := range sides {
			res[k] = measure(lw.clients, lw.f(s.base, s.tn, "cmp"+s.name))
		}
		p.figure("%s, %d clients 3 s: plain p50 %s p99 %s %.0f req/s; Citus p50 %s p99 %s %.0f req/s (%.2f× the plain rate)",
			lw.what, lw.clients, ms(res[0].p50), ms(res[0].p99), res[0].rps, ms(res[1].p50), ms(res[1].p99), res[1].rps, res[1].rps/res[0].rps)
		if res[0].bad+res[1].bad > 0 {
			t.Errorf("%s: %d failed on plain, %d on Citus", lw.what, res[0].bad, res[1].bad)
		}
	}
}
