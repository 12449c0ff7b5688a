package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// JobStates are the River job states JobCounts counts: the queue (work to
// do or being done) and the jobs discarded after their last attempt (River
// keeps those 7 days). Completed and cancelled jobs are left out: counting
// them would read a day of finished jobs on every scrape.
var JobStates = []string{"available", "scheduled", "retryable", "running", "discarded"}

// JobCount is how many jobs of one kind are in one state, and for the
// available ones how long the oldest has been waiting to be picked up.
type JobCount struct {
	Kind  string `db:"kind"`
	State string `db:"state"`
	Count int64  `db:"count"`
	// OldestWait is now minus the earliest scheduled_at of the available
	// jobs (0 in the other states): the queue's lag for this kind.
	OldestWait time.Duration `db:"-"`
}

// JobCounts counts River's jobs by kind and state (JobStates only), in one
// query that River's (state, queue, priority, scheduled_at, id) index serves.
func (db *DB) JobCounts(ctx context.Context) ([]JobCount, error) {
	var rows []struct {
		JobCount
		WaitSeconds float64 `db:"wait_seconds"`
	}
	q := fmt.Sprintf(`SELECT kind, state::text AS state, count(*) AS count,
		coalesce(extract(epoch FROM now() - min(scheduled_at) FILTER (WHERE state = 'available')), 0)::float8 AS wait_seconds
		FROM %s.river_job
		WHERE state IN ('available', 'scheduled', 'retryable', 'running', 'discarded')
		GROUP BY kind, state ORDER BY kind, state`, JobSchema)
	if err := db.pool.SelectContext(ctx, &rows, q); err != nil {
		return nil, fmt.Errorf("count jobs: %w", err)
	}
	out := make([]JobCount, len(rows))
	for i, r := range rows {
		out[i] = r.JobCount
		out[i].OldestWait = time.Duration(max(r.WaitSeconds, 0) * float64(time.Second))
	}
	return out, nil
}

// WebhookDeliveryLag is how long the tenant's most overdue webhook delivery
// has waited past its due time (next_attempt_at) at now: pending, due, on an
// enabled endpoint that is not paused. 0 when none is due. Deliveries that
// wait for a retry after a failed attempt are not late: their receiver is
// failing, which the tenant's delivery log shows; this is the worker's lag.
func WebhookDeliveryLag(ctx context.Context, tdb *TenantDB, now time.Time) (time.Duration, error) {
	var due sql.NullTime
	err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		return tx.GetContext(ctx, &due, `SELECT min(d.next_attempt_at) FROM webhook_deliveries d
			JOIN webhook_endpoints e ON e.id = d.endpoint_id
			WHERE d.status = 'pending' AND d.next_attempt_at <= $1
			AND e.enabled AND (e.paused_until IS NULL OR e.paused_until <= $1)`, now)
	})
	if err != nil {
		return 0, fmt.Errorf("%s: webhook delivery lag: %w", tdb.schema, err)
	}
	if !due.Valid {
		return 0, nil
	}
	return max(now.Sub(due.Time), 0), nil
}
