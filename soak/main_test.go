//go:build slow

package soak

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// binary is the learngate executable built once by TestMain.
var binary string

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

// runTests builds learngate into a temporary folder, runs the tests and
// writes the results table to LEARNGATE_SOAK_REPORT when it is set.
func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "learngate-soak-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak: temp dir:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "learngate")
	build := exec.Command("go", "build", "-o", binary, "learngate/cmd/learngate")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "soak: go build learngate:", err)
		return 1
	}
	code := m.Run()
	if path := os.Getenv("LEARNGATE_SOAK_REPORT"); path != "" {
		if err := os.WriteFile(path, []byte(results.table()), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "soak: write report:", err)
			return 1
		}
	}
	return code
}

// soakMode reports whether the long versions run (LEARNGATE_SOAK=1, `make soak`).
func soakMode() bool { return os.Getenv("LEARNGATE_SOAK") == "1" }

// latencyScenario starts a scenario whose long version compares the
// tenants' p99 under attack with the calm phase's. Under LEARNGATE_SOAK=1
// it runs alone (go test runs the tests that are not parallel first, one
// at a time), so no other scenario's load is in its figures; the short
// versions in make test-slow, which only report the ratio, run in
// parallel with the rest.
func latencyScenario(t *testing.T) {
	if !soakMode() {
		t.Parallel()
	}
}

// pick returns short in `make test` and long under `make soak`.
func pick[T any](short, long T) T {
	if soakMode() {
		return long
	}
	return short
}

// result is one row of the results table.
type result struct {
	Scenario      string
	Requests      int
	Failures      int
	MaxOutage     time.Duration // slowest answer while a dependency was down
	Recovery      time.Duration // from the dependency's return to the first success
	Result        string        // PASS or FAIL
	Detail        string        // a scenario's own figures, printed after the result
	recoveryKnown bool
}

// resultTable collects the rows of every scenario that ran.
type resultTable struct {
	mu   sync.Mutex
	rows []result
}

var results resultTable

// record adds t's row when t ends, with PASS or FAIL from t's outcome.
func (r *resultTable) record(t *testing.T, row *result) {
	t.Cleanup(func() {
		row.Result = "PASS"
		if t.Failed() {
			row.Result = "FAIL"
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		r.rows = append(r.rows, *row)
	})
}

// table renders the rows in scenario order.
func (r *resultTable) table() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	rows := append([]result(nil), r.rows...)
	sort.Slice(rows, func(i, j int) bool { return rows[i].Scenario < rows[j].Scenario })
	var b strings.Builder
	fmt.Fprintf(&b, "%-34s %9s %9s %12s %10s %s\n", "scenario", "requests", "failures", "max outage", "recovery", "result")
	for _, row := range rows {
		outage, recovery := "-", "-"
		if row.MaxOutage > 0 {
			outage = row.MaxOutage.Round(time.Millisecond).String()
		}
		if row.recoveryKnown {
			recovery = row.Recovery.Round(time.Millisecond).String()
		}
		line := fmt.Sprintf("%-34s %9d %9d %12s %10s %s", row.Scenario, row.Requests, row.Failures, outage, recovery, row.Result)
		if row.Detail != "" {
			line += "  " + row.Detail
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}
