package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"learngate/bench/datagen"
)

// report collects the run's measurements and writes them as markdown.
type report struct {
	o          options
	spec       datagen.Spec
	sideBySide []sideBySide
	curves     []curvePoint
	pages      []pageRow
	walks      []walk
	conc       []concPoint
	// The tenants the page table and walks, and the concurrency curve, read.
	pagesTenant, concTenant string
	elapsed                 time.Duration
	sections                []string     // further tables (batch writes, chain overhead), in run order
	tenants                 []tenantStep // the many-tenants part's steps
	// failures are a part's checks that make the run fail once the tables
	// are written (the list A/B part's differing answers).
	failures []string
}

// write prints the tables to w and, when path is set, to that file too.
func (r *report) write(w io.Writer, path string) error {
	var b strings.Builder
	mode := "full"
	if r.o.quick {
		mode = "quick (smoke dataset, short rounds: noisy)"
	}
	if big, ok := r.spec.Lookup(datagen.BigSlug); ok {
		fmt.Fprintf(&b, "Run: %s, %s, %d CPUs, %s; %d tenants, %s has %d users and %d topic enrolments; "+
			"%d interleaved rounds of %s (+%s warm-up) per side at concurrency %d; whole run %s.\n\n",
			mode, time.Now().UTC().Format("2006-01-02 15:04 UTC"), runtime.NumCPU(), runtime.Version(), len(r.spec.Tenants),
			big.Slug, big.Users, big.TopicEnrolments, r.o.rounds, r.o.duration, r.o.warmup, r.o.concurrency,
			r.elapsed.Round(time.Second))
	} else {
		fmt.Fprintf(&b, "Run: %s, %s, %d CPUs, %s; whole run %s.\n", mode, time.Now().UTC().Format("2006-01-02 15:04 UTC"),
			runtime.NumCPU(), runtime.Version(), r.elapsed.Round(time.Second))
	}
	if huge, ok := r.spec.Lookup(datagen.HugeSlug); ok {
		fmt.Fprintf(&b, "%s has %d users, %d topic enrolments, %d pathway enrolments and %d external knowledge records.\n\n",
			huge.Slug, huge.Users, huge.TopicEnrolments, huge.PathwayEnrolments, huge.Knowledge)
	}
	if len(r.sideBySide) > 0 {
		r.writeSideBySide(&b)
	}
	if len(r.curves) > 0 {
		r.writeCurves(&b)
	}
	r.writePages(&b)
	r.writeWalks(&b)
	r.writeConc(&b)
	r.writeTenants(&b)
	for _, sec := range r.sections {
		b.WriteString("\n" + sec)
	}
	out := b.String()
	if _, err := io.WriteString(w, out); err != nil {
		return err
	}
	if path != "" {
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(r.o.images, 0o755); err != nil {
		return err
	}
	if err := r.drawCharts(); err != nil {
		return err
	}
	if err := r.drawTenantCharts(); err != nil {
		return err
	}
	for _, s := range r.sideBySide {
		if s.mismatch != "" {
			return fmt.Errorf("%s: learngate and the baseline answered differently (see the table)", s.name)
		}
	}
	if len(r.failures) > 0 {
		return fmt.Errorf("%s", strings.Join(r.failures, "; "))
	}
	return nil
}

func passFail(pass bool, s sideBySide) string {
	if pass {
		return "pass"
	}
	if s.learngate.Errors > 0 || s.baseline.Errors > 0 {
		return fmt.Sprintf("FAIL (errors: learngate %d, baseline %d: %.120s%.120s)", s.learngate.Errors,
			s.baseline.Errors, s.learngate.FirstError, s.baseline.FirstError)
	}
	return "FAIL"
}

// writeSideBySide writes the side-by-side table.
func (r *report) writeSideBySide(b *strings.Builder) {
	b.WriteString("| scenario | learngate req/s | p50 | p99 | baseline req/s | p50 | p99 | learngate/baseline | target | result |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---|---|\n")
	for _, s := range r.sideBySide {
		if s.mismatch != "" {
			fmt.Fprintf(b, "| %s | | | | | | | | | FAIL: answers differ, not measured (%.160s) |\n", s.name,
				strings.ReplaceAll(s.mismatch, "\n", " "))
			continue
		}
		ratio, target, pass := s.verdict()
		name := s.name
		if s.concurrency > 0 {
			name += fmt.Sprintf(" (concurrency %d)", s.concurrency)
		}
		fmt.Fprintf(b, "| %s | %.0f | %s | %s | %.0f | %s | %s | %s | %s | %s |\n", name,
			s.learngate.RPS(), ms(s.learngate.P50), ms(s.learngate.P99),
			s.baseline.RPS(), ms(s.baseline.P50), ms(s.baseline.P99), ratio, target, passFail(pass, s))
	}
	b.WriteString("\nBodies were byte-identical before measuring (reads: the whole body; batch writes: the result body).\n\n")
}

// writeCurves writes the scale curves.
func (r *report) writeCurves(b *strings.Builder) {
	b.WriteString("| curve | point | users | page | p50 | p99 | req/s | target | result |\n")
	b.WriteString("|---|---|---:|---|---:|---:|---:|---|---|\n")
	for _, c := range r.curves {
		pass := c.res.Errors == 0 && c.res.Requests > 0 && c.totalOK && c.res.P50 < targetP50Millis*time.Millisecond
		result := map[bool]string{true: "pass", false: "FAIL"}[pass]
		if !c.totalOK {
			result += " (wrong total_records)"
		}
		fmt.Fprintf(b, "| %s | %s | %d | %s | %s | %s | %.0f | p50 < %d ms | %s |\n", c.curve, c.point, c.users, c.page,
			ms(c.res.P50), ms(c.res.P99), c.res.RPS(), targetP50Millis, result)
	}
}
