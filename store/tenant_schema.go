package store

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/lib/pq"
)

// A new tenant's schema is made by one script at the current version
// (migrations/tenant_schema.sql), not by its tenant migrations one by one:
// with many tenants, an ALTER TABLE that rewrites or checks a table costs
// time in proportion to the whole catalog (about 0.8 s each at 5,000
// tenants, docs/performance.md "Many tenants"), and three migrations do so
// on a new schema. The script is pg_dump's account of a schema the
// migrations made, with its name replaced by tenantSchemaPlaceholder;
// TestTenantSchemaScript (store/) fails when it differs from what the
// migrations give, and regenerates it with -update. Existing schemas are
// still migrated migration by migration.

//go:embed migrations/tenant_schema.sql
var tenantSchemaScript string

// tenantSchemaPlaceholder stands for the schema's name in the script.
const tenantSchemaPlaceholder = "tenant_schema_placeholder"

// tenantSchemaScriptVersion is the last tenant migration the script is at:
// the number on its first line, "-- learngate tenant schema at migration N".
func tenantSchemaScriptVersion() (int64, error) {
	first, _, _ := strings.Cut(tenantSchemaScript, "\n")
	var v int64
	if _, err := fmt.Sscanf(first, "-- learngate tenant schema at migration %d", &v); err != nil {
		return 0, fmt.Errorf("tenant schema script: first line %q: %w", first, err)
	}
	return v, nil
}

// CreateTenantSchema makes the schema of a new tenant: when the schema does
// not exist yet, the script at the current version in one transaction,
// with goose's version table filled as if each migration had run; then,
// as for any schema, the pending migrations (none when the script is
// current), the sealing passes and the record (migrateTenant). It holds
// the same locks as MigrateTenant.
func (db *DB) CreateTenantSchema(ctx context.Context, schema string) error {
	return db.withSchemaMigrationLock(ctx, schema, func() error {
		if !schemaPattern.MatchString(schema) {
			return fmt.Errorf("invalid tenant schema name %q", schema)
		}
		var exists bool
		if err := db.migrations.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`,
			schema).Scan(&exists); err != nil {
			return translate(fmt.Errorf("look for schema %s: %w", schema, err))
		}
		if !exists {
			if err := db.runTenantSchemaScript(ctx, schema); err != nil {
				return err
			}
		}
		return db.migrateTenant(ctx, db.migrations, schema)
	})
}

// runTenantSchemaScript creates schema (on its own, so that Citus
// distributes it) and goose's version table, then runs the script
// statement by statement (splitStatements) and records every migration it
// stands for in goose's table, in one transaction opened by the
// migrations' settings.
func (db *DB) runTenantSchemaScript(ctx context.Context, schema string) error {
	version, err := tenantSchemaScriptVersion()
	if err != nil {
		return err
	}
	versions, err := tenantMigrationVersions()
	if err != nil {
		return err
	}
	// goose makes its version table, its first row included, the way it
	// always does (the script leaves the table out: pg_dump writes its
	// identity column as an ALTER TABLE, which Citus refuses).
	provider, err := tenantProvider(ctx, db.migrations, schema)
	if err != nil {
		return err
	}
	if _, err := provider.GetDBVersion(ctx); err != nil {
		return translate(fmt.Errorf("goose version table of %s: %w", schema, err))
	}
	tx, err := db.migrations.BeginTx(ctx, nil)
	if err != nil {
		return translate(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT set_config('search_path', $1, true), set_config('check_function_bodies', 'off', true),
		set_config('citus.enable_unsafe_triggers', 'on', true)`, schema); err != nil {
		return translate(err)
	}
	for _, stmt := range splitStatements(strings.ReplaceAll(tenantSchemaScript, tenantSchemaPlaceholder, schema)) {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return translate(fmt.Errorf("tenant schema script in %s: %.80s: %w", schema, stmt, err))
		}
	}
	var applied []int64
	for _, v := range versions {
		if v <= version {
			applied = append(applied, v)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+schema+`.goose_db_version (version_id, is_applied)
		SELECT v, true FROM unnest($1::bigint[]) WITH ORDINALITY AS a(v, n) ORDER BY n`, pq.Int64Array(applied)); err != nil {
		return translate(fmt.Errorf("record migrations of %s: %w", schema, err))
	}
	return translate(tx.Commit())
}
