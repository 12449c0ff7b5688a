package main

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"learngate/bench/charts"
)

// writePages writes the page-number table.
func (r *report) writePages(b *strings.Builder) {
	if len(r.pages) == 0 {
		return
	}
	fmt.Fprintf(b, "\nPage-number table: %s, per_page=100, one request at a time, up to %d requests or %s per side and cell; "+
		"bodies compared with each baseline's first.\n\n", r.pagesTenant, r.o.cellRequests, r.o.cellTime)
	b.WriteString("| list | filter | page | learngate p50 | p99 | same-SQL p50 | physical p50 | learngate/physical | target | result | reason |\n")
	b.WriteString("|---|---|---|---:|---:|---:|---:|---:|---|---|---|\n")
	for _, p := range r.pages {
		ok, reason := p.verdict()
		ratio := "-"
		if x := p.ratio(); x > 0 {
			ratio = fmt.Sprintf("%.2f×", x)
		}
		fmt.Fprintf(b, "| %s | %s | %d of %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", p.list, p.filter, p.page, p.pages,
			ms(p.learngate.p50), ms(p.learngate.p99), optMs(p.baseline), optMs(p.physics), ratio,
			fmt.Sprintf("p50 ≤ %d ms, ≤ %.1f× physical", p.target()/time.Millisecond, physicalRatio),
			map[bool]string{true: "PASS", false: "FAIL"}[ok], strings.ReplaceAll(reason, "|", "/"))
	}
}

func optMs(t *timing) string {
	if t == nil {
		return "-"
	}
	return ms(t.p50)
}

// writeWalks writes the cursor-walk table.
func (r *report) writeWalks(b *strings.Builder) {
	if len(r.walks) == 0 {
		return
	}
	fmt.Fprintf(b, "\nCursor walks: %s, per_page=100, following Link rel=\"next\" one request at a time "+
		"(first/last: p50 of the first and last %d cursor pages).\n\n", r.pagesTenant, walkEdgePages)
	b.WriteString("| walk | pages | records | total_records | duplicates | page 1 (numbered) | cursor p50 | p99 | first p50 | last p50 | last/first | records/s | target | result |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n")
	for _, w := range r.walks {
		ok, why := w.verdict()
		p50, p99 := percentiles(w.cursor)
		first, last := w.edges()
		ratio := "-"
		if first > 0 {
			ratio = fmt.Sprintf("%.2f×", float64(last)/float64(first))
		}
		result := "PASS"
		if !ok {
			result = "FAIL: " + why
		}
		fmt.Fprintf(b, "| %s | %d | %d | %d | %d | %s | %s | %s | %s | %s | %s | %.0f | p50 < %d ms, last ≤ %.1f× first, all records once | %s |\n",
			w.name, w.pages, w.rows, w.total, w.duplicates, ms(w.firstPage), ms(p50), ms(p99), ms(first), ms(last), ratio,
			float64(w.rows)/w.elapsed.Seconds(), walkPageMillis, walkLastRatio, strings.ReplaceAll(result, "|", "/"))
	}
}

// writeConc writes the concurrency curve.
func (r *report) writeConc(b *strings.Builder) {
	if len(r.conc) == 0 {
		return
	}
	fmt.Fprintf(b, "\nConcurrency curve: %s, %s measured per step; cores are CPU seconds per second of the step, from /proc.\n\n",
		r.concTenant, r.o.concDuration)
	b.WriteString("| request | side | concurrency | req/s | p50 | p99 | errors | learngate cores | baseline cores | postgres cores | what saturates |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, p := range r.conc {
		fmt.Fprintf(b, "| GET %s | %s | %d | %.0f | %s | %s | %d | %.2f | %.2f | %.2f | %s |\n", p.path, p.side, p.concurrency,
			p.res.RPS(), ms(p.res.P50), ms(p.res.P99), p.res.Errors, p.lgCPU, p.blCPU, p.pgCPU, p.saturation())
	}
}

// drawCharts writes the SVG charts into r.o.images: latency by depth
// (numbered pages against the cursor walk), by tenant size, and
// throughput by concurrency.
func (r *report) drawCharts() error {
	var numbered, users charts.Series
	numbered.Name, users.Name = "topic enrolments, page number", "users, page number"
	for _, p := range r.pages {
		if p.filter != "none" || p.learngate.n == 0 {
			continue
		}
		switch p.list {
		case "topic enrolments":
			numbered.X, numbered.Y = append(numbered.X, float64(p.page)), append(numbered.Y, durMillis(p.learngate.p50))
		case "users":
			users.X, users.Y = append(users.X, float64(p.page)), append(users.Y, durMillis(p.learngate.p50))
		}
	}
	depth := []charts.Series{numbered, users}
	for _, w := range r.walks {
		if w.name != "every topic enrolment" || len(w.cursor) == 0 {
			continue
		}
		cursor := charts.Series{Name: "topic enrolments, cursor"}
		for _, page := range numbered.X {
			// Cursor page k is page k+2 of the walk: the p50 of up to 101 pages around it.
			i := max(0, min(int(page)-2, len(w.cursor)-1))
			p50, _ := percentiles(w.cursor[max(0, i-50):min(len(w.cursor), i+51)])
			cursor.X, cursor.Y = append(cursor.X, page), append(cursor.Y, durMillis(p50))
		}
		depth = append(depth, cursor)
	}
	var first, last charts.Series
	first.Name, last.Name = "users page 1", "users last page"
	for _, c := range r.curves {
		if c.curve != "tenant size" {
			continue
		}
		if c.page == "1" {
			first.X, first.Y = append(first.X, float64(c.users)), append(first.Y, durMillis(c.res.P50))
		} else if n, _ := strconv.Atoi(c.page); n == (c.users+99)/100 {
			last.X, last.Y = append(last.X, float64(c.users)), append(last.Y, durMillis(c.res.P50))
		}
	}
	bySide := map[string]*charts.Series{}
	var conc []charts.Series
	for _, p := range r.conc {
		name := p.side + ", GET " + strings.TrimPrefix(strings.SplitN(p.path, "?", 2)[0], "/papi/")
		s, ok := bySide[name]
		if !ok {
			conc = append(conc, charts.Series{Name: name})
			s = &conc[len(conc)-1]
			bySide[name] = s
		}
		s.X, s.Y = append(s.X, float64(p.concurrency)), append(s.Y, p.res.RPS())
	}
	for _, c := range []struct {
		file, title, x, y string
		series            []charts.Series
	}{
		{"latency-by-depth.svg", "List page latency by depth (" + r.pagesTenant + ")", "page (100 records each)", "p50 (ms)", depth},
		{"latency-by-tenant-size.svg", "Users list latency by tenant size", "users in the tenant", "p50 (ms)", []charts.Series{first, last}},
		{"throughput-by-concurrency.svg", "Throughput by concurrency (" + r.concTenant + ")", "concurrent requests", "requests/s", conc},
	} {
		if !hasPoints(c.series) {
			continue
		}
		if err := charts.Lines(filepath.Join(r.o.images, c.file), c.title, c.x, c.y, true, c.series); err != nil {
			return fmt.Errorf("chart %s: %w", c.file, err)
		}
	}
	return nil
}

func hasPoints(series []charts.Series) bool {
	for _, s := range series {
		if len(s.X) > 0 {
			return true
		}
	}
	return false
}

func durMillis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
