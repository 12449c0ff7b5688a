package store

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"

	"github.com/jmoiron/sqlx"
)

// schemaPattern is the only form a tenant schema name may take.
var schemaPattern = regexp.MustCompile(`^tenant_[0-9]+$`)

// SchemaName returns the schema that holds the tables of tenant id.
func SchemaName(tenantID int64) string { return fmt.Sprintf("tenant_%d", tenantID) }

// TenantDB is the tenant-scoped database handle. Every piece of work it runs
// is a transaction whose first statement sets search_path to the tenant's
// schema for that transaction only (set_config(..., true)), so a pooled
// connection never carries one tenant's search_path into another's work.
//
// A handle from WithRequestTx runs all that work in one transaction
// instead (requestTx), which only its owner commits.
type TenantDB struct {
	db     *DB
	schema string
	// req, when set, is the request transaction every run joins.
	req *requestTx
}

// Tenant returns the handle for the tenant whose tables live in schema.
func (db *DB) Tenant(schema string) (*TenantDB, error) {
	if !schemaPattern.MatchString(schema) {
		return nil, fmt.Errorf("invalid tenant schema name %q", schema)
	}
	return &TenantDB{db: db, schema: schema}, nil
}

// Schema returns the name of the tenant's schema.
func (t *TenantDB) Schema() string { return t.schema }

// Tx runs fn in a read-write transaction scoped to the tenant's schema. It
// commits when fn returns nil and rolls back otherwise. Store methods use it;
// handlers call store methods and never build SQL themselves.
func (t *TenantDB) Tx(ctx context.Context, fn func(tx *sqlx.Tx) error) error {
	return t.run(ctx, nil, fn)
}

// ReadTx is Tx for read-only work.
func (t *TenantDB) ReadTx(ctx context.Context, fn func(tx *sqlx.Tx) error) error {
	return t.run(ctx, &sql.TxOptions{ReadOnly: true}, fn)
}

// scopeSQL is the first statement of every TenantDB transaction: search_path
// set to the schema $1 for that transaction only. The benchmark's baseline
// (bench/baseline) keeps a copy.
const scopeSQL = `SELECT set_config('search_path', $1, true)`

func (t *TenantDB) run(ctx context.Context, opts *sql.TxOptions, fn func(tx *sqlx.Tx) error) error {
	if t.req != nil {
		return t.req.run(ctx, t, fn)
	}
	tx, err := t.db.pool.BeginTxx(ctx, opts)
	if err != nil {
		return translate(fmt.Errorf("begin: %w", err))
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, scopeSQL, t.schema); err != nil {
		return translate(fmt.Errorf("scope transaction to %s: %w", t.schema, err))
	}
	if err := fn(tx); err != nil {
		return translate(err)
	}
	if err := tx.Commit(); err != nil {
		return translate(fmt.Errorf("commit: %w", err))
	}
	return nil
}

// SnapshotTx is ReadTx in one snapshot (REPEATABLE READ): every statement of
// fn sees the same committed rows, so a count and the page it frames agree.
// A read-only transaction never fails on a serialization conflict. On a
// WithRequestTx handle it is, like ReadTx, a part of the request
// transaction: it sees the request's own writes and takes no snapshot.
func (t *TenantDB) SnapshotTx(ctx context.Context, fn func(tx *sqlx.Tx) error) error {
	return t.run(ctx, &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead}, fn)
}
