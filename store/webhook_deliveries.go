package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"learngate"

	"learngate/store/list"
)

// Delivery statuses.
const (
	// DeliveryPending: waiting for its first attempt or a retry.
	DeliveryPending = "pending"
	// DeliverySucceeded: an attempt got a 2xx answer.
	DeliverySucceeded = "succeeded"
	// DeliveryFailed: attempts are exhausted, the receiver answered 410, or
	// the endpoint was disabled.
	DeliveryFailed = "failed"
)

// attemptRow is a webhook_attempts row.
type attemptRow struct {
	DeliveryID int64     `db:"delivery_id"`
	Attempt    int       `db:"attempt"`
	StatusCode *int      `db:"status_code"`
	DurationMS int       `db:"duration_ms"`
	Error      *string   `db:"error"`
	CreatedAt  time.Time `db:"created_at"`
}

// deliveryRow is a webhook_deliveries row with its event's type.
type deliveryRow struct {
	ID             int64      `db:"id"`
	EventID        string     `db:"event_id"`
	EventType      string     `db:"event_type"`
	Status         string     `db:"status"`
	Attempts       int        `db:"attempts"`
	LastStatusCode *int       `db:"last_status_code"`
	LastDurationMS *int       `db:"last_duration_ms"`
	LastError      *string    `db:"last_error"`
	LastAttemptAt  *time.Time `db:"last_attempt_at"`
	NextAttemptAt  *time.Time `db:"next_attempt_at"`
	CreatedAt      time.Time  `db:"created_at"`
}

// deliveryColumns select a deliveryRow from webhook_deliveries d joined
// with webhook_events e.
const deliveryColumns = `d.id, d.event_id, e.type AS event_type, d.status, d.attempts, d.last_status_code,
	d.last_duration_ms, d.last_error, d.last_attempt_at, d.next_attempt_at, d.created_at`

