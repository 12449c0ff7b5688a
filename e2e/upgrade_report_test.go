//go:build e2e_upgrade

package e2e

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// upgradePhase is one phase of the run: its name, when it began and
// ended, the nodes in rotation at its end, and what the test did in it.
type upgradePhase struct {
	name       string
	start, end time.Time
	nodes      []string
	events     []string
}

// note records one thing the test did or saw in the phase.
func (p *upgradePhase) note(format string, args ...any) {
	p.events = append(p.events, fmt.Sprintf(format, args...))
}

// upgradeStats are the figures of one tenant over a phase or the run.
type upgradeStats struct {
	requests, errors int
	maxStall         time.Duration
	stallAt          time.Time // when the longest gap ended
	latencies        []time.Duration
	failures         map[string]int
}

func (s *upgradeStats) add(c completion) {
	s.requests++
	s.latencies = append(s.latencies, c.took)
	if c.failure != "" {
		s.errors++
		if s.failures == nil {
			s.failures = map[string]int{}
		}
		s.failures[c.failure]++
	}
}

func (s *upgradeStats) gap(d time.Duration, at time.Time) {
	if d > s.maxStall {
		s.maxStall, s.stallAt = d, at
	}
}

// quantile is the q-th percentile (1 to 100) of the requests' durations.
func (s *upgradeStats) quantile(q int) time.Duration {
	if len(s.latencies) == 0 {
		return 0
	}
	l := slices.Clone(s.latencies)
	slices.Sort(l)
	return l[(len(l)*q+99)/100-1]
}

// upgradeFigures computes, per phase and tenant and over the run, the
// requests, errors and the longest gap between two consecutive completed
// requests of the tenant (all clients together). A gap counts for the
// phase its later request completed in.
func upgradeFigures(done []completion, phases int) (perPhase []map[string]*upgradeStats, all map[string]*upgradeStats) {
	perPhase = make([]map[string]*upgradeStats, phases)
	for i := range perPhase {
		perPhase[i] = map[string]*upgradeStats{}
	}
	all = map[string]*upgradeStats{}
	get := func(m map[string]*upgradeStats, tn string) *upgradeStats {
		if m[tn] == nil {
			m[tn] = &upgradeStats{}
		}
		return m[tn]
	}
	sort.SliceStable(done, func(i, j int) bool { return done[i].at.Before(done[j].at) })
	last := map[string]time.Time{}
	for _, c := range done {
		get(perPhase[c.phase], c.tenant).add(c)
		get(all, c.tenant).add(c)
		if prev, ok := last[c.tenant]; ok {
			get(perPhase[c.phase], c.tenant).gap(c.at.Sub(prev), c.at)
			get(all, c.tenant).gap(c.at.Sub(prev), c.at)
		}
		last[c.tenant] = c.at
	}
	return perPhase, all
}

// upgradeReport writes the table of each phase and of the whole run, ending
// with the line `upgrade: requests=N errors=E max_stall_ms=S`, to E2EU_REPORT
// (the test log without it), and fails the test when E > 0 or S > 1 s.
func upgradeReport(t *testing.T, env *upgradeEnv, phases []*upgradePhase, done []completion, tenants []string) {
	perPhase, all := upgradeFigures(done, len(phases))
	begin := phases[0].start
	var b strings.Builder
	fmt.Fprintf(&b, "e2e-upgrade: from %s to the working tree; tenant %s (%d users, %d custom values), 4 clients\n",
		env.from, env.big.slug, env.users, 4*env.users)
	table := func(stats map[string]*upgradeStats) {
		b.WriteString("| tenant | requests | errors | max stall ms | stall ended at | p99 ms | slowest ms |\n|---|---|---|---|---|---|---|\n")
		for _, tn := range tenants {
			s := stats[tn]
			if s == nil {
				continue
			}
			fmt.Fprintf(&b, "| %s | %d | %d | %d | +%.1f s | %d | %d |\n", tn, s.requests, s.errors, s.maxStall.Milliseconds(),
				s.stallAt.Sub(begin).Seconds(), s.quantile(99).Milliseconds(), s.quantile(100).Milliseconds())
		}
		for _, tn := range tenants {
			s := stats[tn]
			if s == nil || len(s.failures) == 0 {
				continue
			}
			msgs := make([]string, 0, len(s.failures))
			for m := range s.failures {
				msgs = append(msgs, m)
			}
			sort.Slice(msgs, func(i, j int) bool { return s.failures[msgs[i]] > s.failures[msgs[j]] })
			for i, m := range msgs {
				if i == 5 {
					fmt.Fprintf(&b, "  %s: %d more kinds of failure\n", tn, len(msgs)-5)
					break
				}
				fmt.Fprintf(&b, "  %s: %d x %s\n", tn, s.failures[m], m)
			}
		}
	}
	for i, p := range phases {
		fmt.Fprintf(&b, "\n%s: %.1f s (+%.1f s to +%.1f s), nodes in rotation: %s\n", p.name, p.end.Sub(p.start).Seconds(),
			p.start.Sub(begin).Seconds(), p.end.Sub(begin).Seconds(), strings.Join(p.nodes, " "))
		for _, e := range p.events {
			b.WriteString("  - " + e + "\n")
		}
		table(perPhase[i])
	}
	fmt.Fprintf(&b, "\nwhole run: %.1f s\n", phases[len(phases)-1].end.Sub(begin).Seconds())
	table(all)
	requests, errs, stall := 0, 0, time.Duration(0)
	for _, s := range all {
		requests += s.requests
		errs += s.errors
		stall = max(stall, s.maxStall)
	}
	fmt.Fprintf(&b, "\nupgrade: requests=%d errors=%d max_stall_ms=%d\n", requests, errs, stall.Milliseconds())
	if env.report == "" {
		t.Log("\n" + b.String())
	} else if err := os.WriteFile(env.report, []byte(b.String()), 0o644); err != nil {
		t.Error(err)
	}
	if errs > 0 {
		t.Errorf("%d of %d requests failed (target: none)", errs, requests)
	}
	if stall > time.Second {
		t.Errorf("a tenant's requests stalled for %v (target: at most 1 s)", stall)
	}
}
