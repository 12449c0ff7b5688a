//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// row is one line of the table printed at the end: a property, whether its
// checks passed and the figures measured.
type row struct {
	name    string
	ok      bool
	figures []string
}

// TestE2E runs the seven properties in order against the topology of
// scripts/e2e.sh, then prints their table (also to E2E_REPORT). The node
// kill comes last: after it one node is gone.
func TestE2E(t *testing.T) {
	topo := loadTopology(t)
	run := &e2eRun{topo: topo}
	run.setup(t)

	var rows []row
	property := func(name string, f func(t *testing.T, figures *[]string)) {
		var figures []string
		ok := t.Run(name, func(t *testing.T) { f(t, &figures) })
		rows = append(rows, row{name: name, ok: ok, figures: figures})
	}
	defer func() { printTable(t, rows) }()

	property("1 HTTPS on demand", run.httpsOnDemand)
	property("2 proxy and client address", run.proxyAndClientAddress)
	property("3 one budget, changes within 1 s", run.sharedState)
	property("4 isolation through PgBouncer", run.isolation)
	property("5 jobs, certificate, webhooks", run.jobsAndWebhooks)
	property("7 Redis Cluster", run.redisCluster)
	property("rps through the chain vs one node", run.throughput)
	property("6 node killed under load", run.nodeKilled)
}

// e2eRun carries the tenants made once for every property.
type e2eRun struct {
	topo    *topology
	alpha   tenant // TLS, batches, certificate, webhooks, the failover load
	beta    tenant // isolation against alpha
	budgets []tenant
	// budgetsHeld is how many budget tenants property 3 saw limited.
	budgetsHeld int
	delta       tenant // the ops changes of property 3
}

// budgetLimit is the per-minute limit of the budget tenants.
const budgetLimit = 6

// setup makes the tenants through the ops API (and so through PgBouncer).
func (r *e2eRun) setup(t *testing.T) {
	big := 1_000_000
	r.alpha = r.topo.createTenant(t, "alpha", big)
	r.beta = r.topo.createTenant(t, "beta", big)
	r.delta = r.topo.createTenant(t, "delta", big)
	for i := 1; i <= 3; i++ {
		r.budgets = append(r.budgets, r.topo.createTenant(t, fmt.Sprintf("budget%d", i), budgetLimit))
	}
}

// printTable logs the table and writes it to E2E_REPORT.
func printTable(t *testing.T, rows []row) {
	var b strings.Builder
	b.WriteString("e2e: the deployed topology (Caddy, 2 nodes, PgBouncer, Redis Cluster, 2 workers)\n\n")
	b.WriteString("| property | result | figures |\n|---|---|---|\n")
	passed, failed := 0, 0
	for _, r := range rows {
		res := "PASS"
		if r.ok {
			passed++
		} else {
			res = "FAIL"
			failed++
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", r.name, res, strings.Join(r.figures, "; "))
	}
	fmt.Fprintf(&b, "\ne2e: %d passed, %d failed\n", passed, failed)
	t.Log("\n" + b.String())
	if path := os.Getenv("E2E_REPORT"); path != "" {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Error(err)
		}
	}
}
