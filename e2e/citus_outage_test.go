//go:build e2e_citus

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// workerKilled is property 5: worker2 is stopped the way a crash would
// (pg_ctl stop -m immediate); for 3 s the tenants on it answer 503 with
// Retry-After on both serve nodes, the tenants on worker1 keep answering
// 200 (reads and writes), and /readyz answers 200 naming worker2 in
// database_nodes_down. Then
// worker2 is started again and its tenants answer 200 again (within 30 s).
func (r *citusRun) workerKilled(t *testing.T, p *citusProp) {
	topo := r.topo
	up, down := topo.workers[0], topo.workers[1]
	var live, dead []tenant
	for _, tn := range r.tenants {
		switch r.node[tn.slug] {
		case up:
			live = append(live, tn)
		case down:
			dead = append(dead, tn)
		}
	}
	if len(live) == 0 || len(dead) == 0 {
		t.Fatalf("tenants on %s: %d, on %s: %d; want some on each", up, len(live), down, len(dead))
	}

	killed := time.Now()
	topo.cluster(t, "kill", "worker2")
	restarted := false
	restart := func() {
		if !restarted {
			restarted = true
			topo.cluster(t, "start", "worker2")
		}
	}
	defer restart() // whatever fails below, the worker comes back

	deadOK, deadBad, liveOK, liveBad, noRetryAfter := 0, 0, 0, 0, 0
	var firstDeadBad, firstLiveBad string
	var slowest time.Duration
	for seq := 0; time.Since(killed) < 3*time.Second; seq++ {
		for n := range topo.nodes {
			for _, tn := range dead {
				a := topo.papi(n, http.MethodGet, tn, "/users?per_page=5", nil)
				slowest = max(slowest, a.took)
				switch {
				case a.status == http.StatusServiceUnavailable && a.header.Get("Retry-After") != "":
					deadOK++
				default:
					if a.status == http.StatusServiceUnavailable {
						noRetryAfter++
					}
					deadBad++
					if firstDeadBad == "" {
						firstDeadBad = fmt.Sprintf("%s on node %d: %s", tn.slug, n+1, a)
					}
				}
			}
			for _, tn := range live {
				a := topo.papi(n, http.MethodGet, tn, "/users?per_page=5", nil)
				w := topo.papi(n, http.MethodPost, tn, "/users", newUser(fmt.Sprintf("out-%d-%d", seq, n)))
				for _, a := range []answer{a, w} {
					slowest = max(slowest, a.took)
					if a.status == 200 {
						liveOK++
						continue
					}
					liveBad++
					if firstLiveBad == "" {
						firstLiveBad = fmt.Sprintf("%s on node %d: %s", tn.slug, n+1, a)
					}
				}
			}
		}
	}
	if deadBad > 0 {
		t.Errorf("%d answers of %s's tenants were not 503 with Retry-After (%d 503s without it); first: %s", deadBad, down, noRetryAfter, firstDeadBad)
	}
	if liveBad > 0 {
		t.Errorf("%d answers of %s's tenants were not 200; first: %s", liveBad, up, firstLiveBad)
	}
	p.figure("%s down 3 s: its %d tenants %d × 503 + Retry-After, %d otherwise (first: %.80s)", down, len(dead), deadOK, deadBad, firstDeadBad)
	p.figure("%s's %d tenants %d × 200, %d otherwise; slowest answer %s", up, len(live), liveOK, liveBad, ms(slowest))

	named := 0
	for n := range topo.nodes {
		// The node stays ready (200: it serves every other tenant, and a
		// proxy must not take it out) and names the worker that is down.
		a := call(directClient, http.MethodGet, topo.nodes[n]+"/readyz", "", "", nil, nil)
		var body struct {
			Down []string `json:"database_nodes_down"`
		}
		if a.status == http.StatusOK && json.Unmarshal(a.body, &body) == nil && slices.Equal(body.Down, []string{down}) {
			named++
			continue
		}
		t.Errorf("node %d /readyz with %s down: %s, want 200 with database_nodes_down [%s]", n+1, down, a, down)
	}
	p.figure("/readyz 200 with database_nodes_down [%s] on %d of %d nodes", down, named, len(topo.nodes))

	restart()
	back := time.Now()
	recovered := false
	for time.Since(back) < 30*time.Second {
		all := true
		for _, tn := range dead {
			if topo.papi(0, http.MethodGet, tn, "/users?per_page=5", nil).status != 200 {
				all = false
			}
		}
		if all {
			recovered = true
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !recovered {
		t.Errorf("%s's tenants did not answer 200 within 30 s of its restart", down)
	}
	ready := call(directClient, http.MethodGet, topo.nodes[0]+"/readyz", "", "", nil, nil)
	if ready.status != 200 || strings.Contains(string(ready.body), "database_nodes_down") {
		t.Errorf("/readyz after the restart: %s, want 200 with no node down", ready)
	}
	p.figure("restarted: its tenants 200 again %s after pg_ctl start returned; /readyz %d", ms(time.Since(back)), ready.status)
}