// ListWebhookDeliveries returns one page of endpoint webhookID's
// deliveries, newest first, each with its attempts, and how many there are
// (deliveries are kept for WebhookRetention). NotFound when the tenant has
// no such endpoint.
func ListWebhookDeliveries(ctx context.Context, tdb *TenantDB, webhookID int64, page list.Page) ([]learngate.Delivery, int64, error) {
	var out []learngate.Delivery
	var total int64
	err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		var exists bool
		if err := tx.GetContext(ctx, &exists, `SELECT EXISTS (SELECT 1 FROM webhook_endpoints WHERE id = $1)`, webhookID); err != nil {
			return fmt.Errorf("look up webhook %d: %w", webhookID, err)
		}
		if !exists {
			return learngate.Errorf(learngate.NotFound, "not found")
		}
		var rows []deliveryRow
		var err error
		q := list.All()
		q.Where("d.endpoint_id = " + q.Arg(webhookID))
		total, err = list.Select(ctx, tx, &rows, list.Deliveries,
			`SELECT `+deliveryColumns+` FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id`, q, page)
		if err != nil {
			return fmt.Errorf("list deliveries: %w", err)
		}
		out, err = withAttempts(ctx, tx, rows)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// withAttempts completes rows into deliveries with their attempts, in one query.
func withAttempts(ctx context.Context, tx *sqlx.Tx, rows []deliveryRow) ([]learngate.Delivery, error) {
	out := make([]learngate.Delivery, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	ids := make(pq.Int64Array, len(rows))
	byID := make(map[int64]*learngate.Delivery, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
		out[i] = learngate.Delivery{ID: r.ID, EventID: r.EventID, EventType: r.EventType, Status: r.Status, Attempt: r.Attempts,
			StatusCode: r.LastStatusCode, DurationMS: r.LastDurationMS, Error: r.LastError, AttemptedAt: r.LastAttemptAt,
			NextAttemptAt: r.NextAttemptAt, CreatedAt: r.CreatedAt, Attempts: []learngate.DeliveryAttempt{}}
		byID[r.ID] = &out[i]
	}
	var attempts []attemptRow
	if err := tx.SelectContext(ctx, &attempts, `SELECT delivery_id, attempt, status_code, duration_ms, error, created_at
		FROM webhook_attempts WHERE delivery_id = ANY($1) ORDER BY delivery_id, attempt`, ids); err != nil {
		return nil, fmt.Errorf("list attempts: %w", err)
	}
	for _, a := range attempts {
		d := byID[a.DeliveryID]
		d.Attempts = append(d.Attempts, learngate.DeliveryAttempt{Attempt: a.Attempt, StatusCode: a.StatusCode,
			DurationMS: a.DurationMS, Error: a.Error, AttemptedAt: a.CreatedAt})
	}
	return out, nil
}

// getDelivery loads delivery id of endpoint webhookID; NotFound otherwise.
func getDelivery(ctx context.Context, tx *sqlx.Tx, webhookID, id int64) (learngate.Delivery, error) {
	var r deliveryRow
	err := tx.GetContext(ctx, &r, `SELECT `+deliveryColumns+` FROM webhook_deliveries d
		JOIN webhook_events e ON e.id = d.event_id WHERE d.id = $1 AND d.endpoint_id = $2`, id, webhookID)
	if err != nil {
		return learngate.Delivery{}, notFound(err)
	}
	ds, err := withAttempts(ctx, tx, []deliveryRow{r})
	if err != nil {
		return learngate.Delivery{}, err
	}
	return ds[0], nil
}

// enabledWebhook locks endpoint id; NotFound when there is none, Conflict
// when it is disabled (nothing can be sent to it).
func enabledWebhook(ctx context.Context, tx *sqlx.Tx, id int64) (webhookRow, error) {
	var r webhookRow
	if err := getWebhookRow(ctx, tx, &r, id, true); err != nil {
		return r, err
	}
	if !r.Enabled {
		return r, learngate.Errorf(learngate.Conflict, "webhook %d is disabled; enable it first", id)
	}
	return r, nil
}

// RetryWebhookDelivery makes delivery deliveryID of endpoint webhookID due
// now and returns it. A pending delivery keeps its retry schedule; a
// finished one (succeeded or failed) gets one more attempt. A pause asked
// for by the receiver (Retry-After) is lifted. NotFound when the endpoint
// or the delivery is not the tenant's; Conflict when the endpoint is disabled.
func RetryWebhookDelivery(ctx context.Context, tdb *TenantDB, webhookID, deliveryID int64, now time.Time) (learngate.Delivery, error) {
	now = now.UTC().Truncate(time.Microsecond)
	var d learngate.Delivery
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		if _, err := enabledWebhook(ctx, tx, webhookID); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET
			max_attempts = CASE WHEN status = 'pending' THEN max_attempts ELSE attempts + 1 END,
			status = 'pending', next_attempt_at = `+dueNowSQL+`, updated_at = $3
			WHERE id = $1 AND endpoint_id = $2`, deliveryID, webhookID, now)
		if err != nil {
			return fmt.Errorf("retry delivery %d: %w", deliveryID, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return learngate.Errorf(learngate.NotFound, "not found")
		}
		if err := tdb.wakeWebhook(ctx, tx, webhookID, now); err != nil {
			return err
		}
		d, err = getDelivery(ctx, tx, webhookID, deliveryID)
		return err
	})
	return d, err
}

// TestWebhook sends a ping event to endpoint webhookID only (one attempt,
// no retries), whose data is the endpoint as the API shows it, and returns
// the delivery. NotFound when the tenant has no such endpoint; Conflict
// when it is disabled.
func TestWebhook(ctx context.Context, tdb *TenantDB, webhookID int64, now time.Time) (learngate.Delivery, error) {
	now = now.UTC().Truncate(time.Microsecond)
	var d learngate.Delivery
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		r, err := enabledWebhook(ctx, tx, webhookID)
		if err != nil {
			return err
		}
		data, err := json.Marshal(r.toWebhook(now))
		if err != nil {
			return err
		}
		var gen eventIDs
		eventID, err := gen.next(now)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_events (id, type, created_at, data) VALUES ($1, $2, $3, $4)`,
			eventID, EventPing, now, string(data)); err != nil {
			return fmt.Errorf("record ping: %w", err)
		}
		var id int64
		if err := tx.GetContext(ctx, &id, `INSERT INTO webhook_deliveries (endpoint_id, event_id, max_attempts,
			next_attempt_at, created_at, updated_at) VALUES ($1, $2, 1, `+dueNowSQL+`, $3, $3) RETURNING id`, webhookID, eventID, now); err != nil {
			return fmt.Errorf("record ping delivery: %w", err)
		}
		if err := tdb.wakeWebhook(ctx, tx, webhookID, now); err != nil {
			return err
		}
		d, err = getDelivery(ctx, tx, webhookID, id)
		return err
	})
	return d, err
}

// wakeWebhook lifts endpoint id's pause and queues a drain of it now: an
// explicit request from the tenant goes out at once. Its pending
// deliveries are then due at now, which it marks for webhook maintenance.
func (t *TenantDB) wakeWebhook(ctx context.Context, tx *sqlx.Tx, id int64, now time.Time) error {
	if _, err := tx.ExecContext(ctx, `UPDATE webhook_endpoints SET paused_until = NULL WHERE id = $1`, id); err != nil {
		return fmt.Errorf("wake webhook %d: %w", id, err)
	}
	if err := t.queueDrains(ctx, tx, []int64{id}); err != nil {
		return err
	}
	return markDue(ctx, tx, t.schema, DueWebhooks, now)
}
