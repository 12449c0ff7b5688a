package main

import (
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// Targets of the list A/B part (issue 32, "Performance must hold or improve").
const (
	// abTopicIDRatio bounds topic_id page 1 and last page over the
	// unfiltered topic enrolments page 1.
	abTopicIDRatio = 1.5
	// abCustomRatio bounds each x-<field> page over the unfiltered users page 1.
	abCustomRatio = 2.0
	// abSlowdown bounds every list figure's after over before.
	abSlowdown = 1.10
)

// abCheck is one of a tenant's ratios with its target.
type abCheck struct {
	tenant, name  string
	after, before float64 // the ratio on each side; 0: not measured
	limit         float64
}

// pass says whether the after ratio was measured and is within the limit.
func (c abCheck) pass() bool { return c.after > 0 && c.after <= c.limit }

// p50Ratio is num's p50 over den's (0 when either is unmeasured).
func p50Ratio(num, den timing) float64 {
	if num.n == 0 || den.n == 0 || den.p50 == 0 {
		return 0
	}
	return float64(num.p50) / float64(den.p50)
}

// abChecks are tenant's ratios the issue names, from its rows and walks:
// topic_id page 1 and last page over the unfiltered topic enrolments page
// 1, each x- filter page over the unfiltered users page 1 (both sides),
// and the largest after/before over every measured page and walk (cursor
// p50).
func abChecks(tenant string, rows []abRow, walks []abWalk) []abCheck {
	var topics, users *abRow
	for i, r := range rows {
		if r.tenant == tenant && r.filter == "none" && r.page == 1 {
			switch r.list {
			case "topic enrolments":
				topics = &rows[i]
			case "users":
				users = &rows[i]
			}
		}
	}
	var checks []abCheck
	against := func(r abRow, base *abRow, baseName string, limit float64) {
		c := abCheck{tenant: tenant, limit: limit,
			name: fmt.Sprintf("%s %s page %d of %d / %s page 1", r.list, r.filter, r.page, r.pages, baseName)}
		if base != nil {
			c.after, c.before = p50Ratio(r.after, base.after), p50Ratio(r.before, base.before)
		}
		checks = append(checks, c)
	}
	worst := abCheck{tenant: tenant, name: "largest after/before", limit: abSlowdown}
	for _, r := range rows {
		if r.tenant != tenant {
			continue
		}
		switch {
		case r.list == "topic enrolments" && r.filter == "topic_id" && (r.page == 1 || r.page == r.pages):
			against(r, topics, "unfiltered topic enrolments", abTopicIDRatio)
		case r.list == "users" && strings.HasPrefix(r.filter, "x- "):
			against(r, users, "unfiltered users", abCustomRatio)
		}
		if x := p50Ratio(r.after, r.before); x > worst.after {
			worst.after = x
			worst.name = fmt.Sprintf("largest after/before: %s %s page %d of %d", r.list, r.filter, r.page, r.pages)
		}
	}
	for _, w := range walks {
		if w.tenant != tenant || len(w.before.cursor) == 0 || len(w.after.cursor) == 0 {
			continue
		}
		b, _ := percentiles(w.before.cursor)
		a, _ := percentiles(w.after.cursor)
		if x := float64(a) / float64(b); b > 0 && x > worst.after {
			worst.after = x
			worst.name = fmt.Sprintf("largest after/before: walk %s (cursor p50)", w.after.name)
		}
	}
	return append(checks, worst)
}

// writeListAB is the part's section of the report: the A/B table of the
// pages, the walks, and each tenant's checks.
func writeListAB(o options, rows []abRow, walks []abWalk, took time.Duration) string {
	var b strings.Builder
	b.WriteString("### Lists before and after\n\n")
	fmt.Fprintf(&b, "Before: %s; after: this tree (%s). per_page=100, one request at a time; each cell up to %d requests "+
		"or %s per side, in %d chunks alternating the servers; bodies compared byte for byte first. Part took %s.\n\n",
		o.before, treeCommit(), o.cellRequests, o.cellTime, abChunks, took.Round(time.Second))
	b.WriteString("| tenant | list | filter | page | before p50 | after p50 | after/before | answers |\n")
	b.WriteString("|---|---|---|---|---:|---:|---:|---|\n")
	for _, r := range rows {
		ratio := "-"
		if x := p50Ratio(r.after, r.before); x > 0 {
			ratio = fmt.Sprintf("%.2f×", x)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d of %d | %s | %s | %s | %s |\n", r.tenant, r.list, r.filter, r.page, r.pages,
			ms(r.before.p50), ms(r.after.p50), ratio, cell(answers(r.mismatch, r.before.errors, r.after.errors)))
	}
	if len(walks) > 0 {
		b.WriteString("\nCursor walks, each list read whole on one server and then on the other (the first alternating).\n\n")
		b.WriteString("| tenant | walk | pages | records | before cursor p50 | after cursor p50 | after/before | before records/s | after records/s | answers |\n")
		b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n")
		for _, w := range walks {
			bp, _ := percentiles(w.before.cursor)
			ap, _ := percentiles(w.after.cursor)
			ratio := "-"
			if bp > 0 && ap > 0 {
				ratio = fmt.Sprintf("%.2f×", float64(ap)/float64(bp))
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %s | %s | %s | %.0f | %.0f | %s |\n", w.tenant, w.after.name, w.after.pages,
				w.after.rows, ms(bp), ms(ap), ratio, rate(w.before), rate(w.after), cell(answers(w.mismatch(), 0, 0)))
		}
	}
	b.WriteString("\nRatios of issue 32 (p50 over p50).\n\n")
	b.WriteString("| tenant | ratio | after | before | target | result |\n|---|---|---:|---:|---|---|\n")
	for _, t := range o.abTenants {
		for _, c := range abChecks(t, rows, walks) {
			before := "-"
			if c.before > 0 {
				before = fmt.Sprintf("%.2f×", c.before)
			}
			fmt.Fprintf(&b, "| %s | %s | %.2f× | %s | ≤ %.2f× | %s |\n", c.tenant, c.name, c.after, before, c.limit,
				map[bool]string{true: "pass", false: "FAIL"}[c.pass()])
		}
	}
	return b.String()
}

// answers is a row's answers column.
func answers(mismatch string, beforeErrors, afterErrors int) string {
	switch {
	case mismatch != "":
		return "DIFFER: " + mismatch
	case beforeErrors > 0 || afterErrors > 0:
		return fmt.Sprintf("errors: before %d, after %d", beforeErrors, afterErrors)
	}
	return "same"
}

// cell makes s fit a markdown table cell.
func cell(s string) string { return strings.NewReplacer("|", "/", "\n", " ").Replace(s) }

// rate is a walk's records per second.
func rate(w walk) float64 {
	if w.elapsed <= 0 {
		return 0
	}
	return float64(w.rows) / w.elapsed.Seconds()
}

// treeCommit is the working tree's commit (git describe), or "unknown".
func treeCommit() string {
	out, err := exec.Command("git", "describe", "--always", "--dirty").Output()
	if err != nil {
		return "unknown commit"
	}
	return "commit " + strings.TrimSpace(string(out))
}
