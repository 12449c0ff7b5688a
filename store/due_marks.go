package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// The producers of the due-work ledger for users, enrolments and external
// knowledge. Every change of these resources is collected in a changes
// value and recorded at the end of its transaction (recordChanges,
// recordUser): there, last in the transaction, markChanges marks the
// periodic work the changes create. The other producers mark where they
// write (webhook events and deliveries, secret rotation, certificate jobs,
// Idempotency-Key claims).

// changesDueSQL reads, for the changed users $1 and pathway enrolments $2,
// the earliest scheduled (de)activation date and the earliest certified
// date the recertification sweep acts on (by primary key).
const changesDueSQL = `SELECT
	(SELECT least(min(deactivate_scheduled_date), min(reactivate_scheduled_date)) FROM users WHERE id = ANY($1)) AS activation,
	(SELECT min(certified_date) FROM pathway_enrolments WHERE id = ANY($2)
		AND removed_at IS NULL AND status = 'Conquered' AND recertification_allowed AND certified_date IS NOT NULL) AS recertify`

// markChanges marks in tx the periodic work that cs creates: the
// scheduled dates of the changed users (activation), the certifications
// of the changed pathway enrolments (recertify), and, at `at`, the list
// rank anchors when a user or an external knowledge record was created or
// an enrolment changed (it may have entered or left its list). It sends
// one read when users or pathway enrolments changed, and one upsert per
// kind of work found; nothing when cs creates no work.
func (t *TenantDB) markChanges(ctx context.Context, tx *sqlx.Tx, cs changes, at time.Time) error {
	var users, pathways pq.Int64Array
	rank := false
	for _, c := range cs {
		switch c.kind {
		case kindUser:
			users = append(users, c.id)
			rank = rank || c.typ == EventUserCreated
		case kindPathwayEnrolment:
			pathways = append(pathways, c.id)
			rank = true
		case kindTopicEnrolment:
			rank = true
		case kindKnowledge:
			rank = rank || c.typ == EventExternalKnowledgeCreated
		}
	}
	if len(users) > 0 || len(pathways) > 0 {
		var due struct {
			Activation sql.NullTime `db:"activation"`
			Recertify  sql.NullTime `db:"recertify"`
		}
		if err := tx.GetContext(ctx, &due, changesDueSQL, users, pathways); err != nil {
			return fmt.Errorf("due work of the changes: %w", err)
		}
		if due.Activation.Valid {
			if err := markDue(ctx, tx, t.schema, DueActivation, due.Activation.Time); err != nil {
				return err
			}
		}
		if due.Recertify.Valid {
			if err := markDue(ctx, tx, t.schema, DueRecertify, due.Recertify.Time); err != nil {
				return err
			}
		}
	}
	if rank {
		return markDue(ctx, tx, t.schema, DueListRank, at)
	}
	return nil
}
