//go:build slow

package store

import (
	"context"
	"fmt"
	"testing"

	"learngate"
)

// TestMigrateAllNothingToDoIsFlat: a migrate with nothing to do sends as
// many statements with 2 tenants as with 6; a schema below the last
// migration (here dropped, its record gone) is migrated again, and a
// tenant that got no schema at creation is brought to the last version.
func TestMigrateAllNothingToDoIsFlat(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, counter := openCounting(t, ownDatabase(t))
	if err := db.MigrateAll(ctx, nil); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	addTenants := func(n int, migrate bool) {
		for range n {
			tn, _, err := db.CreateTenant(ctx, NewTenant{Slug: fmt.Sprintf("t%d", len(ids)), Name: "T", Timezone: "UTC",
				RateLimitPerMinute: 300}, NewAPIKey{Hash: fmt.Appendf(nil, "hash-%d", len(ids)), Prefix: "lg_t"})
			if err != nil {
				t.Fatal(err)
			}
			if migrate {
				if err := db.MigrateTenant(ctx, tn.Schema); err != nil {
					t.Fatal(err)
				}
			}
			if err := db.SetTenantStatus(ctx, tn.ID, learngate.TenantActive); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, tn.ID)
		}
	}
	noOp := func() (statements int64) {
		t.Helper()
		before := counter.Load()
		calls := 0
		if err := db.MigrateAll(ctx, func(int, int, string) { calls++ }); err != nil {
			t.Fatal(err)
		}
		if calls != 0 {
			t.Fatalf("a migrate with nothing to do migrated %d schemas", calls)
		}
		return counter.Load() - before
	}

	addTenants(2, true)
	few := noOp()
	addTenants(4, true)
	if many := noOp(); many != few {
		t.Fatalf("a migrate with nothing to do sent %d statements with 6 tenants, %d with 2", many, few)
	}

	// A schema behind (here gone, with its record) and a tenant whose
	// schema was never created: both migrated, and recorded.
	stale := SchemaName(ids[1])
	for _, q := range []string{`DROP SCHEMA ` + stale + ` CASCADE`,
		`DELETE FROM public.tenant_schema_versions WHERE tenant_id = ` + fmt.Sprint(ids[1])} {
		if _, err := db.pool.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	addTenants(1, false)
	var migrated []string
	if err := db.MigrateAll(ctx, func(_, _ int, schema string) { migrated = append(migrated, schema) }); err != nil {
		t.Fatal(err)
	}
	fresh := SchemaName(ids[len(ids)-1])
	if len(migrated) != 2 {
		t.Fatalf("migrated %q, want %s and %s", migrated, stale, fresh)
	}
	latest, err := tenantMigrationVersion()
	if err != nil {
		t.Fatal(err)
	}
	for _, schema := range []string{stale, fresh} {
		var goose, recorded int64
		if err := db.pool.Get(&goose, `SELECT max(version_id) FROM `+schema+`.goose_db_version WHERE is_applied`); err != nil {
			t.Fatal(err)
		}
		if err := db.pool.Get(&recorded, `SELECT version FROM public.tenant_schema_versions
			WHERE tenant_id = $1 AND sealed_key = $2`, schema[len("tenant_"):], db.sealingKey()); err != nil {
			t.Fatalf("record of %s: %v", schema, err)
		}
		if goose != latest || recorded != latest {
			t.Errorf("%s at version %d, recorded %d, want %d", schema, goose, recorded, latest)
		}
	}
	noOp()
}
