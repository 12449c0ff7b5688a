package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"learngate/bench/charts"
)

// Targets of the many-tenants part (docs/performance.md, "Many tenants").
const (
	creationRatioTarget  = 1.5 // creation p50 against the first step's
	firstP99Target       = 50 * time.Millisecond
	migrateTarget        = 60 * time.Second // learngate migrate with nothing to do
	quietCPUTarget       = 3.0              // CPU seconds a quiet minute, learngate and PostgreSQL
	backendPrivateTarget = 100 << 20        // bytes, any one backend
)

// tenantRow is one row of the many-tenants table: a measure at every step,
// and its target when it has one.
type tenantRow struct {
	measure, target string
	value           func(s tenantStep) string
	pass            func(s tenantStep) bool // nil: reported, no target
}

// tenantRows are the rows of the many-tenants table; first is the first
// measured step (the creation ratio's reference).
func tenantRows(o options, first tenantStep) []tenantRow {
	ratio := func(s tenantStep) float64 {
		if first.createP50 <= 0 {
			return 0
		}
		return float64(s.createP50) / float64(first.createP50)
	}
	p := func(s tenantStep) (time.Duration, time.Duration) { return percentiles(s.first) }
	learngateAndPG := func(s tenantStep) float64 {
		return s.quiet.perMinute(s.quiet.serve + s.quiet.worker + s.quiet.postgres())
	}
	cpu := func(v func(quietCPU) float64) func(tenantStep) string {
		return func(s tenantStep) string { return fmt.Sprintf("%.2f", s.quiet.perMinute(v(s.quiet))) }
	}
	return []tenantRow{
		{measure: fmt.Sprintf("tenant creation p50 (last %d created up to the step)", creationWindow),
			value: func(s tenantStep) string {
				v := ms(s.createP50)
				if s.earlier {
					v += " (earlier run)"
				}
				return v
			}},
		{measure: fmt.Sprintf("creation p50 / at %d tenants (in the build, the machine's load of each moment included)", first.tenants),
			value: func(s tenantStep) string { return fmt.Sprintf("%.2f×", ratio(s)) }},
		{measure: fmt.Sprintf("creation side by side with a %d-tenant database: p50 here / there (%d pairs)", referenceTenants, o.creationAB),
			target: fmt.Sprintf("≤ %.1f×", creationRatioTarget),
			value: func(s tenantStep) string {
				if s.sideTen <= 0 {
					return "not measured"
				}
				return fmt.Sprintf("%s / %s = %.2f×", ms(s.sideMany), ms(s.sideTen), float64(s.sideMany)/float64(s.sideTen))
			},
			pass: func(s tenantStep) bool {
				return s.sideTen > 0 && float64(s.sideMany)/float64(s.sideTen) <= creationRatioTarget
			}},
		{measure: "first request of a tenant after a restart, p50 (GET /papi/users)",
			value: func(s tenantStep) string { a, _ := p(s); return ms(a) }},
		{measure: "first request p99", target: "≤ " + ms(firstP99Target),
			value: func(s tenantStep) string {
				_, b := p(s)
				v := fmt.Sprintf("%s (%d tenants)", ms(b), len(s.first))
				if s.firstErrors > 0 {
					v += fmt.Sprintf(", %d errors: %.120s", s.firstErrors, s.firstError)
				}
				return v
			},
			pass: func(s tenantStep) bool {
				_, b := p(s)
				return s.firstErrors == 0 && len(s.first) > 0 && b <= firstP99Target
			}},
		{measure: "learngate migrate, nothing to do (wall)", target: "≤ 60 s",
			value: func(s tenantStep) string {
				if s.migrateError != "" {
					return "error: " + s.migrateError
				}
				return s.migrate.Round(time.Millisecond).String()
			},
			pass: func(s tenantStep) bool { return s.migrateError == "" && s.migrate <= migrateTarget }},
		{measure: "quiet minute, CPU-s: learngate serve", value: cpu(func(q quietCPU) float64 { return q.serve })},
		{measure: "quiet minute: learngate worker", value: cpu(func(q quietCPU) float64 { return q.worker })},
		{measure: "quiet minute: PostgreSQL, this database's backends",
			value: cpu(func(q quietCPU) float64 { return q.backends })},
		{measure: "quiet minute: PostgreSQL, postmaster and background processes (shared with other work of the cluster)",
			value: cpu(func(q quietCPU) float64 { return q.background })},
		{measure: "quiet minute: serve + worker + PostgreSQL", target: fmt.Sprintf("≤ %.0f CPU-s", quietCPUTarget),
			value: func(s tenantStep) string {
				v := fmt.Sprintf("%.2f", learngateAndPG(s))
				if s.quiet.serveExited || s.quiet.workerExited {
					v += " (a process exited)"
				}
				return v
			},
			pass: func(s tenantStep) bool {
				return !s.quiet.serveExited && !s.quiet.workerExited && learngateAndPG(s) <= quietCPUTarget
			}},
		{measure: "quiet minute: every postgres process of the machine (other work included)",
			value: cpu(func(q quietCPU) float64 { return q.allPostgres })},
		{measure: "machine load average (1 min) at the end of the quiet minute",
			value: func(s tenantStep) string { return fmt.Sprintf("%.1f", s.quiet.load1) }},
		{measure: "PostgreSQL backend private memory, max (smaps: private mappings)", target: "≤ 100 MiB",
			value: func(s tenantStep) string { return mib(s.mem.maxPrivate) },
			pass:  func(s tenantStep) bool { return s.mem.backends > 0 && s.mem.maxPrivate <= backendPrivateTarget }},
		{measure: "backend private memory, sum",
			value: func(s tenantStep) string {
				v := fmt.Sprintf("%s (%d backends)", mib(s.mem.sum), s.mem.backends)
				if s.mem.unreadable > 0 {
					v += fmt.Sprintf(", %d unreadable", s.mem.unreadable)
				}
				return v
			}},
		{measure: "backend Rss, max (shared_buffers pages it touched included)",
			value: func(s tenantStep) string { return mib(s.mem.maxRSS) }},
		{measure: "pg_database_size", value: func(s tenantStep) string { return mib(s.dbSize) }},
		{measure: "relations (pg_class)", value: func(s tenantStep) string { return fmt.Sprint(s.relations) }},
	}
}

