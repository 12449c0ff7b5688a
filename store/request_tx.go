package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jmoiron/sqlx"
)

// errRequestTxEnded is the error of a run on a request handle whose
// transaction was committed or rolled back already.
var errRequestTxEnded = errors.New("the request transaction has ended")

// requestTx is the one transaction of a request made with an
// Idempotency-Key (docs/decisions.md, "Idempotency-Key"): every Tx, ReadTx
// and SnapshotTx of the handle joins it, and nothing is committed until
// CompleteIdempotentRequest stores the answer in it and commits. The
// transaction is begun by the first run (read-write, READ COMMITTED,
// whatever that run asked for: a ReadTx or SnapshotTx inside a request
// transaction is a part of it, not a snapshot of its own). A run that
// begins it needs no savepoint: when it fails the transaction is rolled
// back and the next run begins another. Every later run runs inside a
// SAVEPOINT: its failure rolls back to the savepoint, so a store method
// that fails and tries again (a batch whose set-based save raced) still
// works, and what the earlier runs wrote is kept.
//
// A request transaction belongs to one goroutine (the request's handler).
type requestTx struct {
	tx         *sqlx.Tx
	savepoints int
	ended      bool
	// broken holds the error that left tx unusable (a failed rollback to
	// a savepoint); the request can then only be rolled back.
	broken error
}

// WithRequestTx returns a handle on the same tenant whose every piece of
// work runs in one transaction that nothing commits but
// CompleteIdempotentRequest; RollbackRequest ends it without saving. The
// handler of a request made with an Idempotency-Key gets such a handle.
func (t *TenantDB) WithRequestTx() *TenantDB {
	return &TenantDB{db: t.db, schema: t.schema, req: &requestTx{}}
}

// run runs fn in the request transaction (see requestTx).
func (r *requestTx) run(ctx context.Context, t *TenantDB, fn func(tx *sqlx.Tx) error) error {
	switch {
	case r.ended:
		return errRequestTxEnded
	case r.broken != nil:
		return r.broken
	case r.tx == nil:
		if err := r.begin(ctx, t); err != nil {
			return err
		}
		if err := fn(r.tx); err != nil {
			r.tx.Rollback()
			r.tx = nil
			return translate(err)
		}
		return nil
	}
	r.savepoints++
	name := "lg_" + strconv.Itoa(r.savepoints)
	if _, err := r.tx.ExecContext(ctx, `SAVEPOINT `+name); err != nil {
		r.broken = translate(fmt.Errorf("savepoint: %w", err))
		return r.broken
	}
	if err := fn(r.tx); err != nil {
		if _, rbErr := r.tx.ExecContext(ctx, `ROLLBACK TO SAVEPOINT `+name); rbErr != nil {
			r.broken = translate(fmt.Errorf("rollback to savepoint: %w", rbErr))
		}
		return translate(err)
	}
	if _, err := r.tx.ExecContext(ctx, `RELEASE SAVEPOINT `+name); err != nil {
		r.broken = translate(fmt.Errorf("release savepoint: %w", err))
		return r.broken
	}
	return nil
}

// begin begins the request transaction, scoped to the tenant's schema.
func (r *requestTx) begin(ctx context.Context, t *TenantDB) error {
	tx, err := t.db.pool.BeginTxx(ctx, nil)
	if err != nil {
		return translate(fmt.Errorf("begin: %w", err))
	}
	if _, err := tx.ExecContext(ctx, scopeSQL, t.schema); err != nil {
		tx.Rollback()
		return translate(fmt.Errorf("scope transaction to %s: %w", t.schema, err))
	}
	r.tx = tx
	return nil
}

// finish runs fn (the last statements of the request) in the request
// transaction, begun now if no run began it, and commits. The transaction
// has ended when finish returns, whatever the outcome.
func (r *requestTx) finish(ctx context.Context, t *TenantDB, fn func(tx *sqlx.Tx) error) error {
	if r.ended {
		return errRequestTxEnded
	}
	defer r.end()
	if r.broken != nil {
		return r.broken
	}
	if r.tx == nil {
		if err := r.begin(ctx, t); err != nil {
			return err
		}
	}
	if err := fn(r.tx); err != nil {
		return translate(err)
	}
	if err := r.tx.Commit(); err != nil {
		return translate(fmt.Errorf("commit: %w", err))
	}
	return nil
}

// end rolls back what is not committed and ends the request transaction.
func (r *requestTx) end() {
	if r.tx != nil {
		r.tx.Rollback()
	}
	r.ended = true
}

// RollbackRequest ends the request transaction of a WithRequestTx handle
// without saving anything; it does nothing on another handle or on an
// ended transaction.
func (t *TenantDB) RollbackRequest() {
	if t.req != nil && !t.req.ended {
		t.req.end()
	}
}
