package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"time"

	"github.com/pressly/goose/v3"
	"golang.org/x/sync/errgroup"
)

//go:embed migrations/shared/*.sql migrations/tenant/*.sql
var migrationFiles embed.FS

// migrationLockKey is the advisory lock every migration runner holds, so
// that several nodes running `learngate migrate` at once apply each
// migration exactly once.
const migrationLockKey int64 = 0x6c6e67617465 // "lngate"

// MigrationProgress is told about each tenant schema as it is migrated:
// done of total schemas that needed work, one call at a time.
type MigrationProgress func(done, total int, schema string)

// migrateWorkers is how many tenant schemas MigrateAll migrates at once,
// each in its own transactions, so that one tenant's long migration does
// not hold the others.
const migrateWorkers = 4

// MigrateAll applies the shared schema's pending migrations, River's job
// tables (in JobSchema) and then the migrations of every tenant schema
// that needs work (staleTenantSchemas: one query, so a run with nothing to
// do costs the same at any tenant count), migrateWorkers at a time,
// holding the migration lock throughout. The first failure stops it; the
// schemas migrated before it keep their work.
func (db *DB) MigrateAll(ctx context.Context, progress MigrationProgress) error {
	return db.WithMigrationLock(ctx, func() error {
		if err := db.migrateShared(ctx); err != nil {
			return err
		}
		if err := db.resealSSOSecrets(ctx); err != nil {
			return err
		}
		if err := db.migrateJobs(ctx); err != nil {
			return err
		}
		schemas, err := db.staleTenantSchemas(ctx)
		if err != nil {
			return err
		}
		return db.migrateTenants(ctx, schemas, progress)
	})
}

// schemasPerWorkerPool is how many tenant schemas a MigrateAll worker
// migrates through one pool of its own before it closes it: a backend
// keeps the catalog of every schema it touched, and DDL touches all of a
// schema (docs/performance.md, "Backend memory"). A new connection costs
// about 12 ms.
const schemasPerWorkerPool = 50

// migrateTenants migrates schemas with migrateWorkers workers, each
// through connections of its own replaced every schemasPerWorkerPool
// schemas, telling progress about each one done.
func (db *DB) migrateTenants(ctx context.Context, schemas []string, progress MigrationProgress) error {
	g, gctx := errgroup.WithContext(ctx)
	next := make(chan string)
	var mu sync.Mutex
	done := 0
	for range min(migrateWorkers, len(schemas)) {
		g.Go(func() error {
			var conn *sql.DB
			defer func() {
				if conn != nil {
					conn.Close()
				}
			}()
			served := 0
			for schema := range next {
				if conn == nil || served == schemasPerWorkerPool {
					if conn != nil {
						conn.Close()
					}
					conn, served = sql.OpenDB(db.migrationsConnector), 0
				}
				served++
				if err := db.migrateTenant(gctx, conn, schema); err != nil {
					return err
				}
				mu.Lock()
				done++
				if progress != nil {
					progress(done, len(schemas), schema)
				}
				mu.Unlock()
			}
			return nil
		})
	}
	g.Go(func() error {
		defer close(next)
		for _, schema := range schemas {
			select {
			case next <- schema:
			case <-gctx.Done():
				return nil
			}
		}
		return nil
	})
	return g.Wait()
}

// MigrateTenant creates the tenant schema when missing and applies its
// pending migrations, holding the migration lock in shared mode and a lock
// of that schema alone (withSchemaMigrationLock): creations of different
// tenants run side by side, never beside a MigrateAll, and two runs for
// one schema never interleave.
func (db *DB) MigrateTenant(ctx context.Context, schema string) error {
	return db.withSchemaMigrationLock(ctx, schema, func() error { return db.migrateTenant(ctx, db.migrations, schema) })
}

// schemaLockSpace is the first key of the two-key advisory lock one tenant
// schema's migration holds; the second is hashtext(schema). Two-key locks
// never collide with the one-key migrationLockKey.
const schemaLockSpace int32 = 0x6c6e67 // "lng"

// withSchemaMigrationLock runs fn holding the migration lock shared (a
// MigrateAll, which holds it exclusively, waits for fn and fn for it) and
// schema's own lock exclusively, both transaction-level in one
// transaction kept open until fn returns (see WithMigrationLock).
func (db *DB) withSchemaMigrationLock(ctx context.Context, schema string, fn func() error) error {
	tx, err := db.migrations.BeginTx(ctx, nil)
	if err != nil {
		return translate(fmt.Errorf("migration lock transaction: %w", err))
	}
	defer tx.Rollback()
	if !schemaPattern.MatchString(schema) {
		return fmt.Errorf("invalid tenant schema name %q", schema)
	}
	if err := pollAdvisoryLock(ctx, tx, fmt.Sprintf(`SELECT pg_try_advisory_xact_lock_shared(%d)`, migrationLockKey)); err != nil {
		return translate(fmt.Errorf("take migration lock of %s: %w", schema, err))
	}
	if err := pollAdvisoryLock(ctx, tx, fmt.Sprintf(`SELECT pg_try_advisory_xact_lock(%d, hashtext('%s'))`, schemaLockSpace, schema)); err != nil {
		return translate(fmt.Errorf("take migration lock of %s: %w", schema, err))
	}
	if err := fn(); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return translate(fmt.Errorf("release migration lock of %s: %w", schema, err))
	}
	return nil
}

// advisoryLockPoll is the pause between two tries of pollAdvisoryLock.
const advisoryLockPoll = 50 * time.Millisecond

