package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"learngate"
)

// The due-work ledger (shared migration 00006; docs/architecture.md,
// "Due-work ledger"): public.tenant_due_work says, per tenant and kind of
// periodic work, when that work is next due. A transaction that creates
// future work marks it (markDue) in the same transaction as the data, so a
// crash never loses the mark; a sweep lists the due tenants (DueTenants),
// works each one and then settles its row (SettleDue) with a
// compare-and-set on the version it listed. A tenant with nothing due is
// not visited.

// DueKind names a kind of periodic work in the ledger. A kind is stored in
// rows: never rename one.
type DueKind string

// The kinds of periodic work.
const (
	// DueActivation: scheduled deactivation and reactivation dates of users.
	DueActivation DueKind = "activation"
	// DueRecertify: certifications of conquered pathway enrolments that run out.
	DueRecertify DueKind = "recertify"
	// DueListRank: rank anchors of the users, enrolment and external
	// knowledge lists, after rows entered or left a list.
	DueListRank DueKind = "list_rank"
	// DueWebhooks: webhook maintenance (old events to purge, rotated
	// secrets that expire, pending deliveries to watch and requeue).
	DueWebhooks DueKind = "webhooks"
	// DueCertificatePurge: certificate jobs that expire.
	DueCertificatePurge DueKind = "certificate_purge"
	// DueIdempotencyPurge: Idempotency-Key rows that expire.
	DueIdempotencyPurge DueKind = "idempotency_purge"
)

// servedKinds are the kinds that suspended tenants need too
// (housekeeping); the others are worked for active tenants only, and a
// suspended tenant's due rows wait for it to be active again.
var servedKinds = map[DueKind]bool{DueCertificatePurge: true, DueIdempotencyPurge: true}

// markDueSQL lowers the due time of a tenant's kind of work to $3 (or
// records it) and bumps the row's version, so that a sweep that listed the
// row before cannot settle it over this work. The DO UPDATE part uses only
// the row and EXCLUDED (valid on Citus); LEAST ignores a NULL due_at.
const markDueSQL = `INSERT INTO public.tenant_due_work AS w (tenant_id, kind, due_at) VALUES ($1, $2, $3)
	ON CONFLICT (tenant_id, kind) DO UPDATE SET due_at = LEAST(w.due_at, EXCLUDED.due_at), version = w.version + 1`

// markDue records in tx, the transaction that created the work, that the
// tenant of schema has work of kind due at `at`. It holds the ledger row's
// lock until tx ends: callers run it as late in tx as they can.
func markDue(ctx context.Context, tx *sqlx.Tx, schema string, kind DueKind, at time.Time) error {
	tenantID, err := TenantIDOfSchema(schema)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, markDueSQL, tenantID, string(kind), at.UTC()); err != nil {
		return fmt.Errorf("mark %s due: %w", kind, err)
	}
	return nil
}

// markDueAt is markDue for a due time that may be missing (nil: no work,
// nothing written).
func markDueAt(ctx context.Context, tx *sqlx.Tx, schema string, kind DueKind, at *time.Time) error {
	if at == nil {
		return nil
	}
	return markDue(ctx, tx, schema, kind, *at)
}

// DueTenant is a tenant whose work of some kind is due: its schema and the
// version of its ledger row when listed (for SettleDue).
type DueTenant struct {
	ID      int64 `db:"tenant_id"`
	Version int64 `db:"version"`
}

// Schema returns the name of the tenant's schema.
func (d DueTenant) Schema() string { return SchemaName(d.ID) }

// dueTenantsSQL lists, by tenant id, the tenants with status in $3 whose
// work of kind $1 is due at $2 (tenant_due_work_due finds them).
const dueTenantsSQL = `SELECT w.tenant_id, w.version FROM public.tenant_due_work w
	JOIN public.tenants t ON t.id = w.tenant_id
	WHERE w.kind = $1 AND w.due_at <= $2 AND t.status = ANY($3)
	ORDER BY w.tenant_id`

// DueTenants lists the tenants whose work of kind is due at now: active
// tenants, and suspended ones too for the kinds of housekeeping
// (certificate and idempotency purges). One statement, whatever the number
// of tenants with nothing due.
func (db *DB) DueTenants(ctx context.Context, kind DueKind, now time.Time) ([]DueTenant, error) {
	statuses := pq.StringArray{string(learngate.TenantActive)}
	if servedKinds[kind] {
		statuses = append(statuses, string(learngate.TenantSuspended))
	}
	var out []DueTenant
	if err := db.pool.SelectContext(ctx, &out, dueTenantsSQL, string(kind), now.UTC(), statuses); err != nil {
		return nil, translate(fmt.Errorf("list tenants with %s due: %w", kind, err))
	}
	return out, nil
}

// settleDueSQL writes a tenant's next due time (NULL: nothing pending)
// unless a producer has touched the row since the sweep listed it.
const settleDueSQL = `UPDATE public.tenant_due_work SET due_at = $4
	WHERE tenant_id = $1 AND kind = $2 AND version = $3`

// SettleDue writes, after a sweep has worked tenant d, the time its work
// of kind is next due (nil: nothing pending), computed from the tenant's
// own tables after the work. It is a compare-and-set on the version
// DueTenants read: when a transaction has marked new work since, nothing
// is written and the row stays due, so the next sweep visits the tenant
// again. It reports whether it wrote.
func (db *DB) SettleDue(ctx context.Context, kind DueKind, d DueTenant, next *time.Time) (bool, error) {
	var at sql.NullTime
	if next != nil {
		at = sql.NullTime{Time: next.UTC(), Valid: true}
	}
	res, err := db.pool.ExecContext(ctx, settleDueSQL, d.ID, string(kind), d.Version, at)
	if err != nil {
		return false, translate(fmt.Errorf("settle %s of tenant %d: %w", kind, d.ID, err))
	}
	n, err := res.RowsAffected()
	return n == 1, err
}
