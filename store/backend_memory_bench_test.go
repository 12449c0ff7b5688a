package store

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"learngate/store/list"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"learngate"
)

// BenchmarkBackendMemory measures what one pooled connection costs
// PostgreSQL as it serves more tenant schemas: the private memory of its
// backend (/proc/<pid>/smaps_rollup, so PostgreSQL must run on this
// machine and be readable, e.g. as root) and the backend's own memory
// contexts, after 0, 25, 50, 100 and 200 schemas served a few list
// requests each; then what recycling a connection costs: opening one (p50)
// and a first request on a new connection against one on a warm one.
// One run: go test -run '^$' -bench BackendMemory -benchtime 1x ./store/
func BenchmarkBackendMemory(b *testing.B) {
	const schemas = 200
	ctx := context.Background()
	url := ownDatabase(b)
	setup, err := Open(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer setup.Close()
	if err := setup.MigrateAll(ctx, nil); err != nil {
		b.Fatal(err)
	}
	for i := range schemas {
		tn, _, err := setup.CreateTenant(ctx, NewTenant{Slug: fmt.Sprintf("t%03d", i), Name: "T", Timezone: "UTC",
			RateLimitPerMinute: 300}, NewAPIKey{Hash: fmt.Appendf(nil, "hash-%03d", i), Prefix: "lg_t"})
		if err != nil {
			b.Fatal(err)
		}
		if err := setup.SetTenantStatus(ctx, tn.ID, learngate.TenantActive); err != nil {
			b.Fatal(err)
		}
	}
	if err := setup.MigrateAll(ctx, nil); err != nil { // four schemas at a time
		b.Fatal(err)
	}

	for b.Loop() {
		db, err := Open(ctx, url)
		if err != nil {
			b.Fatal(err)
		}
		db.SetMaxOpenConns(1) // every request on the one backend
		var pid int
		if err := db.pool.Get(&pid, `SELECT pg_backend_pid()`); err != nil {
			b.Fatal(err)
		}
		start, ok := privateKiB(pid)
		if !ok {
			db.Close()
			b.Skipf("cannot read /proc/%d/smaps_rollup: run on PostgreSQL's machine as root or postgres", pid)
		}
		b.Logf("schemas served  private MiB  memory contexts MiB")
		b.Logf("%14d  %11.1f  %19.1f", 0, float64(start)/1024, contextsMiB(b, db))
		var end int
		for i := range schemas {
			serveListRequests(b, db, SchemaName(int64(i+1)))
			if n := i + 1; n == 25 || n == 50 || n == 100 || n == schemas {
				end, _ = privateKiB(pid)
				b.Logf("%14d  %11.1f  %19.1f", n, float64(end)/1024, contextsMiB(b, db))
			}
		}
		perSchema := float64(end-start) / schemas
		b.ReportMetric(perSchema, "KiB/schema")
		b.ReportMetric(100*1024/perSchema, "schemas/100MiB")

		warm := requestTimes(b, db, 30, false)
		cold := requestTimes(b, db, 30, true)
		b.ReportMetric(median(warm), "ms/warm-request")
		b.ReportMetric(median(cold), "ms/first-request")
		b.ReportMetric(median(connectTimes(b, url, 30)), "ms/connect")
		db.Close()
	}
}

// serveListRequests runs in schema what a few list requests run.
func serveListRequests(tb testing.TB, db *DB, schema string) {
	tb.Helper()
	ctx := context.Background()
	tdb, err := db.Tenant(schema)
	if err != nil {
		tb.Fatal(err)
	}
	page := list.Page{Number: 1, Size: 10}
	if _, _, err := ListUsers(ctx, tdb, list.UserFilter{}, page); err != nil {
		tb.Fatal(err)
	}
	if _, _, err := ListTopics(ctx, tdb, list.UpdatedFilter{}, page); err != nil {
		tb.Fatal(err)
	}
	if _, _, err := ListTopicEnrolments(ctx, tdb, list.EnrolmentFilter{}, page); err != nil {
		tb.Fatal(err)
	}
	if _, _, err := ListCatalog(ctx, tdb, learngate.Roles, page); err != nil {
		tb.Fatal(err)
	}
}

// requestTimes times n rounds of serveListRequests in the first schema, in
// milliseconds, each on a new connection when fresh (the connection is
// dropped before the round: SetMaxOpenConns(0) then 1 closes the idle one).
func requestTimes(tb testing.TB, db *DB, n int, fresh bool) []float64 {
	tb.Helper()
	var ms []float64
	for range n {
		if fresh {
			db.pool.SetMaxIdleConns(0)
			db.pool.SetMaxIdleConns(1)
		}
		start := time.Now()
		serveListRequests(tb, db, SchemaName(1))
		ms = append(ms, float64(time.Since(start).Microseconds())/1000)
	}
	return ms
}

// connectTimes times n connections opened (and pinged) to url, in ms.
func connectTimes(tb testing.TB, url string, n int) []float64 {
	tb.Helper()
	connector, err := newConnector(url)
	if err != nil {
		tb.Fatal(err)
	}
	var ms []float64
	for range n {
		start := time.Now()
		conn := sql.OpenDB(connector)
		if err := conn.Ping(); err != nil {
			tb.Fatal(err)
		}
		ms = append(ms, float64(time.Since(start).Microseconds())/1000)
		conn.Close()
	}
	return ms
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// contextsMiB is the memory the pool's backend holds in its memory
// contexts (the catalog caches among them), as it reports it.
func contextsMiB(tb testing.TB, db *DB) float64 {
	tb.Helper()
	var bytes int64
	if err := db.pool.Get(&bytes, `SELECT sum(total_bytes)::bigint FROM pg_backend_memory_contexts`); err != nil {
		tb.Fatal(err)
	}
	return float64(bytes) / (1 << 20)
}

// privateKiB is the private memory (clean and dirty) of process pid, from
// /proc/<pid>/smaps_rollup; ok is false when it cannot be read.
func privateKiB(pid int) (kib int, ok bool) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0, false
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		field, rest, _ := strings.Cut(s.Text(), ":")
		if field == "Private_Clean" || field == "Private_Dirty" {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			if err != nil {
				return 0, false
			}
			kib += n
			ok = true
		}
	}
	return kib, ok
}