// pollAdvisoryLock runs trySQL, a pg_try_advisory_xact_lock* call with its
// keys written in (no parameters), in tx until it answers true. The locks
// are polled rather than waited for, and sent without parameters (a
// statement sent with them, by the extended protocol, leaves the idle
// transaction holding a snapshot's xmin), because CREATE INDEX
// CONCURRENTLY in the online migrations (migrate_online.go) waits for
// every transaction that holds a snapshot: a session waiting in
// pg_advisory_xact_lock for the lock the migrating session holds would
// wait for the migration, and the migration for it, forever.
func pollAdvisoryLock(ctx context.Context, tx *sql.Tx, trySQL string) error {
	for {
		var ok bool
		if err := tx.QueryRowContext(ctx, trySQL).Scan(&ok); err != nil {
			return err
		}
		if ok {
			return nil
		}
		select {
		case <-time.After(advisoryLockPoll):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// WithMigrationLock runs fn while holding the cluster-wide migration lock:
// a transaction-level advisory lock taken in a transaction kept open until
// fn returns. Unlike a session lock it needs no session outliving a
// transaction, so it holds through a pooler in transaction mode
// (PgBouncer pins the server connection to the open transaction), and it
// is released when the transaction ends, or when the process dies.
func (db *DB) WithMigrationLock(ctx context.Context, fn func() error) error {
	tx, err := db.migrations.BeginTx(ctx, nil)
	if err != nil {
		return translate(fmt.Errorf("migration lock transaction: %w", err))
	}
	defer tx.Rollback()
	if err := pollAdvisoryLock(ctx, tx, fmt.Sprintf(`SELECT pg_try_advisory_xact_lock(%d)`, migrationLockKey)); err != nil {
		return translate(fmt.Errorf("take migration lock: %w", err))
	}
	if err := fn(); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return translate(fmt.Errorf("release migration lock: %w", err))
	}
	return nil
}

func (db *DB) migrateShared(ctx context.Context) error {
	sub, err := fs.Sub(migrationFiles, "migrations/shared")
	if err != nil {
		return err
	}
	_, err = runGoose(ctx, db.migrations, sub, "public.goose_db_version")
	return err
}

// migrateTenant runs the tenant migrations with every Up and Down section
// opened by a search_path set to the tenant schema for that migration's
// transaction only (scopedMigrations): no startup parameter, which a
// pooler in transaction mode refuses, and no SET on a pooled connection.
// Webhook secrets still in plain text are then encrypted
// (encryptWebhookSecrets), and stored Idempotency-Key answers sealed under
// an older key sealed again (resealIdempotencyAnswers).
func (db *DB) migrateTenant(ctx context.Context, conn *sql.DB, schema string) error {
	if _, err := db.applyTenantMigrations(ctx, conn, schema); err != nil {
		return err
	}
	if err := db.encryptWebhookSecrets(ctx, schema); err != nil {
		return fmt.Errorf("migrate %s: %w", schema, err)
	}
	if err := db.resealIdempotencyAnswers(ctx, schema); err != nil {
		return fmt.Errorf("migrate %s: %w", schema, err)
	}
	if err := db.recordTenantSchema(ctx, conn, schema); err != nil {
		return fmt.Errorf("migrate %s: %w", schema, err)
	}
	return nil
}

// applyTenantMigrations creates schema when missing and runs its pending
// goose migrations through conn, returning what each did. A migration that
// gave up waiting for a lock (each statement waits migrationLockTimeout at
// most) is rolled back and the run tried again after a pause
// (retryOnLockConflict), so a migration never queues every reader of a
// table behind a long read.
func (db *DB) applyTenantMigrations(ctx context.Context, conn *sql.DB, schema string) ([]*goose.MigrationResult, error) {
	provider, err := tenantProvider(ctx, conn, schema)
	if err != nil {
		return nil, err
	}
	var results []*goose.MigrationResult
	err = retryOnLockConflict(ctx, func() error {
		done, err := provider.Up(ctx)
		var partial *goose.PartialError
		if errors.As(err, &partial) {
			done = partial.Applied
		}
		results = append(results, done...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("migrate %s: %w", schema, translate(fmt.Errorf("apply migrations: %w", err)))
	}
	return results, nil
}

// tenantMigrationFiles are the tenant migrations with every Up and Down
// section opened by the settings of schema's migration transaction
// (scopedMigrations): its search_path, a lock_timeout of
// migrationLockTimeout (see applyTenantMigrations), and
// citus.enable_unsafe_triggers. citus.enable_unsafe_triggers lets a tenant migration
// create its triggers on Citus, where every tenant table is distributed:
// they are safe there because a tenant's tables are colocated in one
// schema on one node, so a trigger never reaches another node's rows
// (docs/operations.md, deploy/README.md "Beyond one PostgreSQL"). On a
// plain PostgreSQL it is an unused placeholder setting.
func tenantMigrationFiles(schema string) (fs.FS, error) {
	sub, err := fs.Sub(migrationFiles, "migrations/tenant")
	if err != nil {
		return nil, err
	}
	return scopedMigrations{FS: sub, scope: "SELECT set_config('search_path', '" + schema + "', true), " +
		"set_config('citus.enable_unsafe_triggers', 'on', true), " +
		fmt.Sprintf("set_config('lock_timeout', '%dms', true);", migrationLockTimeout.Milliseconds())}, nil
}

// runGoose applies the pending migrations of files, recorded in table,
// and returns what each did.
func runGoose(ctx context.Context, conn *sql.DB, files fs.FS, table string) ([]*goose.MigrationResult, error) {
	provider, err := goose.NewProvider(goose.DialectPostgres, conn, files,
		goose.WithTableName(table), goose.WithDisableGlobalRegistry(true))
	if err != nil {
		return nil, fmt.Errorf("load migrations: %w", err)
	}
	results, err := provider.Up(ctx)
	if err != nil {
		return nil, translate(fmt.Errorf("apply migrations: %w", err))
	}
	return results, nil
}
