package store

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"learngate"
)

// BenchmarkCreateTenantScale times the creation of a tenant (its rows,
// schema, goose migrations, sealing pass and activation, as the registry
// does it) with 10 tenants and with 300 in the database, phase by phase,
// and names the migrations that grew most. One run:
// go test -run '^$' -bench CreateTenantScale -benchtime 1x ./store/
func BenchmarkCreateTenantScale(b *testing.B) {
	ctx := context.Background()
	db, err := Open(ctx, ownDatabase(b))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if err := db.MigrateAll(ctx, nil); err != nil {
		b.Fatal(err)
	}
	tenants := 0
	// grow adds tenants up to n, their schemas by MigrateAll.
	grow := func(n int) {
		for ; tenants < n; tenants++ {
			tn, _, err := db.CreateTenant(ctx, NewTenant{Slug: fmt.Sprintf("g%04d", tenants), Name: "T", Timezone: "UTC",
				RateLimitPerMinute: 300}, NewAPIKey{Hash: fmt.Appendf(nil, "hash-g%04d", tenants), Prefix: "lg_g"})
			if err != nil {
				b.Fatal(err)
			}
			if err := db.SetTenantStatus(ctx, tn.ID, learngate.TenantActive); err != nil {
				b.Fatal(err)
			}
		}
		if err := db.MigrateAll(ctx, nil); err != nil {
			b.Fatal(err)
		}
	}
	// create makes one tenant as the registry does and returns the time
	// of each phase and of each migration.
	create := func(db *DB, slug string) (phases map[string]time.Duration, migrations map[string]time.Duration) {
		phases, migrations = map[string]time.Duration{}, map[string]time.Duration{}
		start := time.Now()
		lap := func(name string) { phases[name] = time.Since(start); start = time.Now() }
		tn, _, err := db.CreateTenant(ctx, NewTenant{Slug: slug, Name: "T", Timezone: "UTC", RateLimitPerMinute: 300},
			NewAPIKey{Hash: []byte("hash-" + slug), Prefix: "lg_c"})
		if err != nil {
			b.Fatal(err)
		}
		lap("rows")
		err = db.WithMigrationLock(ctx, func() error {
			lap("lock")
			results, err := db.applyTenantMigrations(ctx, db.migrations, tn.Schema)
			if err != nil {
				return err
			}
			for _, r := range results {
				migrations[r.Source.Path] = r.Duration
			}
			lap("schema and goose")
			if err := db.encryptWebhookSecrets(ctx, tn.Schema); err != nil {
				return err
			}
			if err := db.resealIdempotencyAnswers(ctx, tn.Schema); err != nil {
				return err
			}
			lap("sealing")
			return db.recordTenantSchema(ctx, db.migrations, tn.Schema)
		})
		if err != nil {
			b.Fatal(err)
		}
		if err := db.SetTenantStatus(ctx, tn.ID, learngate.TenantActive); err != nil {
			b.Fatal(err)
		}
		if _, err := db.TenantByID(ctx, tn.ID); err != nil {
			b.Fatal(err)
		}
		lap("record, activate, read")
		tenants++
		return phases, migrations
	}
	// timed runs create and adds the server CPU time it took (every
	// backend of the database, from /proc: less sensitive than wall time
	// to other work on a shared machine) as the phase "server CPU".
	timed := func(db *DB, slug string) (map[string]time.Duration, map[string]time.Duration) {
		before := serverCPU(b, db)
		p, m := create(db, slug)
		p["server CPU"] = serverCPU(b, db) - before
		return p, m
	}
	const runs = 5
	// medianOf creates runs tenants and returns the median of each phase
	// and migration.
	medianOf := func(db *DB, label string) (map[string]time.Duration, map[string]time.Duration) {
		ps, ms := map[string][]time.Duration{}, map[string][]time.Duration{}
		for i := range runs {
			p, m := timed(db, fmt.Sprintf("%s-%d", label, i))
			for k, v := range p {
				ps[k] = append(ps[k], v)
			}
			for k, v := range m {
				ms[k] = append(ms[k], v)
			}
		}
		med := func(in map[string][]time.Duration) map[string]time.Duration {
			out := map[string]time.Duration{}
			for k, v := range in {
				sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
				out[k] = v[len(v)/2]
			}
			return out
		}
		return med(ps), med(ms)
	}
	total := func(p map[string]time.Duration) (t time.Duration) {
		for k, v := range p {
			if k != "server CPU" {
				t += v
			}
		}
		return t
	}

	for b.Loop() {
		grow(10)
		smallP, smallM := medianOf(db, "at10")
		grow(300)
		bigP, bigM := medianOf(db, "at300")
		// The same on new connections, whose backends cached no schema yet.
		fresh, err := Open(ctx, db.url)
		if err != nil {
			b.Fatal(err)
		}
		freshP, _ := medianOf(fresh, "fresh300")
		fresh.Close()
		b.Logf("phase (median of %d)        at 10 tenants   at 300 tenants   at 300, new connections", runs)
		for _, k := range []string{"rows", "lock", "schema and goose", "sealing", "record, activate, read", "server CPU"} {
			b.Logf("%-28s %12v %16v %16v", k, smallP[k].Round(time.Microsecond), bigP[k].Round(time.Microsecond), freshP[k].Round(time.Microsecond))
		}
		b.Logf("%-28s %12v %16v %16v", "total", total(smallP).Round(time.Microsecond), total(bigP).Round(time.Microsecond), total(freshP).Round(time.Microsecond))
		var names []string
		for k := range bigM {
			names = append(names, k)
		}
		sort.Slice(names, func(i, j int) bool { return bigM[names[i]]-smallM[names[i]] > bigM[names[j]]-smallM[names[j]] })
		for _, k := range names[:min(4, len(names))] {
			b.Logf("migration %-40s %10v %12v", k, smallM[k].Round(time.Microsecond), bigM[k].Round(time.Microsecond))
		}
		b.ReportMetric(float64(total(smallP).Microseconds())/1000, "ms/create@10")
		b.ReportMetric(float64(total(bigP).Microseconds())/1000, "ms/create@300")
		b.ReportMetric(float64(total(freshP).Microseconds())/1000, "ms/create@300-new-conns")
		b.ReportMetric(float64(smallP["server CPU"].Milliseconds()), "cpu-ms/create@10")
		b.ReportMetric(float64(bigP["server CPU"].Milliseconds()), "cpu-ms/create@300")
	}
}

// serverCPU is the CPU time (user and system) the backends of db's
// database have used so far, read from /proc/<pid>/stat (clock ticks of
// 10 ms); zero where /proc cannot be read.
func serverCPU(tb testing.TB, db *DB) time.Duration {
	tb.Helper()
	var pids []int
	if err := db.pool.Select(&pids, `SELECT pid FROM pg_stat_activity WHERE datname = current_database()`); err != nil {
		tb.Fatal(err)
	}
	var ticks int64
	for _, pid := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// Fields after the command's closing parenthesis; utime and stime
		// are the 14th and 15th fields of the line.
		rest := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		for _, f := range rest[11:13] {
			n, _ := strconv.ParseInt(f, 10, 64)
			ticks += n
		}
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}
