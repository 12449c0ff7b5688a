package store_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"learngate/store"
	"learngate/store/storetest"
)

// The tables each schema must have; later migrations may add more.
var (
	sharedTables = []string{"api_keys", "goose_db_version", "registry_generation", "tenant_domains", "tenants"}
	tenantTables = []string{"categories", "goals", "goose_db_version", "groups", "roles", "skills"}
)

// hasAll reports whether got holds every name of want.
func hasAll(got, want []string) bool {
	for _, w := range want {
		if !slices.Contains(got, w) {
			return false
		}
	}
	return true
}

// gooseRow is one row of a goose version table.
type gooseRow struct {
	ID        int64     `db:"id"`
	VersionID int64     `db:"version_id"`
	IsApplied bool      `db:"is_applied"`
	Tstamp    time.Time `db:"tstamp"`
}

// migrationState is what a migration run can change: every schema's goose
// rows and the tables of every schema.
type migrationState struct {
	goose  map[string][]gooseRow
	tables map[string][]string
}

func snapshot(tb testing.TB, db *store.DB) migrationState {
	tb.Helper()
	var rows []struct {
		Schema string `db:"schema"`
		Table  string `db:"table"`
	}
	err := db.Pool().Select(&rows, `SELECT n.nspname AS schema, coalesce(c.relname, '') AS table
		FROM pg_namespace n LEFT JOIN pg_class c ON c.relnamespace = n.oid AND c.relkind = 'r'
		WHERE n.nspname = 'public' OR n.nspname LIKE 'tenant\_%'
		ORDER BY 1, 2`)
	if err != nil {
		tb.Fatalf("list tables: %v", err)
	}
	s := migrationState{goose: map[string][]gooseRow{}, tables: map[string][]string{}}
	for _, r := range rows {
		if s.tables[r.Schema] == nil {
			s.tables[r.Schema] = []string{}
		}
		if r.Table != "" {
			s.tables[r.Schema] = append(s.tables[r.Schema], r.Table)
		}
	}
	for schema := range s.tables {
		var rows []gooseRow
		if err := db.Pool().Select(&rows, `SELECT id, version_id, is_applied, tstamp FROM `+schema+`.goose_db_version ORDER BY id`); err != nil {
			tb.Fatalf("read %s.goose_db_version: %v", schema, err)
		}
		s.goose[schema] = rows
	}
	return s
}

// tenantMigrationLatest is the highest version of the tenant migrations,
// the SQL ones and the online ones in Go (numbers reserved for work in
// progress may be missing).
func tenantMigrationLatest(tb testing.TB) int {
	tb.Helper()
	versions, err := store.TenantMigrationVersions()
	if err != nil || len(versions) == 0 {
		tb.Fatalf("tenant migration versions: %v, %v", versions, err)
	}
	return int(versions[len(versions)-1])
}

// tenantMigrationCount is the number of tenant migrations.
func tenantMigrationCount(tb testing.TB) int {
	tb.Helper()
	versions, err := store.TenantMigrationVersions()
	if err != nil {
		tb.Fatal(err)
	}
	return len(versions)
}

func TestMigrateAllTwiceIsNoOp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := storetest.NewDB(t)
	for _, slug := range []string{"alpha", "beta", "gamma"} {
		createTenant(t, db, slug)
	}
	before := snapshot(t, db)
	if len(before.goose) != 4 {
		t.Fatalf("schemas = %v, want public and three tenants", before.tables)
	}

	var calls []string
	err := db.MigrateAll(ctx, func(done, total int, schema string) {
		calls = append(calls, fmt.Sprintf("%d/%d %s", done, total, schema))
	})
	if err != nil {
		t.Fatalf("second MigrateAll: %v", err)
	}
	if len(calls) != 0 {
		t.Errorf("progress calls = %q, want none: every tenant schema is at the last version", calls)
	}
	after := snapshot(t, db)
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("second MigrateAll changed the database:\nbefore %+v\nafter  %+v", before, after)
	}
}

func TestMigrateTenantCreatesItsOwnSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := storetest.NewDB(t)
	storetest.DropSpareSchemas(t, db) // the test looks for the schema's creation
	tn, _, err := db.CreateTenant(ctx, store.NewTenant{Slug: "alpha", Name: "Alpha", Timezone: "UTC", RateLimitPerMinute: 300}, newKey())
	if err != nil {
		t.Fatal(err)
	}
	if tn.Schema != fmt.Sprintf("tenant_%d", tn.ID) {
		t.Fatalf("Schema = %q for id %d", tn.Schema, tn.ID)
	}

	// MigrateAll leaves a tenant that is still provisioning alone.
	if err := db.MigrateAll(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if schemaExists(t, db, tn.Schema) {
		t.Fatalf("MigrateAll created the schema of a provisioning tenant")
	}

	if err := db.MigrateTenant(ctx, tn.Schema); err != nil {
		t.Fatalf("MigrateTenant: %v", err)
	}
	own := tableNames(t, db, tn.Schema)
	if !hasAll(own, tenantTables) {
		t.Errorf("tables of %s = %v, want at least %v", tn.Schema, own, tenantTables)
	}
	// No tenant table leaks into the shared schema.
	shared := tableNames(t, db, "public")
	if !hasAll(shared, sharedTables) {
		t.Errorf("tables of public = %v, want at least %v", shared, sharedTables)
	}
	for _, name := range own {
		if name != "goose_db_version" && slices.Contains(shared, name) {
			t.Errorf("tenant table %s also exists in public", name)
		}
	}
	var maxVersion int
	if err := db.Pool().Get(&maxVersion, `SELECT max(version_id) FROM `+tn.Schema+`.goose_db_version WHERE is_applied`); err != nil {
		t.Fatal(err)
	}
	if want := tenantMigrationLatest(t); maxVersion != want {
		t.Errorf("%s is at version %d, want %d", tn.Schema, maxVersion, want)
	}

	for _, bad := range []string{"public", "tenant_x", "tenant_1; DROP SCHEMA public CASCADE"} {
		if err := db.MigrateTenant(ctx, bad); err == nil {
			t.Errorf("MigrateTenant(%q) succeeded", bad)
		}
	}
}
