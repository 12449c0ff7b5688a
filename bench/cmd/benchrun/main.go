// Command benchrun is `make bench`'s harness (docs/performance.md): it
// builds or reuses the benchmark dataset, starts the real learngate binary
// and the baseline, checks that both answer the same bytes, measures them
// side by side in interleaved rounds, measures the scale curves, and
// prints markdown tables. Progress goes to stderr.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"learngate/bench/datagen"
	"learngate/store"
	"learngate/tenant"
)

// options are the run's settings.
type options struct {
	quick                     bool
	adminURL, redisURL, out   string
	concurrency, rounds       int
	warmup, duration          time.Duration
	curveDuration             time.Duration
	schemaSteps               []int
	schemaMain, schemaFillers int
	skipSchemas               bool
	buildOnly                 bool
	skipSideBySide            bool
	skipPages, skipWalks      bool
	skipConcurrency           bool
	cellRequests              int
	cellTime, concDuration    time.Duration
	images                    string
	only                      map[string]bool // parts to run (-only); empty: all but manytenants
	// The many-tenants part (-only manytenants).
	tenantSteps  []int
	creators     int
	creationAB   int
	tenantsDB    string
	firstSample  int
	quietMinute  time.Duration
	quietSettle  time.Duration
	tenantsFresh bool
	// The list A/B part (-only listab): the learngate binary built from an
	// earlier commit, and the tenants measured.
	before    string
	abTenants []string
}

// runs says whether part (sides, writes, chain, schemas, pages, walks,
// concurrency, manytenants, listab) is to run. The many-tenants part runs
// only when named: at 10,000 tenants it takes well over an hour; so does
// the list A/B part, which needs -before.
func (o options) runs(part string) bool {
	return o.only[part] || (len(o.only) == 0 && part != "manytenants" && part != "listab")
}

// mainParts are the parts that measure the main dataset.
var mainParts = []string{"sides", "writes", "chain", "pages", "walks", "concurrency", "listab"}

// baselineParts are the parts that start the baseline (bench/baseline):
// the baseline is built only when one of them runs.
var baselineParts = []string{"sides", "writes", "chain", "pages", "walks", "concurrency"}

