package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// Online tenant migrations (docs/operations.md, "Upgrading"; the rule is
// in store/migrations/tenant/README.md): a migration that changes a table
// the API reads runs as steps that each hold a lock only briefly, so the
// tenant keeps answering while it runs. Each step is a short transaction
// under a short lock_timeout, tried again after a pause while it cannot
// get its lock (a lock request queued behind a long read would otherwise
// make every later read wait behind it); indexes are built and dropped
// CONCURRENTLY, outside any transaction, under a new name, then swapped.
// Every step may run again: a migration stopped midway is run again whole.

const (
	// migrationLockTimeout bounds how long a tenant migration's statement
	// waits for a lock before it gives up and is tried again.
	migrationLockTimeout = 500 * time.Millisecond
	// migrationLockAttempts is how often a step or a tenant migration
	// is tried while it fails for a lock.
	migrationLockAttempts = 40
	// migrationLockPause is the first pause between two tries; it doubles
	// up to migrationLockPauseMax.
	migrationLockPause    = 100 * time.Millisecond
	migrationLockPauseMax = 2 * time.Second
)

// isLockConflict reports whether err is a statement that gave up waiting
// for a lock (lock_not_available, 55P03: lock_timeout) or was chosen to
// break a deadlock (40P01: two concurrent index builds may wait for each
// other's snapshots). Either is worth another try.
func isLockConflict(err error) bool {
	var pqErr *pq.Error
	return errors.As(err, &pqErr) && (pqErr.Code == "55P03" || pqErr.Code == "40P01")
}

// retryOnLockConflict runs fn, and again after a growing pause while it
// fails for a lock (isLockConflict), at most migrationLockAttempts times.
func retryOnLockConflict(ctx context.Context, fn func() error) error {
	pause := migrationLockPause
	var err error
	for attempt := 0; attempt < migrationLockAttempts; attempt++ {
		if err = fn(); err == nil || !isLockConflict(err) {
			return err
		}
		select {
		case <-time.After(pause):
		case <-ctx.Done():
			return ctx.Err()
		}
		pause = min(2*pause, migrationLockPauseMax)
	}
	return fmt.Errorf("gave up after %d tries, each waiting %s for a lock: %w", migrationLockAttempts, migrationLockTimeout, err)
}

// onlineStep runs fn in a transaction on conn scoped to schema (its
// search_path) with a lock_timeout of migrationLockTimeout, and tries it
// again while it fails for a lock.
func onlineStep(ctx context.Context, conn *sql.DB, schema string, fn func(tx *sql.Tx) error) error {
	return retryOnLockConflict(ctx, func() error {
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, `SELECT set_config('search_path', $1, true), set_config('lock_timeout', $2, true),
				set_config('citus.enable_unsafe_triggers', 'on', true)`,
			schema, fmt.Sprintf("%dms", migrationLockTimeout.Milliseconds())); err != nil {
			return err
		}
		if err := fn(tx); err != nil {
			return err
		}
		return tx.Commit()
	})
}

// onlineExec runs each statement on conn, alone and outside any
// transaction (CREATE or DROP INDEX CONCURRENTLY). Statements name their
// tables with the schema: no search_path holds outside a transaction.
func onlineExec(ctx context.Context, conn *sql.DB, statements ...string) error {
	for _, s := range statements {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

// swapIndexConcurrently makes index name of schema the one that definition
// describes ("ON <table> USING ..." without the schema, which is added),
// without blocking the table's reads or writes: it builds name_new
// CONCURRENTLY (a leftover of a stopped run, perhaps invalid, is dropped
// first), drops name CONCURRENTLY, and renames name_new to name.
func swapIndexConcurrently(ctx context.Context, conn *sql.DB, schema, name, definition string) error {
	next := name + "_new"
	if err := onlineExec(ctx, conn,
		`DROP INDEX CONCURRENTLY IF EXISTS `+schema+`.`+next,
		`CREATE INDEX CONCURRENTLY `+next+` `+qualifyTable(schema, definition),
		`DROP INDEX CONCURRENTLY IF EXISTS `+schema+`.`+name); err != nil {
		return err
	}
	return onlineStep(ctx, conn, schema, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `ALTER INDEX `+next+` RENAME TO `+name)
		return err
	})
}

// qualifyTable turns "ON table ..." into "ON schema.table ...".
func qualifyTable(schema, definition string) string {
	const on = "ON "
	if len(definition) < len(on) || definition[:len(on)] != on {
		panic("index definition must start with ON: " + definition)
	}
	return on + schema + "." + definition[len(on):]
}
