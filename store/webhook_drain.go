package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"github.com/riverqueue/river"

	"learngate/secrets"
)

// WebhookRetention is how long events, deliveries and attempts are kept.
const WebhookRetention = 30 * 24 * time.Hour

// dueNowSQL is the next_attempt_at of a delivery to send at once: the
// database's clock, so that a caller's clock (a test's, another node's)
// ahead of the worker's cannot hold it back.
const dueNowSQL = `statement_timestamp()`

// purgeBatch bounds the events one maintenance run deletes per tenant.
const purgeBatch = 10000

// strandedAfter is how long a due delivery may wait before maintenance
// queues a drain of its endpoint again (its worker died mid-drain).
const strandedAfter = time.Minute

// DrainEndpoint is what the worker needs of an endpoint it drains.
type DrainEndpoint struct {
	ID  int64
	URL string
	// Secrets sign deliveries: the current one, then the replaced one while
	// it still signs.
	Secrets      []string
	Enabled      bool
	FailingSince *time.Time
	PausedUntil  *time.Time
}

// toDrain is r for the worker, its secrets decrypted with keyring.
func (r webhookRow) toDrain(keyring *secrets.Keyring, now time.Time) (DrainEndpoint, error) {
	secret, err := openSecret(keyring, r.ID, r.Secret)
	if err != nil {
		return DrainEndpoint{}, err
	}
	d := DrainEndpoint{ID: r.ID, URL: r.URL, Secrets: []string{secret}, Enabled: r.Enabled,
		FailingSince: r.FailingSince, PausedUntil: r.PausedUntil}
	if r.PreviousSecret != nil && r.PreviousSecretExpiresAt != nil && r.PreviousSecretExpiresAt.After(now) {
		previous, err := openSecret(keyring, r.ID, *r.PreviousSecret)
		if err != nil {
			return DrainEndpoint{}, err
		}
		d.Secrets = append(d.Secrets, previous)
	}
	return d, nil
}

// DueDelivery is a delivery to send now, with its event.
type DueDelivery struct {
	ID        int64     `db:"id"`
	EventID   string    `db:"event_id"`
	EventType string    `db:"event_type"`
	EventAt   time.Time `db:"event_at"`
	// Data is the event's resource, as recorded.
	Data json.RawMessage `db:"data"`
	// Attempts is the number of attempts made so far.
	Attempts int `db:"attempts"`
	// MaxAttempts limits a single-attempt delivery (test, manual retry);
	// nil: the worker's retry schedule.
	MaxAttempts *int `db:"max_attempts"`
}

