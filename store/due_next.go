package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// When each kind of periodic work is next due in a tenant, read from the
// tenant's own tables after a sweep has worked it (SettleDue writes it to
// the ledger). Each is one statement on indexed columns; NULL when nothing
// is pending. A time at or before the sweep's now keeps the tenant due.

// nextActivationSQL: the earliest scheduled date of any user (the partial
// indexes users_deactivate_scheduled and users_reactivate_scheduled).
const nextActivationSQL = `SELECT least(
	(SELECT min(deactivate_scheduled_date) FROM users),
	(SELECT min(reactivate_scheduled_date) FROM users))`

// nextRecertifySQL: the earliest certified date that recertifySQL will act
// on (the partial index pathway_enrolments_certified).
const nextRecertifySQL = `SELECT min(certified_date) FROM pathway_enrolments
	WHERE removed_at IS NULL AND status = 'Conquered' AND recertification_allowed AND certified_date IS NOT NULL`

// nextListRankSQL: $1 (now) while any list has a dirty id left (a writer
// came after the run, or held the lock past its timeout).
const nextListRankSQL = `SELECT CASE WHEN EXISTS (SELECT 1 FROM user_rank_dirty)
	OR EXISTS (SELECT 1 FROM topic_enrolment_rank_dirty)
	OR EXISTS (SELECT 1 FROM pathway_enrolment_rank_dirty)
	OR EXISTS (SELECT 1 FROM knowledge_rank_dirty) THEN $1::timestamptz END`

// nextWebhooksSQL: the earliest of the oldest event's purge ($1 is the
// retention in seconds), the earliest rotated-out secret's expiry, and the
// earliest due time of a pending delivery on an enabled endpoint (not
// before the endpoint's pause ends). A tenant whose deliveries are due and
// not yet delivered thus stays due: maintenance watches it every run (its
// delivery lag, a stranded endpoint to requeue).
const nextWebhooksSQL = `SELECT least(
	(SELECT min(created_at) FROM webhook_events) + make_interval(secs => $1),
	(SELECT min(previous_secret_expires_at) FROM webhook_endpoints),
	(SELECT min(greatest(d.next_attempt_at, e.paused_until)) FROM webhook_deliveries d
		JOIN webhook_endpoints e ON e.id = d.endpoint_id
		WHERE d.status = 'pending' AND e.enabled))`

// nextCertificatePurgeSQL: the earliest expiry of a certificate job
// (certificate_jobs_expires).
const nextCertificatePurgeSQL = `SELECT min(expires_at) FROM certificate_jobs`

// nextIdempotencyPurgeSQL: the earliest expiry of an Idempotency-Key row
// (idempotency_keys_expires_at).
const nextIdempotencyPurgeSQL = `SELECT min(expires_at) FROM idempotency_keys`

// NextDue returns when tdb's work of kind is next due, as its tables stand
// now (nil: nothing pending), in one read-only transaction.
func NextDue(ctx context.Context, tdb *TenantDB, kind DueKind, now time.Time) (*time.Time, error) {
	var q string
	var args []any
	switch kind {
	case DueActivation:
		q = nextActivationSQL
	case DueRecertify:
		q = nextRecertifySQL
	case DueListRank:
		q, args = nextListRankSQL, []any{now.UTC()}
	case DueWebhooks:
		q, args = nextWebhooksSQL, []any{WebhookRetention.Seconds()}
	case DueCertificatePurge:
		q = nextCertificatePurgeSQL
	case DueIdempotencyPurge:
		q = nextIdempotencyPurgeSQL
	default:
		return nil, fmt.Errorf("unknown due-work kind %q", kind)
	}
	var next sql.NullTime
	err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		return tx.GetContext(ctx, &next, q, args...)
	})
	if err != nil {
		return nil, fmt.Errorf("%s: next %s due: %w", tdb.schema, kind, err)
	}
	if !next.Valid {
		return nil, nil
	}
	return &next.Time, nil
}
