package store

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jmoiron/sqlx"

	"learngate"
)

// enrolmentState is the part of a current topic or pathway enrolment that
// codes change; Conquered is completed_topic_at or conquered_at.
type enrolmentState struct {
	ID            int64      `db:"id"`
	Status        string     `db:"status"`
	DueDate       *time.Time `db:"due_date"`
	Conquered     *time.Time `db:"conquered"`
	CertifiedDate *time.Time `db:"certified_date"`
}

// equal reports whether s and o hold the same values.
func (s enrolmentState) equal(o enrolmentState) bool {
	return s.Status == o.Status && sameTime(s.DueDate, o.DueDate) && sameTime(s.Conquered, o.Conquered) &&
		sameTime(s.CertifiedDate, o.CertifiedDate)
}

// enrolmentEvents are the event types of one kind of enrolment.
type enrolmentEvents struct {
	kind                        resourceKind
	created, updated, conquered string
}

// The event types of topic and pathway enrolments.
var (
	topicEnrolmentEvents = enrolmentEvents{kindTopicEnrolment,
		EventTopicEnrolmentCreated, EventTopicEnrolmentUpdated, EventTopicEnrolmentConquered}
	pathwayEnrolmentEvents = enrolmentEvents{kindPathwayEnrolment,
		EventPathwayEnrolmentCreated, EventPathwayEnrolmentUpdated, EventPathwayEnrolmentConquered}
)

// noteWrite adds to cs the change of a code that wrote next over cur (the
// zero state when found is false: a new enrolment): conquered when it
// conquers the enrolment (its status becomes Conquered, or COMPLETE
// conquers it again), created for another new enrolment, updated otherwise.
// A write that only changed the given skills (written false,
// skillsChanged true) is updated; nothing written, no change.
func (ch enrolmentChange) noteWrite(cs *changes, ev enrolmentEvents, cur, next enrolmentState, found, written, skillsChanged bool) {
	switch {
	case written && next.Status == learngate.StatusConquered &&
		(!found || cur.Status != learngate.StatusConquered || ch.req.Action == learngate.ActionComplete):
		cs.note(ev.kind, next.ID, ev.conquered)
	case written && !found:
		cs.note(ev.kind, next.ID, ev.created)
	case written || skillsChanged:
		cs.note(ev.kind, next.ID, ev.updated)
	}
}

// next applies the change's action to cur (the zero state when found is
// false: a new enrolment).
func (ch enrolmentChange) next(cur enrolmentState, found bool) enrolmentState {
	next := cur
	if !found {
		next = enrolmentState{Status: learngate.StatusUnexplored}
	}
	if ch.req.Action == learngate.ActionEnrol {
		// Only a given due date changes an existing enrolment.
		if d := given(ch.req.DueDate); d != nil {
			next.DueDate = d
		}
		return next
	}
	next.DueDate, next.Conquered, next.CertifiedDate, next.Status =
		ch.datesOf(next.DueDate, next.Conquered, next.CertifiedDate, next.Status)
	return next
}

// recertifySQL marks for recertification every current, conquered pathway
// enrolment whose certification allows it and has run out at $1 (the
// partial index pathway_enrolments_certified keeps the sweep off the rest).
const recertifySQL = `UPDATE pathway_enrolments SET status = 'recertify', updated_at = $1
WHERE removed_at IS NULL AND status = 'Conquered' AND recertification_allowed
	AND certified_date IS NOT NULL AND certified_date <= $1
RETURNING id`

// ApplyRecertification moves tdb's conquered pathway enrolments whose
// certified date has passed at now, and whose recertification is allowed,
// to status recertify (docs/decisions.md, "Enrolments"), in one UPDATE, and returns
// how many it moved. Each one's pathway_enrolment.updated event is recorded
// in the same transaction. The periodic recertify job runs it for every
// active tenant.
func ApplyRecertification(ctx context.Context, tdb *TenantDB, now time.Time) (int, error) {
	var n int
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		now := now.UTC().Truncate(time.Microsecond)
		var ids []int64
		if err := tx.SelectContext(ctx, &ids, recertifySQL, now); err != nil {
			return fmt.Errorf("apply recertification: %w", err)
		}
		n = len(ids)
		slices.Sort(ids)
		var cs changes
		for _, id := range ids {
			cs.add(kindPathwayEnrolment, id, EventPathwayEnrolmentUpdated)
		}
		return tdb.recordChanges(ctx, tx, cs, now)
	})
	if err != nil {
		return 0, fmt.Errorf("%s: %w", tdb.schema, err)
	}
	return n, nil
}
