package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/database"
)

// Mixed versions (DECISIONS section 21): during a rolling upgrade an older
// node may create a tenant with its own, older, tenant migrations. A newer
// node brings such a tenant's schema to its own last migration before it
// serves the tenant (tenant.Registry.Resolve), so it never uses a schema
// feature the tenant lacks.

// TenantSchemaBehind reports whether the schema of tenant id is behind
// this binary's last tenant migration by the record of
// public.tenant_schema_versions: recorded at a lower version, or not
// recorded at all (a binary older than the record creates none).
func (db *DB) TenantSchemaBehind(ctx context.Context, id int64) (bool, error) {
	latest, err := tenantMigrationVersion()
	if err != nil {
		return false, err
	}
	var behind bool
	err = db.pool.GetContext(ctx, &behind, `SELECT NOT EXISTS (SELECT 1 FROM public.tenant_schema_versions
		WHERE tenant_id = $1 AND version >= $2)`, id, latest)
	if err != nil {
		return false, translate(fmt.Errorf("read schema version of tenant %d: %w", id, err))
	}
	return behind, nil
}

// MigrateTenantTo creates schema when missing and applies its tenant
// migrations up to version only, as a binary whose last migration is
// version would, without recording it in public.tenant_schema_versions
// (the binaries before that record made none). Tests of mixed versions
// use it to stand for an older node.
func (db *DB) MigrateTenantTo(ctx context.Context, schema string, version int64) error {
	return db.withSchemaMigrationLock(ctx, schema, func() error {
		provider, err := tenantProvider(ctx, db.migrations, schema)
		if err != nil {
			return err
		}
		if _, err := provider.UpTo(ctx, version); err != nil {
			return translate(fmt.Errorf("migrate %s to %d: %w", schema, version, err))
		}
		return nil
	})
}

// tenantProvider creates schema when missing and returns the goose
// provider of its tenant migrations on conn: the SQL ones
// (tenantMigrationFiles) and the online ones in Go
// (onlineTenantMigrations).
func tenantProvider(ctx context.Context, conn *sql.DB, schema string) (*goose.Provider, error) {
	if !schemaPattern.MatchString(schema) {
		return nil, fmt.Errorf("invalid tenant schema name %q", schema)
	}
	if _, err := conn.ExecContext(ctx, `CREATE SCHEMA IF NOT EXISTS `+schema); err != nil {
		return nil, translate(fmt.Errorf("create schema %s: %w", schema, err))
	}
	files, err := tenantMigrationFiles(schema)
	if err != nil {
		return nil, err
	}
	versions, err := newVersionTableStore(schema + ".goose_db_version")
	if err != nil {
		return nil, err
	}
	provider, err := goose.NewProvider(goose.DialectCustom, conn, files,
		goose.WithStore(versions), goose.WithDisableGlobalRegistry(true),
		goose.WithGoMigrations(onlineTenantMigrations(schema)...))
	if err != nil {
		return nil, fmt.Errorf("load migrations: %w", err)
	}
	return provider, nil
}

// versionTableStore is goose's PostgreSQL store of one schema's version
// table, whose check that the table exists looks its name up in pg_class's
// index (to_regclass). goose's own check reads the pg_tables view, which
// PostgreSQL plans as a scan of pg_class: 50 to 340 ms a call at 10,000
// tenants (two million relations), twice in every tenant creation
// (docs/performance.md, "Many tenants").
type versionTableStore struct {
	database.Store
}

// newVersionTableStore returns the store of table (schema.name).
func newVersionTableStore(table string) (versionTableStore, error) {
	s, err := database.NewStore(goose.DialectPostgres, table)
	if err != nil {
		return versionTableStore{}, fmt.Errorf("goose store of %s: %w", table, err)
	}
	return versionTableStore{Store: s}, nil
}

// TableExists reports whether the version table exists (goose's
// database.StoreExtender).
func (s versionTableStore) TableExists(ctx context.Context, db database.DBTxConn) (bool, error) {
	var exists bool
	if err := db.QueryRowContext(ctx, `SELECT to_regclass($1) IS NOT NULL`, s.Tablename()).Scan(&exists); err != nil {
		return false, fmt.Errorf("look for %s: %w", s.Tablename(), err)
	}
	return exists, nil
}
