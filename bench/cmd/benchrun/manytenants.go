package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"
)

// manyTenantsDB is the database of the many-tenants part: its own, so the
// part never touches other data. A later run reuses it (see manyTenants).
const manyTenantsDB = "learngate_bench_tenants" // the default of -tenants-db

// tenantStep is what the many-tenants part measured at one number of
// tenants (docs/performance.md, "Many tenants").
type tenantStep struct {
	tenants int
	// skipped says why the step was not measured ("" when it was).
	skipped string
	// Creation: p50 of the last (up to creationWindow) tenants created
	// up to the step; earlier says some were created by an earlier run.
	createP50 time.Duration
	created   int
	earlier   bool
	// Creation side by side (creationSideBySide): p50 at the step and in
	// the reference database of 10 tenants; zero when not measured.
	sideMany, sideTen time.Duration
	// First request of each sampled tenant after a restart of the server.
	first        []time.Duration
	firstErrors  int
	firstError   string
	migrate      time.Duration
	migrateError string
	quiet        quietCPU
	mem          backendMemory
	dbSize       int64
	relations    int
}

// creationWindow is how many of the last tenants created before a step
// give its creation p50.
const creationWindow = 50

// manyTenants runs the many-tenants part: on database o.tenantsDB, with
// the real learngate serve and worker on 127.0.0.1, it builds tenants up
// to each step of o.tenantSteps through the ops API and measures each step.
// The database is reused: a step below the number of tenants it already
// holds cannot be measured (a tenant is never deleted to go down) and is
// reported as skipped, unless -tenants-fresh drops the database first.
func manyTenants(ctx context.Context, o options, rep *report, lgBin string) error {
	dbURL, err := databaseURL(o.adminURL, o.tenantsDB)
	if err != nil {
		return err
	}
	began := time.Now()
	var db *sql.DB
	for attempt := 0; ; attempt++ {
		db, err = openTenantsDB(ctx, o, lgBin, dbURL, o.tenantsFresh || attempt > 0)
		if !errors.Is(err, errTenantsDisagree) || attempt > 0 {
			break
		}
		progress("many tenants: %v; dropping %s and building it again", err, o.tenantsDB)
	}
	if err != nil {
		return err
	}
	defer db.Close()
	have, err := builtTenants(ctx, db)
	if err != nil {
		return err
	}
	progress("many tenants: database %s holds %d tenants", o.tenantsDB, have)
	env := func(addr, opsAddr string) []string {
		return append(learngateEnv(dbURL, o.redisURL, addr, opsAddr), "LEARNGATE_BLOB_DIR=.data/bench-tenants-blobs")
	}
	f, err := startFleet(lgBin, env)
	if err != nil {
		return err
	}
	defer func() { f.stop() }()
	steps := slices.Clone(o.tenantSteps)
	slices.Sort(steps)
	for _, step := range slices.Compact(steps) {
		if step < have {
			rep.tenants = append(rep.tenants, tenantStep{tenants: step, skipped: fmt.Sprintf(
				"the database holds %d tenants already (-tenants-fresh builds it again)", have)})
			continue
		}
		if err := buildTenants(ctx, db, "http://"+f.opsAddr, have, step, o.creators); err != nil {
			return err
		}
		have = step
		s, next, err := measureStep(ctx, o, db, f, lgBin, env, dbURL, step, began)
		f = next
		if err != nil {
			return err
		}
		rep.tenants = append(rep.tenants, s)
	}
	return nil
}