// AcquireWebhookLease makes owner the drainer of endpoint id until
// now+lease, unless another drainer holds it (owner may take again a lease
// it holds: a drain whose attempts were not recorded comes back under the
// same owner). It returns false when the lease is held or the endpoint is
// gone.
func AcquireWebhookLease(ctx context.Context, tdb *TenantDB, id int64, owner string, now time.Time, lease time.Duration) (bool, error) {
	var got bool
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE webhook_endpoints SET lease_owner = $2, lease_until = $3
			WHERE id = $1 AND (lease_until IS NULL OR lease_until < $4 OR lease_owner = $2)`, id, owner, now.Add(lease), now)
		if err != nil {
			return fmt.Errorf("lease webhook %d: %w", id, err)
		}
		n, err := res.RowsAffected()
		got = n == 1
		return err
	})
	return got, err
}

// DueWebhookDeliveries returns endpoint id and up to limit of its pending
// deliveries due at now, in the order they were recorded. ok is false when
// the endpoint is gone.
func DueWebhookDeliveries(ctx context.Context, tdb *TenantDB, id int64, now time.Time, limit int) (DrainEndpoint, []DueDelivery, bool, error) {
	var r webhookRow
	var due []DueDelivery
	err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		if err := getWebhookRow(ctx, tx, &r, id, false); err != nil {
			return err
		}
		return tx.SelectContext(ctx, &due, `SELECT d.id, d.event_id, e.type AS event_type, e.created_at AS event_at,
			e.data, d.attempts, d.max_attempts
			FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
			WHERE d.endpoint_id = $1 AND d.status = 'pending' AND d.next_attempt_at <= $2
			ORDER BY d.id LIMIT $3`, id, now, limit)
	})
	if err != nil {
		if r.ID == 0 {
			return DrainEndpoint{}, nil, false, nilIfNotFound(err)
		}
		return DrainEndpoint{}, nil, false, fmt.Errorf("due deliveries of webhook %d: %w", id, err)
	}
	ep, err := r.toDrain(tdb.db.secrets, now)
	if err != nil {
		return DrainEndpoint{}, nil, false, err
	}
	return ep, due, true, nil
}

// AttemptRecord is one attempt's outcome as the worker decided it.
type AttemptRecord struct {
	DeliveryID int64
	At         time.Time
	// StatusCode is the response status, 0 when there was no response.
	StatusCode int
	Duration   time.Duration
	// Error is why the attempt failed, "" when it succeeded.
	Error     string
	Succeeded bool
	// NextAttemptAt schedules a retry; nil after a failure: no more attempts.
	NextAttemptAt *time.Time
	// PauseUntil stops every delivery to the endpoint until then (Retry-After).
	PauseUntil *time.Time
	// Disable, when set, disables the endpoint for that reason.
	Disable string
}

// recordAttemptsSQL applies attempts to their pending deliveries of
// endpoint $1 and inserts the attempt rows, in one statement. Times come
// as timestamptz[] parameters and a missing retry as a false has_next, so
// that no function is applied to column values (Citus refuses a STABLE
// one, such as a text to timestamptz cast, in an UPDATE: DECISIONS
// section 20).
const recordAttemptsSQL = `WITH r AS (
	SELECT * FROM unnest($2::bigint[], $3::text[], $4::timestamptz[], $5::boolean[], $6::timestamptz[], $7::int[],
		$8::int[], $9::text[])
		AS r(id, status, next_at, has_next, at, code, ms, err)
), d AS (
	UPDATE webhook_deliveries SET attempts = attempts + 1, status = r.status,
		next_attempt_at = CASE WHEN r.has_next THEN r.next_at END, last_attempt_at = r.at,
		last_status_code = nullif(r.code, 0), last_duration_ms = r.ms, last_error = nullif(r.err, ''),
		updated_at = r.at
	FROM r WHERE webhook_deliveries.id = r.id AND webhook_deliveries.endpoint_id = $1
		AND webhook_deliveries.status = 'pending'
	RETURNING webhook_deliveries.id, webhook_deliveries.attempts
)
INSERT INTO webhook_attempts (delivery_id, attempt, status_code, duration_ms, error, created_at)
SELECT d.id, d.attempts, nullif(r.code, 0), r.ms, nullif(r.err, ''), r.at
FROM d JOIN r ON r.id = d.id`

// RecordWebhookAttempts stores the attempts recs (of endpoint id, in the
// order made) and their consequences in one transaction: the attempt rows;
// each delivery's status and schedule; the endpoint's failing_since (the
// first failure after the last success), pause, and owner's lease, renewed
// until the last attempt's time plus lease; and a disabling. Deliveries no
// longer pending (the endpoint was disabled meanwhile) are skipped. It
// returns false when the owner no longer holds the lease or the endpoint
// is gone: the drain must stop.
func RecordWebhookAttempts(ctx context.Context, tdb *TenantDB, id int64, owner string, lease time.Duration, recs []AttemptRecord) (bool, error) {
	if len(recs) == 0 {
		return true, nil
	}
	var ids, codes, ms pq.Int64Array
	var statuses, nexts, ats, errs pq.StringArray
	var hasNext pq.BoolArray
	var reset bool
	var failingSince, pause *time.Time
	disable := ""
	for _, rec := range recs {
		at := rec.At.UTC().Truncate(time.Microsecond)
		status, next := DeliveryFailed, at
		switch {
		case rec.Succeeded:
			status = DeliverySucceeded
			reset, failingSince = true, nil
		case rec.NextAttemptAt != nil:
			status, next = DeliveryPending, *rec.NextAttemptAt
		}
		if !rec.Succeeded && failingSince == nil {
			failingSince = &at
		}
		if rec.PauseUntil != nil {
			pause = rec.PauseUntil
		}
		if rec.Disable != "" {
			disable = rec.Disable
		}
		ids, statuses = append(ids, rec.DeliveryID), append(statuses, status)
		nexts, hasNext = append(nexts, next.UTC().Format(time.RFC3339Nano)), append(hasNext, status == DeliveryPending)
		ats, codes, errs = append(ats, at.Format(time.RFC3339Nano)), append(codes, int64(rec.StatusCode)), append(errs, rec.Error)
		ms = append(ms, rec.Duration.Milliseconds())
	}
	last := recs[len(recs)-1].At.UTC().Truncate(time.Microsecond)
	var held bool
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, recordAttemptsSQL, id, ids, statuses, nexts, hasNext, ats, codes, ms, errs); err != nil {
			return fmt.Errorf("record attempts: %w", err)
		}
		err := tx.GetContext(ctx, &held, `UPDATE webhook_endpoints SET
			failing_since = CASE WHEN $2 THEN $3::timestamptz ELSE coalesce(failing_since, $3) END,
			paused_until = coalesce($4, paused_until),
			lease_until = CASE WHEN lease_owner = $5 THEN $6 ELSE lease_until END
			WHERE id = $1 RETURNING coalesce(lease_owner = $5, false)`,
			id, reset, failingSince, pause, owner, last.Add(lease))
		if err != nil {
			return nilIfNotFound(err)
		}
		if disable != "" {
			return disableWebhook(ctx, tx, id, disable, last)
		}
		return nil
	})
	return held, err
}

// ReleaseWebhookLease ends owner's drain of endpoint id and says what comes
// next: dueNow when a delivery is due already (one recorded while the drain
// was ending: the caller drains again), else wake > 0 when the caller's job
// should come back then for the earliest retry or the end of a pause. wake
// is 0 when nothing is pending or another job is already due to come back
// by then (drain_at).
func ReleaseWebhookLease(ctx context.Context, tdb *TenantDB, id int64, owner string, now time.Time) (dueNow bool, wake time.Duration, err error) {
	err = tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE webhook_endpoints SET lease_owner = NULL, lease_until = NULL
			WHERE id = $1 AND lease_owner = $2`, id, owner); err != nil {
			return fmt.Errorf("release webhook %d: %w", id, err)
		}
		// A new statement: it sees every delivery committed before the
		// release, including those whose own drain job found the lease held.
		var st struct {
			Enabled     bool       `db:"enabled"`
			PausedUntil *time.Time `db:"paused_until"`
			DrainAt     *time.Time `db:"drain_at"`
			Next        *time.Time `db:"next"`
		}
		err := tx.GetContext(ctx, &st, `SELECT enabled, paused_until, drain_at,
			(SELECT min(next_attempt_at) FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending') AS next
			FROM webhook_endpoints WHERE id = $1`, id)
		if err != nil {
			return nilIfNotFound(err)
		}
		if !st.Enabled || st.Next == nil {
			return nil
		}
		at := *st.Next
		if st.PausedUntil != nil && st.PausedUntil.After(at) {
			at = *st.PausedUntil
		}
		if !at.After(now) {
			dueNow = true
			return nil
		}
		if st.DrainAt != nil && st.DrainAt.After(now) && !st.DrainAt.After(at) {
			return nil // a drain job already comes back by then
		}
		if _, err := tx.ExecContext(ctx, `UPDATE webhook_endpoints SET drain_at = $2 WHERE id = $1`, id, at); err != nil {
			return fmt.Errorf("schedule webhook %d: %w", id, err)
		}
		wake = at.Sub(now)
		return nil
	})
	return dueNow, wake, err
}

