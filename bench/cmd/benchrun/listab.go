package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"learngate/bench/datagen"
	"learngate/bench/load"
)

// The list A/B part (-only listab) is issue 32's probe that a rewrite of
// the list queries kept their speed. It serves the main dataset with this
// tree's learngate ("after") and with a learngate binary built from an
// earlier commit ("before", -before), each on its own addresses with the
// same environment, and for each tenant of -ab-tenants measures every list
// query of the page-number table (listQueries) at page 1, the middle page
// and the last page, and the cursor walks (walkQueries), on both. A cell
// alternates the servers in abChunks chunks, so that whatever else the
// machine does falls on both sides alike; both must answer the same bytes.
// The report (listab_report.go) adds the ratios the issue names. No
// baseline is built or started.

// abChunks is how many alternating chunks each side of an A/B cell gets.
const abChunks = 5

// abRow is one A/B cell: a list query's page on both servers.
type abRow struct {
	tenant string
	listQuery
	page, pages   int
	before, after timing
	mismatch      string // how the answers differed ("" when byte-identical)
}

// abWalk is one cursor walk on both servers.
type abWalk struct {
	tenant        string
	before, after walk
}

// listABFlags checks and completes the part's flags: -before (made
// absolute: the run works from the repository root) and -ab-tenants.
func (o *options) listABFlags(tenants string) error {
	if o.before == "" {
		return errors.New("-only listab needs -before BINARY (a learngate built from an earlier commit)")
	}
	abs, err := filepath.Abs(o.before)
	if err != nil {
		return err
	}
	if st, err := os.Stat(abs); err != nil || st.IsDir() {
		return fmt.Errorf("-before: %s is not a file", o.before)
	}
	o.before = abs
	for _, slug := range strings.Split(tenants, ",") {
		if slug = strings.TrimSpace(slug); slug != "" {
			o.abTenants = append(o.abTenants, slug)
		}
	}
	if len(o.abTenants) == 0 {
		return errors.New("-ab-tenants names no tenant")
	}
	return nil
}

// listAB runs the list A/B part and adds its section to the report.
func listAB(ctx context.Context, o options, rep *report, tenants []datagen.Tenant, dbURL, lgBin string) error {
	var measured []datagen.Tenant
	for _, slug := range o.abTenants {
		t, ok := datagen.Find(tenants, slug)
		if !ok {
			return fmt.Errorf("-ab-tenants: the dataset has no tenant %s", slug)
		}
		measured = append(measured, t)
	}
	addrs := make([]string, 4)
	for i := range addrs {
		var err error
		if addrs[i], err = freeAddr(); err != nil {
			return err
		}
	}
	progress("serve: learngate (after) on %s, %s (before) on %s", addrs[0], o.before, addrs[2])
	after, err := start("learngate", lgBin, learngateEnv(dbURL, o.redisURL, addrs[0], addrs[1]), "serve")
	if err != nil {
		return err
	}
	defer after.stop()
	before, err := start("learngate before", o.before, learngateEnv(dbURL, o.redisURL, addrs[2], addrs[3]), "serve")
	if err != nil {
		return err
	}
	defer before.stop()
	for _, w := range []struct {
		p    *process
		addr string
	}{{after, addrs[0]}, {before, addrs[2]}} {
		if err := w.p.waitReady("http://"+w.addr+"/healthz", "localhost"); err != nil {
			return err
		}
	}
	began := time.Now()
	client := &http.Client{Timeout: 2 * time.Minute}
	var rows []abRow
	var walks []abWalk
	for _, t := range measured {
		on := func(addr string) target {
			return target{base: "http://" + addr, host: t.Slug + "." + baseDomain, key: t.Key}
		}
		rows = append(rows, abPages(ctx, o, client, t, on(addrs[2]), on(addrs[0]))...)
		walks = append(walks, abWalks(ctx, t, on(addrs[2]), on(addrs[0]))...)
	}
	rep.sections = append(rep.sections, writeListAB(o, rows, walks, time.Since(began)))
	rep.failures = append(rep.failures, abFailures(rows, walks)...)
	return ctx.Err()
}

// abPages measures every list query of tenant t at page 1, the middle page
// and the last page (as after counts them) on both servers.
func abPages(ctx context.Context, o options, client *http.Client, t datagen.Tenant, before, after target) []abRow {
	// Each server's first requests to a tenant open connections and load
	// its catalog: page 1 of every query once on both, before any cell.
	for _, q := range listQueries(t.TenantSpec) {
		_, _, _ = fetch(client, before.get(q.path))
		_, _, _ = fetch(client, after.get(q.path))
	}
	var rows []abRow
	for _, q := range listQueries(t.TenantSpec) {
		if ctx.Err() != nil {
			break
		}
		status, body, err := fetch(client, after.get(q.path))
		if err != nil || status != http.StatusOK {
			rows = append(rows, abRow{tenant: t.Slug, listQuery: q, page: 1,
				mismatch: fmt.Sprintf("after: %d %.160s %v", status, body, err)})
			continue
		}
		total := totalPages(body)
		for _, page := range measuredPages(total) {
			row := abRow{tenant: t.Slug, listQuery: q, page: page, pages: total}
			path := fmt.Sprintf("%s&page=%d", q.path, page)
			progress("list A/B: %s: %s %s page %d of %d", t.Slug, q.list, q.filter, page, total)
			if row.mismatch = sameAnswer(client, before.get(path), after.get(path)); row.mismatch != "" {
				progress("list A/B: %s", row.mismatch)
			}
			row.before, row.after = alternate(ctx, client, before.get(path), after.get(path), o.cellRequests, o.cellTime)
			rows = append(rows, row)
		}
	}
	return rows
}

