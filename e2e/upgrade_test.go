//go:build e2e_upgrade

package e2e

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestUpgrade is make e2e-upgrade's program (scripts/e2e-upgrade.sh): a
// rolling upgrade from the previous release to the working tree under a
// mixed load of four clients on the seeded tenant, through five phases:
//
//	(a) two old serve nodes and an old worker;
//	(b) the new binary's migrate while the old nodes serve;
//	(c) two new serve nodes and a new worker beside the old ones, the load
//	    over all four; a tenant created through an old node's ops API is
//	    served by the new nodes (its x- filtered lists: 200), then loaded too;
//	(d) the old nodes out of the rotation and stopped (SIGTERM);
//	(e) rollback: the old binary's migrate, then an old node beside the new.
//
// It prints each phase's figures and ends with the line
// `upgrade: requests=N errors=E max_stall_ms=S`; it fails when E > 0 or
// S > 1 s, or when a step of the upgrade fails.
func TestUpgrade(t *testing.T) {
	env := loadUpgradeEnv(t)
	var procs []*upgradeProc
	defer func() {
		for _, p := range procs {
			if p.running() {
				if _, err := p.stop(15 * time.Second); err != nil {
					t.Logf("stop %s: %v", p.name, err)
				}
			}
		}
	}()
	node := func(name, bin string, slot int) *upgradeProc {
		p := env.node(t, name, bin, slot)
		procs = append(procs, p)
		return p
	}
	worker := func(name, bin string) *upgradeProc {
		p := env.worker(t, name, bin)
		procs = append(procs, p)
		return p
	}

	old1, old2 := node("old1", env.oldBin, 0), node("old2", env.oldBin, 1)
	oldWorker := worker("old-worker", env.oldBin)
	load := newUpgradeLoad(env)
	// Each kind of request once on an old node first, as a client of its
	// own (9: its users' names are not the load's): a failure here is the
	// harness's (a route, a body), not the upgrade's.
	for i := 0; i < 20; i++ {
		if c := load.do(env.big, 9, i, true, old1); c.failure != "" {
			t.Fatalf("before the upgrade: %s", c.failure)
		}
	}

	phases := []*upgradePhase{
		{name: "(a) old nodes only"},
		{name: "(b) new binary's migrate under load"},
		{name: "(c) old and new side by side"},
		{name: "(d) old drained and stopped"},
		{name: "(e) rollback: an old node beside the new"},
	}
	cur := -1
	var rotation []*upgradeProc
	rotate := func(nodes ...*upgradeProc) {
		rotation = nodes
		load.setNodes(nodes...)
		if cur >= 0 {
			phases[cur].note("rotation: %s", procNames(nodes))
		}
	}
	next := func() *upgradePhase {
		now := time.Now()
		if cur >= 0 {
			phases[cur].end, phases[cur].nodes = now, strings.Fields(procNames(rotation))
		}
		cur++
		load.setPhase(cur)
		phases[cur].start = now
		return phases[cur]
	}
	// finish stops the load and reports; if a step fails the test part
	// way, it reports the phases run so far.
	finished := false
	finish := func() {
		if finished || cur < 0 {
			return
		}
		finished = true
		load.stop()
		phases[cur].end, phases[cur].nodes = time.Now(), strings.Fields(procNames(rotation))
		upgradeReport(t, env, phases[:cur+1], load.completions(), []string{env.big.slug, "upg2"})
	}
	defer finish()
	loadFor := func(p *upgradePhase, d time.Duration) {
		time.Sleep(d)
		p.note("load for %.1f s", d.Seconds())
	}

	rotate(old1, old2)
	p := next()
	for c := 0; c < 4; c++ {
		load.client(env.big, c, true)
	}
	loadFor(p, env.phase)

	p = next()
	took, err := env.runOnce(t, "migrate-new", env.newBin, 3*time.Minute, "migrate")
	p.note("new binary's migrate: %.1f s, %s", took.Seconds(), outcome(err))
	if err != nil {
		t.Errorf("the new binary's migrate: %v (see migrate-new.log)", err)
	}
	loadFor(p, env.phase)

	p = next()
	start := time.Now()
	new1, new2 := node("new1", env.newBin, 2), node("new2", env.newBin, 3)
	worker("new-worker", env.newBin)
	p.note("new1, new2 and new-worker started, ready in %.1f s", time.Since(start).Seconds())
	rotate(old1, old2, new1, new2)
	if small, ok := tenantOfAnOldNode(t, env, load, p, old1, new1, new2); ok {
		load.client(small, 4, false)
		p.note("a fifth client: lists and x- filtered lists of %s", small.slug)
	}
	loadFor(p, env.phase)

	p = next()
	rotate(new1, new2)
	for _, o := range []*upgradeProc{old1, old2, oldWorker} {
		took, err := o.stop(15 * time.Second)
		p.note("%s stopped %.1f s after SIGTERM, %s", o.name, took.Seconds(), outcome(err))
		if err != nil {
			t.Errorf("stop %s: %v", o.name, err)
		}
	}
	loadFor(p, env.phase)

	p = next()
	took, err = env.runOnce(t, "migrate-old-again", env.oldBin, time.Minute, "migrate")
	p.note("old binary's migrate on the newer schema: %.1f s, %s", took.Seconds(), outcome(err))
	if err != nil {
		t.Errorf("the old binary's migrate after the upgrade: %v (see migrate-old-again.log)", err)
	}
	start = time.Now()
	old3 := node("old3", env.oldBin, 4)
	p.note("old3 started, ready in %.1f s", time.Since(start).Seconds())
	rotate(new1, new2, old3)
	loadFor(p, env.phase)

	finish()
}

