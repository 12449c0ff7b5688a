package store

import (
	"context"
	"fmt"
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
WHERE deactivate_scheduled_date <= $1 OR reactivate_scheduled_date <= $1`

// ApplyScheduledActivation applies the deactivate_scheduled_date and
// reactivate_scheduled_date of tdb's users that are due at now (DECISIONS.md
// section 6) and returns how many users it changed. It is one set-based
// UPDATE; users without a due date are left alone, updated_at included.
func ApplyScheduledActivation(ctx context.Context, tdb *TenantDB, now time.Time) (int, error) {
	var n int64
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, applyScheduledActivationSQL, now.UTC().Truncate(time.Microsecond))
		if err != nil {
			return fmt.Errorf("apply scheduled activation: %w", err)
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("%s: %w", tdb.schema, err)
	}
	return int(n), nil
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