// sameAnswer is "" when both requests answer 200 with the same bytes, and
// otherwise how they differ.
func sameAnswer(client *http.Client, before, after load.Request) string {
	bs, bb, berr := fetch(client, before)
	as, ab, aerr := fetch(client, after)
	switch {
	case berr != nil || aerr != nil:
		return fmt.Sprintf("before %v, after %v", berr, aerr)
	case bs != http.StatusOK || as != http.StatusOK:
		return fmt.Sprintf("before %d %.160s, after %d %.160s", bs, bb, as, ab)
	case !bytes.Equal(bb, ab):
		return fmt.Sprintf("answers differ (%d and %d bytes): before %.200s, after %.200s", len(bb), len(ab), bb, ab)
	}
	return ""
}

// alternate samples before and after one request at a time, in abChunks
// chunks per side of up to requests/abChunks requests or bound/abChunks
// each, alternating the servers (and which one opens a chunk pair), and
// merges each side's samples.
func alternate(ctx context.Context, client *http.Client, before, after load.Request, requests int, bound time.Duration) (b, a timing) {
	per := max(1, (requests+abChunks-1)/abChunks)
	sides := [2]struct {
		req load.Request
		out *timing
	}{{before, &b}, {after, &a}}
	for i := 0; i < abChunks && ctx.Err() == nil; i++ {
		for j := range sides {
			s := sides[(i+j)%2]
			t := sample(ctx, client, s.req, per, bound/abChunks)
			s.out.all, s.out.errors = append(s.out.all, t.all...), s.out.errors+t.errors
		}
	}
	b.summarize()
	a.summarize()
	return b, a
}

// summarize sets n, p50 and p99 from all.
func (t *timing) summarize() {
	t.n = len(t.all)
	t.p50, t.p99 = percentiles(t.all)
}

// abWalks walks each walkQuery of tenant t on both servers, one after the
// other, the first server alternating from walk to walk.
func abWalks(ctx context.Context, t datagen.Tenant, before, after target) []abWalk {
	var ws []abWalk
	for i, q := range walkQueries(t.TenantSpec) {
		if ctx.Err() != nil {
			break
		}
		progress("list A/B: %s: walk %s", t.Slug, q.name)
		w := abWalk{tenant: t.Slug}
		if i%2 == 0 {
			w.before = walkList(ctx, before, q.name, q.path)
			w.after = walkList(ctx, after, q.name, q.path)
		} else {
			w.after = walkList(ctx, after, q.name, q.path)
			w.before = walkList(ctx, before, q.name, q.path)
		}
		ws = append(ws, w)
	}
	return ws
}

// mismatch says how the two walks differed ("" when they read the same
// pages byte for byte, each every record once).
func (w abWalk) mismatch() string {
	var miss []string
	for _, s := range []struct {
		side string
		w    walk
	}{{"before", w.before}, {"after", w.after}} {
		if s.w.err != "" {
			miss = append(miss, s.side+": "+s.w.err)
		}
		if s.w.rows != s.w.total || s.w.duplicates > 0 {
			miss = append(miss, fmt.Sprintf("%s saw %d records (%d duplicates) of total_records %d", s.side, s.w.rows,
				s.w.duplicates, s.w.total))
		}
	}
	if w.before.pages != w.after.pages || w.before.bodies != w.after.bodies {
		miss = append(miss, fmt.Sprintf("pages differ (%d and %d pages)", w.before.pages, w.after.pages))
	}
	return strings.Join(miss, "; ")
}

// abFailures are the part's differing answers and failed requests.
func abFailures(rows []abRow, walks []abWalk) []string {
	var out []string
	for _, r := range rows {
		if r.mismatch != "" || r.before.errors > 0 || r.after.errors > 0 {
			out = append(out, fmt.Sprintf("list A/B %s %s %s page %d: answers differ or requests failed (see the table)",
				r.tenant, r.list, r.filter, r.page))
		}
	}
	for _, w := range walks {
		if m := w.mismatch(); m != "" {
			out = append(out, fmt.Sprintf("list A/B %s walk %s: %s", w.tenant, w.after.name, m))
		}
	}
	return out
}