func main() {
	o := options{}
	flag.BoolVar(&o.quick, "quick", false, "small smoke dataset and short rounds (noisy figures)")
	flag.StringVar(&o.adminURL, "db", envOr("LEARNGATE_TEST_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"),
		"URL of a PostgreSQL database the run may create databases from")
	flag.StringVar(&o.redisURL, "redis", "redis://127.0.0.1:"+envOr("LEARNGATE_REDIS_PORT", "6379")+"/14",
		"Redis of the learngate under test (its limiter)")
	flag.StringVar(&o.out, "out", "", "also write the tables to this file")
	flag.IntVar(&o.concurrency, "concurrency", 4, "concurrent requests of the side-by-side scenarios")
	flag.IntVar(&o.rounds, "rounds", 0, "interleaved rounds per side (default 3, quick 2)")
	flag.DurationVar(&o.duration, "duration", 0, "measured time of one round (default 5s, quick 1s)")
	flag.BoolVar(&o.skipSchemas, "skip-schemas", false, "skip the number-of-schemas curve")
	flag.BoolVar(&o.buildOnly, "build-only", false, "build (or reuse) the main dataset, print its build time and size, and stop")
	flag.BoolVar(&o.skipSideBySide, "skip-side-by-side", false, "skip the side-by-side scenarios")
	flag.BoolVar(&o.skipPages, "skip-pages", false, "skip the page-number table")
	flag.BoolVar(&o.skipWalks, "skip-walks", false, "skip the cursor walks")
	flag.BoolVar(&o.skipConcurrency, "skip-concurrency", false, "skip the concurrency curve")
	flag.IntVar(&o.cellRequests, "cell-requests", 0, "most requests per side of a page-table cell (default 30, quick 10)")
	flag.DurationVar(&o.cellTime, "cell-time", 0, "most time per side of a page-table cell (default 3s, quick 1s)")
	flag.DurationVar(&o.concDuration, "conc-duration", 0, "measured time of one concurrency-curve step (default 3s, quick 1s)")
	flag.StringVar(&o.images, "images", "", "folder of the SVG charts (default docs/images; quick .data/bench-images)")
	steps := flag.String("schemas", "", "numbers of schemas of the schema curve (default 10,100,1000; quick 10,30)")
	only := flag.String("only", "", "run only these parts, comma-separated: sides (side-by-side table and tenant-size curve), writes, chain, schemas, pages, walks, concurrency, manytenants (never run by default), listab (never run by default; needs -before)")
	flag.StringVar(&o.before, "before", "", "list A/B (-only listab): a learngate binary built from an earlier commit, served beside this tree's "+
		"learngate on the same dataset; every list query's page 1, middle and last page and the cursor walks are measured on both, alternating")
	abTenants := flag.String("ab-tenants", datagen.MidSlug+","+datagen.HugeSlug, "list A/B: the dataset's tenants measured, comma-separated slugs")
	tenantSteps := flag.String("tenants", "10,100,1000,10000", "numbers of tenants of the many-tenants part")
	flag.IntVar(&o.creators, "creators", 4, "many tenants: concurrent tenant creations")
	flag.IntVar(&o.creationAB, "creation-pairs", 12, "many tenants: creations side by side with a 10-tenant database at each step (0: none)")
	flag.IntVar(&o.firstSample, "first-sample", 200, "many tenants: most tenants whose first request is measured at a step")
	flag.DurationVar(&o.quietMinute, "quiet-minute", time.Minute, "many tenants: span without traffic whose CPU is measured (figures scaled to a minute)")
	flag.DurationVar(&o.quietSettle, "quiet-settle", 2*time.Second, "many tenants: wait after serve and worker start before the quiet minute")
	flag.StringVar(&o.tenantsDB, "tenants-db", manyTenantsDB, "many tenants: the part's own database (dropped by -tenants-fresh)")
	flag.BoolVar(&o.tenantsFresh, "tenants-fresh", false, "many tenants: drop the -tenants-db database first, so that every step is measured")
	flag.Parse()
	for _, part := range strings.Split(*only, ",") {
		switch part = strings.TrimSpace(part); part {
		case "":
		case "sides", "writes", "chain", "schemas", "pages", "walks", "concurrency", "manytenants", "listab":
			if o.only == nil {
				o.only = map[string]bool{}
			}
			o.only[part] = true
		default:
			fmt.Fprintf(os.Stderr, "benchrun: -only: unknown part %q (sides, writes, chain, schemas, pages, walks, concurrency, manytenants, listab)\n", part)
			os.Exit(2)
		}
	}
	o.defaults()
	if *steps != "" {
		o.schemaSteps = counts("schemas", *steps)
	}
	o.tenantSteps = counts("tenants", *tenantSteps)
	if o.creators < 1 || o.firstSample < 1 || o.quietMinute <= 0 {
		fmt.Fprintln(os.Stderr, "benchrun: -creators and -first-sample must be at least 1, -quiet-minute positive")
		os.Exit(2)
	}
	if !regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`).MatchString(o.tenantsDB) || o.creationAB < 0 {
		fmt.Fprintln(os.Stderr, "benchrun: -tenants-db must be a plain database name (a-z, 0-9, _), -creation-pairs at least 0")
		os.Exit(2)
	}
	if o.runs("listab") {
		if err := o.listABFlags(*abTenants); err != nil {
			fmt.Fprintln(os.Stderr, "benchrun:", err)
			os.Exit(2)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "benchrun:", err)
		os.Exit(1)
	}
}

// counts parses flag name's comma-separated positive numbers, or exits.
func counts(name, list string) []int {
	var ns []int
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "benchrun: -%s: %q is not a positive number\n", name, f)
			os.Exit(2)
		}
		ns = append(ns, n)
	}
	return ns
}

func (o *options) defaults() {
	o.warmup, o.curveDuration = time.Second, 3*time.Second
	o.schemaSteps, o.schemaMain, o.schemaFillers = []int{10, 100, 1000}, 50_000, 100
	if o.quick {
		o.warmup, o.curveDuration = 300*time.Millisecond, time.Second
		o.schemaSteps, o.schemaMain, o.schemaFillers = []int{10, 30}, 5_000, 50
	}
	if o.cellRequests <= 0 {
		o.cellRequests = map[bool]int{false: 30, true: 10}[o.quick]
	}
	if o.cellTime <= 0 {
		o.cellTime = map[bool]time.Duration{false: 3 * time.Second, true: time.Second}[o.quick]
	}
	if o.concDuration <= 0 {
		o.concDuration = map[bool]time.Duration{false: 3 * time.Second, true: time.Second}[o.quick]
	}
	if o.images == "" {
		o.images = map[bool]string{false: "docs/images", true: ".data/bench-images"}[o.quick]
	}
	if o.rounds <= 0 {
		o.rounds = map[bool]int{false: 3, true: 2}[o.quick]
	}
	if o.duration <= 0 {
		o.duration = map[bool]time.Duration{false: 5 * time.Second, true: time.Second}[o.quick]
	}
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

func run(ctx context.Context, o options) error {
	began := time.Now()
	// The run works from the repository root (its .data/, the servers'
	// working directory), wherever in the bench module it was started.
	root, err := repoRoot()
	if err != nil {
		return err
	}
	if err := os.Chdir(root); err != nil {
		return err
	}
	needMain := o.buildOnly || slices.ContainsFunc(mainParts, o.runs)
	var (
		spec    datagen.Spec
		tenants []datagen.Tenant
		dbURL   string
	)
	if needMain {
		dbName := "learngate_bench"
		spec = datagen.DefaultSpec()
		if o.quick {
			spec, dbName = datagen.QuickSpec(), "learngate_bench_quick"
		}
		if dbURL, err = databaseURL(o.adminURL, dbName); err != nil {
			return err
		}
		progress("dataset: database %s, %d tenants", dbName, len(spec.Tenants))
		if tenants, err = ensureDataset(ctx, o.adminURL, dbName, dbURL, spec); err != nil {
			return err
		}
		if o.buildOnly {
			size, err := databaseSize(ctx, o.adminURL, dbName)
			if err != nil {
				return err
			}
			progress("dataset: %s ready, %d tenants, %s on disk, after %s", dbName, len(tenants), size,
				time.Since(began).Round(time.Second))
			return nil
		}
	}
	withBaseline := slices.ContainsFunc(baselineParts, o.runs)
	progress("build: learngate%s", map[bool]string{true: " and the baseline"}[withBaseline])
	lgBin, blBin, err := buildServers(ctx, root, filepath.Join(root, ".data", "bin"), withBaseline)
	if err != nil {
		return err
	}

	report := &report{o: o, spec: spec}
	if o.runs("sides") || o.runs("pages") || o.runs("walks") || o.runs("concurrency") {
		if err := sideBySideAndSizes(ctx, o, report, tenants, dbURL, lgBin, blBin); err != nil {
			return err
		}
	}
	if o.runs("writes") {
		if err := runWrites(ctx, o, report, tenants, dbURL, lgBin, blBin); err != nil {
			return err
		}
	}
	if o.runs("chain") {
		if err := runChain(ctx, o, report, tenants, dbURL, lgBin, blBin); err != nil {
			return err
		}
	}
	if !o.skipSchemas && o.runs("schemas") {
		if err := schemaCurve(ctx, o, report, lgBin); err != nil {
			return err
		}
	}
	if o.runs("manytenants") {
		if err := manyTenants(ctx, o, report, lgBin); err != nil {
			return err
		}
	}
	if o.runs("listab") {
		if err := listAB(ctx, o, report, tenants, dbURL, lgBin); err != nil {
			return err
		}
	}
	report.elapsed = time.Since(began)
	return report.write(os.Stdout, o.out)
}

// ensureDataset reuses or builds spec in database dbName; a database that
// holds another spec is dropped and rebuilt.
func ensureDataset(ctx context.Context, adminURL, dbName, dbURL string, spec datagen.Spec) ([]datagen.Tenant, error) {
	for attempt := 0; ; attempt++ {
		if err := createDatabase(ctx, adminURL, dbName, attempt > 0); err != nil {
			return nil, err
		}
		ts, err := openAndEnsure(ctx, dbURL, spec)
		if errors.Is(err, datagen.ErrOtherSpec) && attempt == 0 {
			progress("dataset: %s holds another spec; rebuilding it", dbName)
			continue
		}
		return ts, err
	}
}

func openAndEnsure(ctx context.Context, dbURL string, spec datagen.Spec) ([]datagen.Tenant, error) {
	db, reg, err := openRegistry(ctx, dbURL)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	tenants, err := datagen.Ensure(ctx, db, reg, spec, progressWriter{})
	if err != nil {
		return nil, err
	}
	return tenants, maintainRanks(ctx, db, tenants)
}

// maintainRanks runs, once for every tenant, the step of the worker's
// periodic user_rank job (store.MaintainListRanks: the rank anchors of the
// users, topic enrolment, pathway enrolment and external knowledge lists),
// as a deployment's worker does within a minute of an import; serve alone
// never runs it.
func maintainRanks(ctx context.Context, db *store.DB, tenants []datagen.Tenant) error {
	began := time.Now()
	for _, t := range tenants {
		tdb, err := db.Tenant(t.Schema)
		if err != nil {
			return err
		}
		if _, err := store.MaintainListRanks(ctx, tdb); err != nil {
			return fmt.Errorf("list ranks of %s: %w", t.Slug, err)
		}
	}
	progress("dataset: list rank anchors of %d tenants maintained in %s", len(tenants), time.Since(began).Round(time.Millisecond))
	return nil
}

// openRegistry opens and migrates the database and returns a registry over it.
func openRegistry(ctx context.Context, dbURL string) (*store.DB, *tenant.Registry, error) {
	db, err := store.Open(ctx, dbURL)
	if err != nil {
		return nil, nil, err
	}
	if err := db.MigrateAll(ctx, nil); err != nil {
		db.Close()
		return nil, nil, err
	}
	// A migration may rewrite a table (a stored generated column does),
	// which clears its visibility map and statistics. A deployment's
	// autovacuum restores both within minutes; this machine runs without
	// it, so the run does it once before measuring (quick on tables that
	// are already all-visible).
	began := time.Now()
	if _, err := db.Pool().ExecContext(ctx, `VACUUM (ANALYZE)`); err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("vacuum after migrating: %w", err)
	}
	progress("dataset: VACUUM (ANALYZE) after migrating in %s", time.Since(began).Round(time.Millisecond))
	reg := tenant.NewRegistry(db, tenant.Options{BaseDomains: []string{baseDomain},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	return db, reg, nil
}

// progressWriter prefixes datagen's lines like progress.
type progressWriter struct{}

func (progressWriter) Write(p []byte) (int, error) {
	progress("%s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// runID tells this run's batch-written names from earlier runs'.
func runID() string { return strconv.FormatInt(time.Now().Unix(), 36) }