// WebhookMaintenance deletes the events (with their deliveries and
// attempts) older than WebhookRetention, drops rotated-out secrets that no
// longer sign, and queues a drain of every enabled endpoint whose due
// deliveries have waited strandedAfter with no drainer (its worker died).
// It returns how many events it deleted and endpoints it queued.
func WebhookMaintenance(ctx context.Context, tdb *TenantDB, now time.Time) (int64, int, error) {
	now = now.UTC().Truncate(time.Microsecond)
	var purged int64
	var stranded pq.Int64Array
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM webhook_events WHERE id IN (
			SELECT id FROM webhook_events WHERE created_at < $1 ORDER BY created_at LIMIT $2)`,
			now.Add(-WebhookRetention), purgeBatch)
		if err != nil {
			return fmt.Errorf("purge webhook events: %w", err)
		}
		if purged, err = res.RowsAffected(); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE webhook_endpoints SET previous_secret = NULL,
			previous_secret_expires_at = NULL WHERE previous_secret_expires_at <= $1`, now); err != nil {
			return fmt.Errorf("drop old webhook secrets: %w", err)
		}
		stale := now.Add(-strandedAfter)
		if err := tx.SelectContext(ctx, &stranded, `SELECT e.id FROM webhook_endpoints e
			WHERE e.enabled AND (e.lease_until IS NULL OR e.lease_until < $1)
			AND (e.paused_until IS NULL OR e.paused_until <= $1) AND (e.drain_at IS NULL OR e.drain_at <= $2)
			AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.status = 'pending'
				AND d.next_attempt_at <= $2)
			ORDER BY e.id`, now, stale); err != nil {
			return fmt.Errorf("find stranded webhooks: %w", err)
		}
		return tdb.queueDrains(ctx, tx, stranded)
	})
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", tdb.schema, err)
	}
	return purged, len(stranded), nil
}

