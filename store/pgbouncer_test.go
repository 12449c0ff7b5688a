//go:build slow

package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"learngate/store"
	"learngate/store/storetest"
)

// TestThroughPgBouncer runs the store through a real PgBouncer in
// transaction pooling mode with no direct URL: migrations (shared schema,
// job tables and two tenant schemas, under the migration lock) and
// parameterised queries outside a transaction from many goroutines, each of
// which must get its own parameters' answer. lib/pq's default sends such a
// query in two round trips (Parse/Bind, then Execute), which PgBouncer may
// give to two server connections (docs/decisions.md, "Through PgBouncer").
func TestThroughPgBouncer(t *testing.T) {
	ctx := context.Background()
	direct := storetest.NewDatabase(t)
	db, err := store.Open(ctx, storetest.StartPgBouncer(t, direct))
	if err != nil {
		t.Fatalf("open through PgBouncer: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.MigrateAll(ctx, nil); err != nil {
		t.Fatalf("migrate through PgBouncer: %v", err)
	}
	acme, _, _ := createTenant(t, db, "acme")
	globex, _, _ := createTenant(t, db, "globex")
	// Once tenants exist, migrating again walks their schemas too.
	if err := db.MigrateAll(ctx, nil); err != nil {
		t.Fatalf("migrate again through PgBouncer: %v", err)
	}
	for _, schema := range []string{acme.Schema, globex.Schema} {
		var n int
		if err := db.Pool().GetContext(ctx, &n, `SELECT count(*) FROM information_schema.tables
			WHERE table_schema = $1 AND table_name = 'users'`, schema); err != nil || n != 1 {
			t.Fatalf("%s.users: %d tables, %v", schema, n, err)
		}
	}

	// Queries of different shapes and parameter counts at once: with two
	// round trips, one query's Bind meets another's statement.
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 150 {
				want := fmt.Sprintf("%d-%d", g, i)
				var got string
				var err error
				if g%2 == 0 {
					err = db.Pool().GetContext(ctx, &got, `SELECT $1::text`, want)
				} else {
					err = db.Pool().GetContext(ctx, &got, `SELECT $1::text || '-' || $2::int || $3::text`,
						fmt.Sprint(g), i, "")
				}
				if err != nil || got != want {
					errs <- fmt.Errorf("goroutine %d query %d: %q, %v; want %q", g, i, got, err, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
