//go:build slow

package store_test

import (
	"context"
	"fmt"
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