// Webhook job kinds. A kind is stored in every queued job: never rename one.
const (
	// KindDeliverWebhooks drains one endpoint's due deliveries, in order.
	KindDeliverWebhooks = "deliver_webhooks"
	// KindWebhookMaintenance purges old deliveries and requeues stranded endpoints.
	KindWebhookMaintenance = "webhook_maintenance"
)

// WebhookQueue is the River queue of webhook deliveries: HTTP calls to
// customers get worker slots of their own, apart from emails.
const WebhookQueue = "webhooks"

// deliverWebhooksMaxAttempts bounds River's own retries of a drain job, for
// failures of the worker or the database (not of the receiver: those are
// scheduled per delivery).
const deliverWebhooksMaxAttempts = 10

// DeliverWebhooksArgs are the arguments of a deliver_webhooks job: the
// tenant schema and the endpoint whose due deliveries to send. Any number
// of these may be queued for one endpoint; the endpoint's lease lets one
// run at a time and the others end at once.
type DeliverWebhooksArgs struct {
	Schema     string `json:"schema"`
	EndpointID int64  `json:"endpoint_id"`
}

// Kind is the job kind of DeliverWebhooksArgs.
func (DeliverWebhooksArgs) Kind() string { return KindDeliverWebhooks }

// InsertOpts puts drain jobs on WebhookQueue.
func (DeliverWebhooksArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: WebhookQueue, MaxAttempts: deliverWebhooksMaxAttempts}
}

// WebhookMaintenanceArgs are the (empty) arguments of the periodic job that
// purges deliveries older than WebhookRetention and requeues endpoints
// whose due deliveries have no drain job (a worker died mid-drain).
type WebhookMaintenanceArgs struct{}

// Kind is the job kind of WebhookMaintenanceArgs.
func (WebhookMaintenanceArgs) Kind() string { return KindWebhookMaintenance }

// InsertOpts keeps at most one run per minute.
func (WebhookMaintenanceArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 3, UniqueOpts: river.UniqueOpts{ByPeriod: time.Minute}}
}

// queueDrains queues, inside tx, one deliver_webhooks job per endpoint of
// endpointIDs, in one statement.
func (t *TenantDB) queueDrains(ctx context.Context, tx *sqlx.Tx, endpointIDs []int64) error {
	if len(endpointIDs) == 0 {
		return nil
	}
	params := make([]river.InsertManyParams, len(endpointIDs))
	for i, id := range endpointIDs {
		params[i] = river.InsertManyParams{Args: DeliverWebhooksArgs{Schema: t.schema, EndpointID: id}}
	}
	if _, err := t.db.jobs.InsertManyTx(ctx, tx.Tx, params); err != nil {
		return fmt.Errorf("queue webhook deliveries: %w", err)
	}
	return nil
}