// openTenantsDB creates (fresh: drops first) and migrates o.tenantsDB
// with `learngate migrate`, adds the harness's table of the tenants it
// built, and checks that the two agree: a run stopped between a tenant's
// creation and its row leaves a tenant whose key is lost, and an error.
func openTenantsDB(ctx context.Context, o options, lgBin, dbURL string, fresh bool) (*sql.DB, error) {
	if err := createDatabase(ctx, o.adminURL, o.tenantsDB, fresh); err != nil {
		return nil, err
	}
	if _, err := runMigrate(ctx, lgBin, learngateEnv(dbURL, o.redisURL, "127.0.0.1:0", "127.0.0.1:0")); err != nil {
		return nil, err
	}
	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		return nil, err
	}
	if _, err := db.ExecContext(ctx, createBuiltTenantsSQL); err != nil {
		db.Close()
		return nil, fmt.Errorf("bench_manytenants: %w", err)
	}
	var tenants, rows, top int
	// The side-by-side creation's tenants (sideBySidePrefix) are not the
	// build's: a run stopped before deleting them leaves them behind.
	err = db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM public.tenants WHERE slug NOT LIKE '`+sideBySidePrefix+`%'),
		(SELECT count(*) FROM public.bench_manytenants), (SELECT coalesce(max(n), 0) FROM public.bench_manytenants)`).
		Scan(&tenants, &rows, &top)
	if err == nil && (tenants != rows || rows != top) {
		err = fmt.Errorf("%w: %d tenants, %d built by the harness (numbered up to %d)", errTenantsDisagree, tenants, rows, top)
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// errTenantsDisagree is a database whose tenants are not those the
// harness recorded.
var errTenantsDisagree = errors.New("the tenants and the harness's record of them disagree")

// createBuiltTenantsSQL is the harness's record of the tenants it built:
// their API keys in clear (benchmark data only) and how long each
// creation took.
const createBuiltTenantsSQL = `CREATE TABLE IF NOT EXISTS public.bench_manytenants (
	n          int PRIMARY KEY,
	slug       text NOT NULL UNIQUE,
	api_key    text NOT NULL,
	created_at timestamptz NOT NULL,
	create_ms  double precision NOT NULL
)`

// builtTenants is how many tenants the harness built in db.
func builtTenants(ctx context.Context, db *sql.DB) (int, error) {
	var n int
	err := db.QueryRowContext(ctx, `SELECT count(*) FROM public.bench_manytenants`).Scan(&n)
	return n, err
}

// tenantSlug is the slug of the n-th built tenant.
func tenantSlug(n int) string { return fmt.Sprintf("mt-%05d", n) }

// builtTenant is one tenant of bench_manytenants.
type builtTenant struct {
	n         int
	slug, key string
}

// sampleTenants reads the tenants numbered ns.
func sampleTenants(ctx context.Context, db *sql.DB, ns []int) ([]builtTenant, error) {
	rows, err := db.QueryContext(ctx, `SELECT n, slug, api_key FROM public.bench_manytenants WHERE n = ANY($1::int[])`,
		intArray(ns))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byN := map[int]builtTenant{}
	for rows.Next() {
		var t builtTenant
		if err := rows.Scan(&t.n, &t.slug, &t.key); err != nil {
			return nil, err
		}
		byN[t.n] = t
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]builtTenant, 0, len(ns))
	for _, n := range ns {
		t, ok := byN[n]
		if !ok {
			return nil, fmt.Errorf("tenant %d not built", n)
		}
		out = append(out, t)
	}
	return out, nil
}

// intArray is ns as a PostgreSQL array literal.
func intArray(ns []int) string {
	b := []byte("{")
	for i, n := range ns {
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, "%d", n)
	}
	return string(append(b, '}'))
}

// creationP50 is the p50 creation time of the last creationWindow
// tenants numbered up to step, how many there were, and whether some were
// created before since.
func creationP50(ctx context.Context, db *sql.DB, step int, since time.Time) (time.Duration, int, bool, error) {
	rows, err := db.QueryContext(ctx, `SELECT create_ms, created_at FROM public.bench_manytenants
		WHERE n <= $1 ORDER BY n DESC LIMIT $2`, step, creationWindow)
	if err != nil {
		return 0, 0, false, err
	}
	defer rows.Close()
	var ds []time.Duration
	earlier := false
	for rows.Next() {
		var ms float64
		var at time.Time
		if err := rows.Scan(&ms, &at); err != nil {
			return 0, 0, false, err
		}
		ds = append(ds, time.Duration(ms*float64(time.Millisecond)))
		earlier = earlier || at.Before(since)
	}
	p50, _ := percentiles(ds)
	return p50, len(ds), earlier, rows.Err()
}
