//go:build e2e_citus

package e2e

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// citusProp is one line of the e2e-citus table: a property, whether its
// checks passed, the figures measured, and the parts of it that wait for
// code not built yet (an API route or field the contract names).
type citusProp struct {
	name     string
	ok       bool
	figures  []string
	notBuilt []string
}

// figure adds one figure to the property's line.
func (p *citusProp) figure(format string, args ...any) {
	p.figures = append(p.figures, fmt.Sprintf(format, args...))
}

// missing records a part of the property that cannot be checked because
// learngate does not have it yet; the property is then NOT BUILT, not PASS.
func (p *citusProp) missing(t *testing.T, format string, args ...any) {
	t.Helper()
	what := fmt.Sprintf(format, args...)
	t.Logf("not built yet: %s", what)
	p.notBuilt = append(p.notBuilt, what)
}

// TestCitus runs the six properties in order against the topology of
// scripts/e2e-citus.sh, then prints their table (also to E2EC_REPORT). The
// comparison with plain PostgreSQL comes before the worker outage, which
// comes last.
func TestCitus(t *testing.T) {
	topo := loadCitusTopology(t)
	run := &citusRun{topo: topo}
	run.setup(t)

	var props []*citusProp
	property := func(name string, f func(t *testing.T, p *citusProp)) {
		p := &citusProp{name: name}
		p.ok = t.Run(name, func(t *testing.T) { f(t, p) })
		props = append(props, p)
	}
	defer func() { printCitusTable(t, props) }()

	property("1 tenants on both workers", run.placement)
	property("2 every resource on each worker", run.resources)
	property("3 webhooks delivered once", run.webhooksOnce)
	property("4 tenant moved under load", run.move)
	property("6 plain PostgreSQL vs Citus", run.compare)
	property("5 worker killed", run.workerKilled)
}

// printCitusTable logs the table, writes it to E2EC_REPORT, and fails the
// test when a property waits for code not built yet: the run proves
// nothing about that part.
func printCitusTable(t *testing.T, props []*citusProp) {
	var b strings.Builder
	b.WriteString("e2e-citus: learngate on Citus (coordinator + 2 workers, schema-based sharding; 2 nodes, 1 worker)\n\n")
	b.WriteString("| property | result | figures |\n|---|---|---|\n")
	passed, failed, unbuilt := 0, 0, 0
	for _, p := range props {
		res := "PASS"
		figures := p.figures
		switch {
		case !p.ok:
			res = "FAIL"
			failed++
		case len(p.notBuilt) > 0:
			res = "NOT BUILT"
			unbuilt++
		default:
			passed++
		}
		for _, nb := range p.notBuilt {
			figures = append(figures, "not built yet: "+nb)
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", p.name, res, strings.Join(figures, "; "))
	}
	fmt.Fprintf(&b, "\ne2e-citus: %d passed, %d failed, %d not built yet\n", passed, failed, unbuilt)
	t.Log("\n" + b.String())
	if path := os.Getenv("E2EC_REPORT"); path != "" {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Error(err)
		}
	}
	if unbuilt > 0 {
		t.Errorf("%d properties wait for parts not built yet (see the table)", unbuilt)
	}
}
