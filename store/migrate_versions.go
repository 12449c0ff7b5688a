package store

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
)

// tenantMigrationVersion is the version of the last embedded tenant
// migration: the version every migrated tenant schema is at.
func tenantMigrationVersion() (int64, error) {
	versions, err := tenantMigrationVersions()
	if err != nil || len(versions) == 0 {
		return 0, err
	}
	return versions[len(versions)-1], nil
}

// tenantMigrationVersions are the versions of the tenant migrations, the
// embedded SQL ones and the online ones in Go, in order.
func tenantMigrationVersions() ([]int64, error) {
	names, err := fs.Glob(migrationFiles, "migrations/tenant/*.sql")
	if err != nil {
		return nil, err
	}
	versions := make([]int64, 0, len(names))
	for _, name := range names {
		base := name[strings.LastIndexByte(name, '/')+1:]
		digits, _, _ := strings.Cut(base, "_")
		v, err := strconv.ParseInt(digits, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("tenant migration %s: no version: %w", base, err)
		}
		versions = append(versions, v)
	}
	versions = append(versions, onlineTenantMigrationVersions...)
	slices.Sort(versions)
	return versions, nil
}

// sealingKey is the id of the key the DB seals secrets with: a schema
// recorded under another key has secrets to seal again.
func (db *DB) sealingKey() string { return db.secrets.KeyIDs()[0] }

// staleTenantSchemas lists, in one query, the schemas of the tenants that
// finished provisioning and that migrate must visit: no record in
// tenant_schema_versions, a record below the last embedded tenant
// migration, or secrets sealed under another key than the DB's first.
func (db *DB) staleTenantSchemas(ctx context.Context) ([]string, error) {
	latest, err := tenantMigrationVersion()
	if err != nil {
		return nil, err
	}
	var ids []int64
	err = db.pool.SelectContext(ctx, &ids, `SELECT t.id FROM public.tenants t
		LEFT JOIN public.tenant_schema_versions v ON v.tenant_id = t.id
		WHERE t.status <> 'provisioning'
		  AND (v.tenant_id IS NULL OR v.version < $1 OR v.sealed_key <> $2)
		ORDER BY t.id`, latest, db.sealingKey())
	if err != nil {
		return nil, translate(fmt.Errorf("list tenant schemas to migrate: %w", err))
	}
	schemas := make([]string, len(ids))
	for i, id := range ids {
		schemas[i] = SchemaName(id)
	}
	return schemas, nil
}

// recordTenantSchema records that schema is at the last embedded tenant
// migration with its secrets sealed under the DB's first key; called
// after the schema's migration and sealing succeeded. A schema without a
// tenant row (a test's, or a tenant deleted meanwhile) records nothing.
func (db *DB) recordTenantSchema(ctx context.Context, conn *sql.DB, schema string) error {
	id, err := strconv.ParseInt(strings.TrimPrefix(schema, "tenant_"), 10, 64)
	if err != nil {
		return fmt.Errorf("tenant schema %q: %w", schema, err)
	}
	latest, err := tenantMigrationVersion()
	if err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, `INSERT INTO public.tenant_schema_versions (tenant_id, version, sealed_key)
		SELECT id, $2, $3 FROM public.tenants WHERE id = $1
		ON CONFLICT (tenant_id) DO UPDATE SET version = excluded.version, sealed_key = excluded.sealed_key`,
		id, latest, db.sealingKey())
	if err != nil {
		return translate(fmt.Errorf("record schema version: %w", err))
	}
	return nil
}
