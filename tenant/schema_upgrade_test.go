package tenant

import (
	"context"
	"testing"

	"learngate"
	"learngate/store"
	"learngate/store/storetest"
)

// oldBinaryVersion is the last tenant migration of the release before
// tenant migrations 00020-00024 (commit bb18b49, issue 31's upgrade).
const oldBinaryVersion = 19

// TestResolveBringsAnOlderNodesTenantUp stands for a rolling upgrade: an
// older node creates a tenant with its own, older, migrations (and no
// record of its version); the first request for it on this node brings its
// schema to this binary's last migration before the tenant is served, and
// records it. A tenant already at the version is not migrated again.
func TestResolveBringsAnOlderNodesTenantUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, db, _ := newTestRegistry(t, Options{})
	storetest.DropSpareSchemas(t, db) // older's schema is made by older migrations, below
	current, _, err := r.Create(ctx, NewTenantInput{Slug: "current"})
	if err != nil {
		t.Fatal(err)
	}

	// "older" made as the older node would: rows, its migrations only, active.
	_, key, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	older, _, err := db.CreateTenant(ctx, store.NewTenant{Slug: "older", Name: "Older", Timezone: "UTC", RateLimitPerMinute: 300}, key)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.MigrateTenantTo(ctx, older.Schema, oldBinaryVersion); err != nil {
		t.Fatal(err)
	}
	if err := db.SetTenantStatus(ctx, older.ID, learngate.TenantActive); err != nil {
		t.Fatal(err)
	}
	if has := hasColumn(t, db, older.Schema, "user_custom_values", "user_created_at"); has {
		t.Fatal("the older node's schema already has user_custom_values.user_created_at (migration 00021)")
	}
	behind, err := db.TenantSchemaBehind(ctx, older.ID)
	if err != nil || !behind {
		t.Fatalf("TenantSchemaBehind(older) = %v, %v; want true", behind, err)
	}

	got, err := r.Resolve(ctx, "older.learngate.localhost")
	if err != nil {
		t.Fatalf("Resolve(older): %v", err)
	}
	if got.ID != older.ID {
		t.Fatalf("Resolve(older) = tenant %d, want %d", got.ID, older.ID)
	}
	if !hasColumn(t, db, older.Schema, "user_custom_values", "user_created_at") {
		t.Error("after its first request the older node's tenant still lacks migration 00021")
	}
	if v, want := schemaVersion(t, db, older.Schema), schemaVersion(t, db, current.Schema); v != want {
		t.Errorf("older's schema is at %d after its first request, want %d (the current tenant's)", v, want)
	}
	if behind, err := db.TenantSchemaBehind(ctx, older.ID); err != nil || behind {
		t.Errorf("TenantSchemaBehind(older) after = %v, %v; want false (recorded)", behind, err)
	}

	// The tenant created by this node is at the version already: its
	// lookup migrates nothing (goose's version table gains no row).
	before := count(t, db, `SELECT count(*) FROM `+current.Schema+`.goose_db_version`)
	if _, err := r.Resolve(ctx, "current.learngate.localhost"); err != nil {
		t.Fatalf("Resolve(current): %v", err)
	}
	if after := count(t, db, `SELECT count(*) FROM `+current.Schema+`.goose_db_version`); after != before {
		t.Errorf("current's goose_db_version went from %d to %d rows on a lookup", before, after)
	}
}

// hasColumn reports whether schema.table has column.
func hasColumn(t *testing.T, db *store.DB, schema, table, column string) bool {
	t.Helper()
	return count(t, db, `SELECT count(*) FROM information_schema.columns
		WHERE table_schema = $1 AND table_name = $2 AND column_name = $3`, schema, table, column) == 1
}

// schemaVersion is the highest applied goose version of schema.
func schemaVersion(t *testing.T, db *store.DB, schema string) int {
	t.Helper()
	return count(t, db, `SELECT max(version_id) FROM `+schema+`.goose_db_version WHERE is_applied`)
}

// count runs a query of one integer.
func count(t *testing.T, db *store.DB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := db.Pool().Get(&n, q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}