// tenantOfAnOldNode creates tenant upg2 through old's ops API, gives it two
// custom fields and a user through old's Public API, then asks each new
// node for its x- filtered user lists: each answer is recorded as a request
// of upg2 (a failure counts as an error) and noted in phase p. It returns
// the tenant, and false when it could not be made.
func tenantOfAnOldNode(t *testing.T, env *upgradeEnv, load *upgradeLoad, p *upgradePhase,
	old *upgradeProc, news ...*upgradeProc) (tenant, bool) {
	t.Helper()
	const slug = "upg2"
	a := call(directClient, http.MethodPost, old.ops+"/ops/v1/tenants", "", "Bearer "+env.opsToken,
		map[string]any{"slug": slug, "name": "Upgrade e2e 2", "rate_limit_per_minute": 1_000_000}, nil)
	if a.status != http.StatusCreated {
		t.Errorf("create %s through %s's ops API: %s", slug, old.name, a)
		p.note("create %s through %s's ops API: %s", slug, old.name, clip(a.String()))
		return tenant{}, false
	}
	tn := createdTenant(t, slug, a)
	p.note("%s created through %s's ops API in %.1f s", slug, old.name, a.took.Seconds())
	steps := []struct {
		path string
		body any
	}{
		{"/custom_fields", map[string]any{"name": "City", "field_type": "string"}},
		{"/custom_fields", map[string]any{"name": "Level", "field_type": "number"}},
		{"/users", map[string]any{"user_name": "first", "first_name": "F", "last_name": "Irst",
			"email": "first@upgrade.example", "X-City": "City 7", "X-Level": "7"}},
	}
	for _, s := range steps {
		if a := call(directClient, http.MethodPost, old.url+"/papi"+s.path, env.host(slug), tn.key, s.body, nil); a.status/100 != 2 {
			t.Errorf("%s POST %s on %s: %s", slug, s.path, old.name, a)
			return tn, false
		}
	}
	for _, n := range news {
		for _, q := range []url.Values{{"x-City": {"city 7"}}, {"x-Level": {"7"}}} {
			path := "/papi/users?" + q.Encode()
			var a answer
			// A node learns of a new tenant on its first request; give it 2 s.
			for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				a = call(directClient, http.MethodGet, n.url+path, env.host(slug), tn.key, nil, nil)
				if a.status != http.StatusNotFound || time.Now().After(deadline) {
					break
				}
			}
			failure := ""
			switch {
			case a.err != nil || a.status != 200:
				failure = fmt.Sprintf("GET /users?%s on %s: %s", q.Encode(), n.name, clip(a.String()))
			case !strings.Contains(string(a.body), `"user_name":"first"`):
				failure = fmt.Sprintf("GET /users?%s on %s: 200 without the user: %s", q.Encode(), n.name, clip(a.String()))
			}
			load.record(completion{tenant: slug, kind: "check", node: n.name, at: time.Now(), took: a.took, failure: failure})
			p.note("%s's GET /users?%s on %s: %s", slug, q.Encode(), n.name, outcomeOf(a, failure))
			if failure != "" {
				t.Errorf("a tenant made by an old node, on a new node: %s", failure)
			}
		}
	}
	return tn, true
}

// procNames lists the processes' names.
func procNames(ps []*upgradeProc) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.name
	}
	return strings.Join(names, " ")
}

// outcome says how a step ended.
func outcome(err error) string {
	if err != nil {
		return "FAILED: " + err.Error()
	}
	return "ok"
}

// outcomeOf says how a check's request ended.
func outcomeOf(a answer, failure string) string {
	if failure != "" {
		return "FAILED: " + failure
	}
	return fmt.Sprintf("%d", a.status)
}
