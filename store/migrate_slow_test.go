//go:build slow

package store_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"learngate"
	"learngate/store"
	"learngate/store/storetest"
)

func TestMigrateAll200Tenants(t *testing.T) {
	if testing.Short() {
		t.Skip("200 tenant schemas: not in -short")
	}
	t.Parallel()
	const n = 200
	ctx := context.Background()
	db, _ := storetest.NewDB(t)

	// The rows, four at a time; MigrateAll then creates every schema.
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	slugs := make(chan string)
	for range 4 {
		wg.Go(func() {
			for slug := range slugs {
				tn, _, err := db.CreateTenant(ctx, store.NewTenant{Slug: slug, Name: "T", Timezone: "UTC", RateLimitPerMinute: 300}, newKey())
				if err == nil {
					err = db.SetTenantStatus(ctx, tn.ID, learngate.TenantActive)
				}
				if err != nil {
					errs <- fmt.Errorf("tenant %s: %w", slug, err)
				}
			}
		})
	}
	for i := range n {
		slugs <- fmt.Sprintf("t%03d", i)
	}
	close(slugs)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	rowsTook := time.Since(start)

	start = time.Now()
	var lastDone, lastTotal int
	err := db.MigrateAll(ctx, func(done, total int, _ string) { lastDone, lastTotal = done, total })
	if err != nil {
		t.Fatalf("MigrateAll: %v", err)
	}
	migrateTook := time.Since(start)
	t.Logf("%d tenants: rows in %v, schemas by one MigrateAll in %v (%v per schema)",
		n, rowsTook.Round(time.Millisecond), migrateTook.Round(time.Millisecond), (migrateTook / n).Round(time.Microsecond))
	if lastDone != n || lastTotal != n {
		t.Errorf("last progress %d/%d, want %d/%d", lastDone, lastTotal, n, n)
	}

	state := snapshot(t, db)
	if len(state.tables) != n+1 {
		t.Fatalf("%d schemas, want public and %d tenants", len(state.tables), n)
	}
	assertSameTenantTables(t, state)
}

func TestMigrateAllConcurrently(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := storetest.NewDatabase(t)
	nodes := make([]*store.DB, 2)
	for i := range nodes {
		db, err := store.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		nodes[i] = db
	}
	migrateOnAllNodes := func(t *testing.T) {
		t.Helper()
		var wg sync.WaitGroup
		errs := make([]error, len(nodes))
		ready := make(chan struct{})
		for i, db := range nodes {
			wg.Go(func() {
				<-ready
				errs[i] = db.MigrateAll(ctx, nil)
			})
		}
		close(ready)
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("MigrateAll on node %d: %v", i, err)
			}
		}
	}

	// An empty database: both nodes race to create the shared schema.
	migrateOnAllNodes(t)
	if got := tableNames(t, nodes[0], "public"); !hasAll(got, sharedTables) {
		t.Fatalf("tables of public = %v, want at least %v", got, sharedTables)
	}

	// Tenants registered but without schemas: both nodes race to create them.
	const n = 20
	for i := range n {
		tn, _, err := nodes[0].CreateTenant(ctx, store.NewTenant{
			Slug: fmt.Sprintf("t%03d", i), Name: "T", Timezone: "UTC", RateLimitPerMinute: 300,
		}, newKey())
		if err != nil {
			t.Fatal(err)
		}
		if err := nodes[0].SetTenantStatus(ctx, tn.ID, learngate.TenantActive); err != nil {
			t.Fatal(err)
		}
	}
	migrateOnAllNodes(t)

	state := snapshot(t, nodes[0])
	if len(state.tables) != n+1 {
		t.Fatalf("%d schemas, want public and %d tenants", len(state.tables), n)
	}
	assertSameTenantTables(t, state)
}

// assertSameTenantTables checks that every tenant schema has the tenant
// tables, the same set in each, and each migration recorded once.
func assertSameTenantTables(t *testing.T, state migrationState) {
	t.Helper()
	wantApplied := tenantMigrationCount(t)
	var first []string
	for schema, tables := range state.tables {
		if schema == "public" {
			continue
		}
		if first == nil {
			first = tables
			if !hasAll(first, tenantTables) {
				t.Fatalf("tables of %s = %v, want at least %v", schema, first, tenantTables)
			}
		}
		if !slices.Equal(tables, first) {
			t.Errorf("tables of %s = %v, another tenant has %v", schema, tables, first)
		}
		applied := 0
		for _, r := range state.goose[schema] {
			if r.VersionID > 0 && r.IsApplied {
				applied++
			}
		}
		if applied != wantApplied {
			t.Errorf("%s records %d applied migrations, want %d (each exactly once)", schema, applied, wantApplied)
		}
	}
}
