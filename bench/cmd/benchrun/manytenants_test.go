package main

import (
	"context"
	"database/sql"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"learngate/blob"
	"learngate/handlers"
	"learngate/handlers/httpx"
	"learngate/handlers/ops"
	"learngate/handlers/papi"
	"learngate/handlers/web"
	"learngate/ratelimit"
	"learngate/store/storetest"
	"learngate/tenant"
)

// TestBuildTenantsCreatesRealTenantsThroughTheOpsAPI builds tenants
// through learngate's real ops router (as the many-tenants part does with
// the real binary) and checks that each is a real tenant: a row of
// public.tenants with its schema migrated, whose recorded key and host
// answer GET /papi/users 200 on the real public router; that building
// again up to the same count creates none, and that a further build
// continues the numbering.
func TestBuildTenantsCreatesRealTenantsThroughTheOpsAPI(t *testing.T) {
	gin.SetMode(gin.ReleaseMode)
	ctx := context.Background()
	db, dbURL := storetest.NewDB(t)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	reg := tenant.NewRegistry(db, tenant.Options{BaseDomains: []string{baseDomain}, Logger: logger})
	blobs, err := blob.NewLocal(t.TempDir(), []byte("bench-test-signing-key-0123456789"))
	if err != nil {
		t.Fatal(err)
	}
	srvMetrics := httpx.NewMetrics()
	gate := &httpx.Gate{DB: db, Registry: reg, Metrics: srvMetrics, Logger: logger, AuthFailuresPerMinute: 20, Now: time.Now,
		Limiter: ratelimit.New(ratelimit.NewMemoryStore(time.Now), ratelimit.Options{Window: time.Minute, Logger: logger}),
		Ready:   func(ctx context.Context) error { return db.Ping(ctx) }}
	srv := &handlers.Server{Gate: gate, PublicScheme: "http",
		Web:  web.Deps{Blobs: blobs, PublicScheme: "http", Sessions: db, SAMLReplays: db},
		Ops:  ops.Deps{Tenants: reg, Token: benchOpsToken, Metrics: srvMetrics.Registry},
		Papi: papi.Deps{Blobs: blobs, Downloads: blobs, PublicScheme: "http"}}
	public, err := srv.PublicRouter()
	if err != nil {
		t.Fatal(err)
	}
	publicSrv, opsSrv := httptest.NewServer(public), httptest.NewServer(srv.OpsRouter())
	defer publicSrv.Close()
	defer opsSrv.Close()
	pool, err := sql.Open("postgres", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.ExecContext(ctx, createBuiltTenantsSQL); err != nil {
		t.Fatal(err)
	}
	count := func(query string) int {
		t.Helper()
		var n int
		if err := pool.QueryRowContext(ctx, query).Scan(&n); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		return n
	}
	for _, build := range []struct{ have, upTo int }{{0, 3}, {3, 3}, {3, 5}} {
		if err := buildTenants(ctx, pool, opsSrv.URL, build.have, build.upTo, 2); err != nil {
			t.Fatalf("build %d..%d: %v", build.have+1, build.upTo, err)
		}
		if got := count(`SELECT count(*) FROM public.tenants WHERE slug LIKE 'mt-%'`); got != build.upTo {
			t.Fatalf("after building up to %d: %d tenants", build.upTo, got)
		}
		if got := count(`SELECT count(*) FROM public.bench_manytenants`); got != build.upTo {
			t.Fatalf("after building up to %d: %d recorded", build.upTo, got)
		}
	}
	if got := count(`SELECT count(*) FROM pg_namespace n JOIN public.tenants t ON n.nspname = 'tenant_' || t.id
		JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = 'users' WHERE t.slug LIKE 'mt-%'`); got != 5 {
		t.Fatalf("%d of 5 tenant schemas have a users table", got)
	}
	s := tenantStep{tenants: 5}
	f := &fleet{addr: strings.TrimPrefix(publicSrv.URL, "http://")}
	if err := firstRequests(ctx, pool, f, 5, 200, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.first) != 5 || s.firstErrors != 0 {
		t.Fatalf("first requests: %d answered 200, %d errors (%s)", len(s.first), s.firstErrors, s.firstError)
	}
	p50, n, earlier, err := creationP50(ctx, pool, 5, time.Now().Add(-time.Hour))
	if err != nil || n != 5 || p50 <= 0 || earlier {
		t.Fatalf("creationP50 = %s over %d (earlier %v), %v; want a positive p50 over 5 of this run", p50, n, earlier, err)
	}
	// A wrong key is an error, not a first request.
	if _, err := pool.ExecContext(ctx, `UPDATE public.bench_manytenants SET api_key = 'wrong' WHERE n = 2`); err != nil {
		t.Fatal(err)
	}
	s = tenantStep{tenants: 5}
	if err := firstRequests(ctx, pool, f, 5, 200, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.first) != 4 || s.firstErrors != 1 {
		t.Fatalf("with one wrong key: %d answered 200, %d errors", len(s.first), s.firstErrors)
	}
}

// TestSampleIndexesSpreadOverEveryTenant: every tenant up to the sample's
// size, else that many distinct tenants from the first to near the last.
func TestSampleIndexesSpreadOverEveryTenant(t *testing.T) {
	all := sampleIndexes(100, 200)
	slices.Sort(all)
	if len(all) != 100 || all[0] != 1 || all[99] != 100 || len(slices.Compact(all)) != 100 {
		t.Fatalf("100 tenants, sample 200: %v", all)
	}
	some := sampleIndexes(10_000, 200)
	slices.Sort(some)
	if len(slices.Compact(slices.Clone(some))) != 200 || some[0] != 1 || some[199] < 9_900 || some[199] > 10_000 {
		t.Fatalf("10,000 tenants, sample 200: %d distinct, from %d to %d", len(slices.Compact(some)), some[0], some[len(some)-1])
	}
}

// TestPrivateMemoryLeavesSharedMappingsOut: 32 MiB of this process's heap
// count as private memory; 32 MiB of a shared mapping it alone touched
// (as a backend's share of shared_buffers) do not.
func TestPrivateMemoryLeavesSharedMappingsOut(t *testing.T) {
	before, _, err := privateMemory(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	const size = 32 << 20
	shared, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|syscall.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(shared)
	heap := make([]byte, size)
	for i := 0; i < size; i += 4096 {
		heap[i], shared[i] = 1, 1
	}
	after, rss, err := privateMemory(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	grew := after - before
	if grew < size*9/10 || grew > size*3/2 {
		t.Fatalf("private memory grew by %d bytes after touching %d of heap and %d shared; want about %d (rss %d)",
			grew, size, size, size, rss)
	}
	if heap[size-4096] != 1 {
		t.Fatal("heap not kept")
	}
}