// writeTenants writes the many-tenants table.
func (r *report) writeTenants(b *strings.Builder) {
	if len(r.tenants) == 0 {
		return
	}
	var measured []tenantStep
	for _, s := range r.tenants {
		if s.skipped == "" {
			measured = append(measured, s)
		} else {
			fmt.Fprintf(b, "\nMany tenants: %d tenants not measured: %s.\n", s.tenants, s.skipped)
		}
	}
	if len(measured) == 0 {
		return
	}
	fmt.Fprintf(b, "\nMany tenants (database %s): serve and one worker, tenants created through POST /ops/v1/tenants, "+
		"%d at a time; first requests over up to %d tenants; quiet span %s, CPU scaled to a minute.\n\n",
		r.o.tenantsDB, r.o.creators, r.o.firstSample, r.o.quietMinute)
	b.WriteString("| measure |")
	for _, s := range measured {
		fmt.Fprintf(b, " %d tenants |", s.tenants)
	}
	b.WriteString(" target | result |\n|---|")
	b.WriteString(strings.Repeat("---:|", len(measured)))
	b.WriteString("---|---|\n")
	for _, row := range tenantRows(r.o, measured[0]) {
		fmt.Fprintf(b, "| %s |", row.measure)
		var failed []string
		for _, s := range measured {
			fmt.Fprintf(b, " %s |", strings.ReplaceAll(row.value(s), "|", "/"))
			if row.pass != nil && !row.pass(s) {
				failed = append(failed, fmt.Sprint(s.tenants))
			}
		}
		result := "-"
		switch {
		case row.pass == nil:
		case len(failed) == 0:
			result = "pass"
		default:
			result = "FAIL at " + strings.Join(failed, ", ")
		}
		target := row.target
		if target == "" {
			target = "reported"
		}
		fmt.Fprintf(b, " %s | %s |\n", target, result)
	}
	for _, s := range measured {
		q := s.quiet
		if other := q.perMinute(q.allPostgres - q.postgres()); other > 1 {
			fmt.Fprintf(b, "\nAt %d tenants, other databases' backends used %.1f CPU-s during the quiet minute (load "+
				"average %.1f): the background processes' figure, and the creation times, are not this database's alone.\n",
				s.tenants, other, q.load1)
		}
	}
}

// drawTenantCharts writes one SVG chart per measure of the many-tenants
// part against the number of tenants (log x axis) into r.o.images.
func (r *report) drawTenantCharts() error {
	series := func(name string, v func(tenantStep) float64) charts.Series {
		s := charts.Series{Name: name}
		for _, t := range r.tenants {
			if t.skipped == "" {
				s.X, s.Y = append(s.X, float64(t.tenants)), append(s.Y, v(t))
			}
		}
		return s
	}
	p50 := func(t tenantStep) float64 { a, _ := percentiles(t.first); return durMillis(a) }
	p99 := func(t tenantStep) float64 { _, b := percentiles(t.first); return durMillis(b) }
	mibf := func(b int64) float64 { return float64(b) / (1 << 20) }
	for _, c := range []struct {
		file, title, y string
		series         []charts.Series
	}{
		{"tenants-creation.svg", "Tenant creation through the ops API", "p50 (ms)",
			[]charts.Series{series("creation p50", func(t tenantStep) float64 { return durMillis(t.createP50) })}},
		{"tenants-first-request.svg", "First request of a tenant after a restart", "latency (ms)",
			[]charts.Series{series("p50", p50), series("p99", p99)}},
		{"tenants-migrate.svg", "learngate migrate with nothing to do", "wall time (s)",
			[]charts.Series{series("migrate", func(t tenantStep) float64 { return t.migrate.Seconds() })}},
		{"tenants-quiet-cpu.svg", "CPU in a quiet minute", "CPU seconds per minute", []charts.Series{
			series("serve", func(t tenantStep) float64 { return t.quiet.perMinute(t.quiet.serve) }),
			series("worker", func(t tenantStep) float64 { return t.quiet.perMinute(t.quiet.worker) }),
			series("PostgreSQL backends", func(t tenantStep) float64 { return t.quiet.perMinute(t.quiet.backends) }),
			series("PostgreSQL background", func(t tenantStep) float64 { return t.quiet.perMinute(t.quiet.background) })}},
		{"tenants-backend-memory.svg", "PostgreSQL backend private memory", "MiB", []charts.Series{
			series("largest backend", func(t tenantStep) float64 { return mibf(t.mem.maxPrivate) }),
			series("all backends", func(t tenantStep) float64 { return mibf(t.mem.sum) })}},
		{"tenants-database-size.svg", "Database size", "pg_database_size (MiB)",
			[]charts.Series{series("database", func(t tenantStep) float64 { return mibf(t.dbSize) })}},
		{"tenants-relations.svg", "Relations", "pg_class rows",
			[]charts.Series{series("relations", func(t tenantStep) float64 { return float64(t.relations) })}},
	} {
		if !hasPoints(c.series) {
			continue
		}
		if err := charts.Lines(filepath.Join(r.o.images, c.file), c.title, "tenants", c.y, true, c.series); err != nil {
			return fmt.Errorf("chart %s: %w", c.file, err)
		}
	}
	return nil
}
