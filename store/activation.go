package store

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/jmoiron/sqlx"

	"learngate"
)

// applyScheduledActivationSQL applies every due scheduled date of a tenant in
// one statement. A due date is cleared; the user ends inactive when only the
// deactivation is due, active when only the reactivation is, and when both
// are due the later one decides (on the same instant, active: the user was
// deactivated and then reactivated). Only users with a due date are touched,
// and each of them changes (a date is cleared), so each gets updated_at = $1.
// It returns each user's id with its active flag before and after, for the
// users' events; due users are locked in id order.
const applyScheduledActivationSQL = `
UPDATE users SET
    active = CASE
        WHEN reactivate_scheduled_date <= $1
            AND (deactivate_scheduled_date IS NULL OR deactivate_scheduled_date > $1
                 OR reactivate_scheduled_date >= deactivate_scheduled_date) THEN true
        WHEN deactivate_scheduled_date <= $1 THEN false
        ELSE active
    END,
    deactivate_scheduled_date = CASE WHEN deactivate_scheduled_date <= $1 THEN NULL ELSE deactivate_scheduled_date END,
    reactivate_scheduled_date = CASE WHEN reactivate_scheduled_date <= $1 THEN NULL ELSE reactivate_scheduled_date END,
    updated_at = $1
FROM (SELECT id AS due_id, active AS was_active FROM users
      WHERE deactivate_scheduled_date <= $1 OR reactivate_scheduled_date <= $1
      ORDER BY id FOR UPDATE) due
WHERE users.id = due.due_id
RETURNING users.id, due.was_active, users.active`

// ApplyScheduledActivation applies the deactivate_scheduled_date and
// reactivate_scheduled_date of tdb's users that are due at now (docs/decisions.md,
// "Scheduled deactivation and reactivation") and returns how many users it changed. It is one set-based
// UPDATE; users without a due date are left alone, updated_at included.
// Each changed user's event (user.deactivated, user.reactivated, or
// user.updated when only a date was cleared) is recorded in the same
// transaction.
func ApplyScheduledActivation(ctx context.Context, tdb *TenantDB, now time.Time) (int, error) {
	var n int
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		now := now.UTC().Truncate(time.Microsecond)
		var rows []struct {
			ID        int64 `db:"id"`
			WasActive bool  `db:"was_active"`
			Active    bool  `db:"active"`
		}
		if err := tx.SelectContext(ctx, &rows, applyScheduledActivationSQL, now); err != nil {
			return fmt.Errorf("apply scheduled activation: %w", err)
		}
		n = len(rows)
		sort.Slice(rows, func(i, j int) bool { return rows[i].ID < rows[j].ID })
		var cs changes
		for _, r := range rows {
			cs.add(kindUser, r.ID, string(changeOf(&userRow{Active: r.WasActive}, r.Active)))
		}
		return tdb.recordChanges(ctx, tx, cs, now)
	})
	if err != nil {
		return 0, fmt.Errorf("%s: %w", tdb.schema, err)
	}
	return n, nil
}

// ActiveTenantSchemas lists the schemas of the tenants whose status is
// active, by tenant id: the ones background sweeps work on.
func (db *DB) ActiveTenantSchemas(ctx context.Context) ([]string, error) {
	var ids []int64
	err := db.pool.SelectContext(ctx, &ids, `SELECT id FROM public.tenants WHERE status = $1 ORDER BY id`,
		learngate.TenantActive)
	if err != nil {
		return nil, translate(fmt.Errorf("list active tenants: %w", err))
	}
	schemas := make([]string, len(ids))
	for i, id := range ids {
		schemas[i] = SchemaName(id)
	}
	return schemas, nil
}
