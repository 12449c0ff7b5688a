package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
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
	case written && next.Status == StatusConquered &&
		(!found || cur.Status != StatusConquered || ch.req.Action == ActionComplete):
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
		next = enrolmentState{Status: StatusUnexplored}
	}
	if ch.req.Action == ActionEnrol {
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

// current loads the user's current enrolment in the change's topic or
// pathway, locked; found is false when there is none.
func (ch enrolmentChange) current(ctx context.Context, tx *sqlx.Tx, query string, targetID int64) (enrolmentState, bool, error) {
	var cur enrolmentState
	err := tx.GetContext(ctx, &cur, query, ch.user.ID, targetID)
	if errors.Is(err, sql.ErrNoRows) {
		return enrolmentState{}, false, nil
	}
	if err != nil {
		return enrolmentState{}, false, fmt.Errorf("load current enrolment: %w", err)
	}
	return cur, true, nil
}

// applyTopic applies the change to the user's enrolment in a topic and
// adds what it changed to cs. It returns a problem, and writes nothing, for
// UPDATE or UNENROL without a current enrolment. UNENROL's change is
// topic_enrolment.updated, with the removed enrolment.
func (ch enrolmentChange) applyTopic(ctx context.Context, tx *sqlx.Tx, cs *changes) (enrolmentRef, string, error) {
	topicID := *ch.target.TopicID
	cur, found, err := ch.current(ctx, tx, `SELECT id, status, due_date, completed_topic_at AS conquered, certified_date
		FROM topic_enrolments WHERE user_id = $1 AND topic_id = $2 AND removed_at IS NULL FOR UPDATE`, topicID)
	if err != nil {
		return enrolmentRef{}, "", err
	}
	if !found && (ch.req.Action == ActionUpdate || ch.req.Action == ActionUnenrol) {
		return enrolmentRef{}, ch.missing(), nil
	}
	if ch.req.Action == ActionUnenrol {
		_, err := tx.ExecContext(ctx, `UPDATE topic_enrolments SET removed_at = $2, updated_at = $2 WHERE id = $1`, cur.ID, ch.now)
		if err != nil {
			return enrolmentRef{}, "", fmt.Errorf("unenrol topic enrolment %d: %w", cur.ID, err)
		}
		cs.note(kindTopicEnrolment, cur.ID, EventTopicEnrolmentUpdated)
		return enrolmentRef{ID: cur.ID}, "", nil
	}
	next := ch.next(cur, found)
	written := !found || !next.equal(cur)
	switch {
	case !found:
		err = tx.GetContext(ctx, &next.ID, `INSERT INTO topic_enrolments (user_id, topic_id, status, due_date,
				completed_topic_at, certified_date, recertification_allowed, enrolled_by, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, 'api', $8, $8) RETURNING id`,
			ch.user.ID, topicID, next.Status, next.DueDate, next.Conquered, next.CertifiedDate,
			ch.target.RecertificationAllowed, ch.now)
	case !next.equal(cur):
		_, err = tx.ExecContext(ctx, `UPDATE topic_enrolments SET status = $2, due_date = $3, completed_topic_at = $4,
			certified_date = $5, updated_at = $6 WHERE id = $1`,
			cur.ID, next.Status, next.DueDate, next.Conquered, next.CertifiedDate, ch.now)
	}
	if err != nil {
		return enrolmentRef{}, "", fmt.Errorf("save topic enrolment: %w", err)
	}
	skillsChanged, err := ch.saveSkills(ctx, tx, "topic_enrolment_skills", "topic_enrolments", next.ID, !written)
	if err != nil {
		return enrolmentRef{}, "", err
	}
	ch.noteWrite(cs, topicEnrolmentEvents, cur, next, found, written, skillsChanged)
	if next.Status != cur.Status && next.Status != StatusUnexplored && ch.target.InPathway {
		if err := updatePathwayStatuses(ctx, tx, ch.user.ID, ch.now, cs); err != nil {
			return enrolmentRef{}, "", err
		}
	}
	return enrolmentRef{ID: next.ID}, "", nil
}

// saveSkills replaces the enrolment's given skills with COMPLETE and UPDATE
// (a plain enrol takes none) and, when that changed them but nothing else
// was written (untouched), moves the enrolment's updated_at. It reports
// whether the skills changed.
func (ch enrolmentChange) saveSkills(ctx context.Context, tx *sqlx.Tx, skillTable, table string, id int64, untouched bool) (bool, error) {
	if ch.req.Action == ActionEnrol {
		return false, nil
	}
	changed, err := replaceSkills(ctx, tx, skillTable, id, ch.skillIDs)
	if err != nil || !changed || !untouched {
		return changed, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE `+table+` SET updated_at = $2 WHERE id = $1`, id, ch.now); err != nil {
		return false, fmt.Errorf("touch %s %d: %w", table, id, err)
	}
	return true, nil
}

// applyPathway applies the change to the user's enrolment in a pathway and
// adds what it changed to cs. Enrolling (and COMPLETE) also enrols the user
// in each of the pathway's topics without a current enrolment
// (relationship pathway, due when the code gives a due date); the
// pathway's status then follows its topics. UPDATE with a due date gives it
// to the topic enrolments held through the pathway too.
// UNENROL also removes the pathway's topic enrolments that it created and
// that were never started, unless another current pathway of the user
// holds the topic. The pathway enrolment's own write and its status
// following its topics are one change (one event).
func (ch enrolmentChange) applyPathway(ctx context.Context, tx *sqlx.Tx, cs *changes) (enrolmentRef, string, error) {
	pathwayID := *ch.target.PathwayID
	cur, found, err := ch.current(ctx, tx, `SELECT id, status, due_date, conquered_at AS conquered, certified_date
		FROM pathway_enrolments WHERE user_id = $1 AND pathway_id = $2 AND removed_at IS NULL FOR UPDATE`, pathwayID)
	if err != nil {
		return enrolmentRef{}, "", err
	}
	if !found && (ch.req.Action == ActionUpdate || ch.req.Action == ActionUnenrol) {
		return enrolmentRef{}, ch.missing(), nil
	}
	if ch.req.Action == ActionUnenrol {
		return enrolmentRef{ID: cur.ID, Pathway: true}, "", ch.unenrolPathway(ctx, tx, cur.ID, pathwayID, cs)
	}
	next := ch.next(cur, found)
	written := !found || !next.equal(cur)
	switch {
	case !found:
		err = tx.GetContext(ctx, &next.ID, `INSERT INTO pathway_enrolments (user_id, pathway_id, status, due_date,
				conquered_at, certified_date, recertification_allowed, enrolled_by, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, 'api', $8, $8) RETURNING id`,
			ch.user.ID, pathwayID, next.Status, next.DueDate, next.Conquered, next.CertifiedDate,
			ch.target.RecertificationAllowed, ch.now)
	case !next.equal(cur):
		_, err = tx.ExecContext(ctx, `UPDATE pathway_enrolments SET status = $2, due_date = $3, conquered_at = $4,
			certified_date = $5, updated_at = $6 WHERE id = $1`,
			cur.ID, next.Status, next.DueDate, next.Conquered, next.CertifiedDate, ch.now)
	}
	if err != nil {
		return enrolmentRef{}, "", fmt.Errorf("save pathway enrolment: %w", err)
	}
	skillsChanged, err := ch.saveSkills(ctx, tx, "pathway_enrolment_skills", "pathway_enrolments", next.ID, !written)
	if err != nil {
		return enrolmentRef{}, "", err
	}
	ch.noteWrite(cs, pathwayEnrolmentEvents, cur, next, found, written, skillsChanged)
	if ch.req.Action == ActionUpdate && ch.req.DueDate != nil {
		if err := ch.dueDateToTopics(ctx, tx, pathwayID, next.DueDate, cs); err != nil {
			return enrolmentRef{}, "", err
		}
	}
	if ch.req.Action == ActionEnrol || ch.req.Action == ActionComplete {
		added, err := ch.enrolInPathwayTopics(ctx, tx, pathwayID)
		if err != nil {
			return enrolmentRef{}, "", err
		}
		for _, id := range added {
			cs.note(kindTopicEnrolment, id, EventTopicEnrolmentCreated)
		}
		if err := updatePathwayStatuses(ctx, tx, ch.user.ID, ch.now, cs); err != nil {
			return enrolmentRef{}, "", err
		}
	}
	return enrolmentRef{ID: next.ID, Pathway: true}, "", nil
}

// enrolInPathwayTopics enrols the user, through the pathway, in each topic
// of pathway pathwayID they hold no current enrolment of, in the pathway's
// order, and returns the new enrolments' ids in that order. It is two
// statements, a SELECT of the topics and an INSERT of their rows, rather
// than one INSERT ... SELECT: Citus plans an INSERT ... SELECT that joins a
// distributed schema's tables by pulling the SELECT to the coordinator,
// which it refuses as a repartition join (or, with parameters, runs as
// one that inserts nothing). The user's row is locked (the caller's
// FOR UPDATE), so no other change of theirs comes between the two.
func (ch enrolmentChange) enrolInPathwayTopics(ctx context.Context, tx *sqlx.Tx, pathwayID int64) ([]int64, error) {
	var topics []struct {
		ID                     int64 `db:"id"`
		RecertificationAllowed bool  `db:"recertification_allowed"`
	}
	err := tx.SelectContext(ctx, &topics, `SELECT t.id, t.recertification_allowed
		FROM pathway_topics pt JOIN topics t ON t.id = pt.topic_id
		WHERE pt.pathway_id = $2 AND NOT EXISTS (SELECT 1 FROM topic_enrolments e
			WHERE e.user_id = $1 AND e.topic_id = pt.topic_id AND e.removed_at IS NULL)
		ORDER BY pt.position`, ch.user.ID, pathwayID)
	if err != nil {
		return nil, fmt.Errorf("the topics of pathway %d: %w", pathwayID, err)
	}
	if len(topics) == 0 {
		return nil, nil
	}
	ids := make([]int64, len(topics))
	recert := make([]bool, len(topics))
	for i, t := range topics {
		ids[i], recert[i] = t.ID, t.RecertificationAllowed
	}
	var added []int64
	err = tx.SelectContext(ctx, &added, `INSERT INTO topic_enrolments (user_id, topic_id, relationship, enrolled_by,
			recertification_allowed, due_date, created_at, updated_at)
		SELECT $1, x.topic_id, 'pathway', 'api', x.recertification_allowed, $5, $4, $4
		FROM unnest($2::bigint[], $3::boolean[]) WITH ORDINALITY AS x(topic_id, recertification_allowed, n)
		ORDER BY x.n
		ON CONFLICT DO NOTHING RETURNING id`, ch.user.ID, pq.Array(ids), pq.Array(recert), ch.now, given(ch.req.DueDate))
	if err != nil {
		return nil, fmt.Errorf("enrol in the topics of pathway %d: %w", pathwayID, err)
	}
	slices.Sort(added) // ids follow the insert's order: the pathway's
	return added, nil
}

// dueDateToTopics gives due (nil: none) to the user's current topic
// enrolments held through pathway pathwayID (relationship pathway, a topic
// of the pathway), and adds each one it changed to cs as updated. Direct
// enrolments keep their own due date.
func (ch enrolmentChange) dueDateToTopics(ctx context.Context, tx *sqlx.Tx, pathwayID int64, due *time.Time, cs *changes) error {
	var changed []int64
	err := tx.SelectContext(ctx, &changed, `UPDATE topic_enrolments te SET due_date = $3, updated_at = $4
		WHERE te.user_id = $1 AND te.removed_at IS NULL AND te.relationship = 'pathway'
			AND te.topic_id IN (SELECT topic_id FROM pathway_topics WHERE pathway_id = $2)
			AND te.due_date IS DISTINCT FROM $3
		RETURNING te.id`, ch.user.ID, pathwayID, due, ch.now)
	if err != nil {
		return fmt.Errorf("update the due date of the topics of pathway %d: %w", pathwayID, err)
	}
	slices.Sort(changed)
	for _, id := range changed {
		cs.note(kindTopicEnrolment, id, EventTopicEnrolmentUpdated)
	}
	return nil
}

// unenrolPathway removes pathway enrolment id and the untouched topic
// enrolments it brought (see applyPathway), and adds each removed one to
// cs as updated.
func (ch enrolmentChange) unenrolPathway(ctx context.Context, tx *sqlx.Tx, id, pathwayID int64, cs *changes) error {
	_, err := tx.ExecContext(ctx, `UPDATE pathway_enrolments SET removed_at = $2, updated_at = $2 WHERE id = $1`, id, ch.now)
	if err != nil {
		return fmt.Errorf("unenrol pathway enrolment %d: %w", id, err)
	}
	cs.note(kindPathwayEnrolment, id, EventPathwayEnrolmentUpdated)
	var removed []int64
	err = tx.SelectContext(ctx, &removed, `UPDATE topic_enrolments te SET removed_at = $3, updated_at = $3
		WHERE te.user_id = $1 AND te.removed_at IS NULL AND te.relationship = 'pathway'
			AND te.status = 'Unexplored' AND te.progress_minutes = 0
			AND te.topic_id IN (SELECT topic_id FROM pathway_topics WHERE pathway_id = $2)
			AND NOT EXISTS (SELECT 1 FROM pathway_enrolments pe JOIN pathway_topics pt ON pt.pathway_id = pe.pathway_id
				WHERE pe.user_id = $1 AND pe.removed_at IS NULL AND pt.topic_id = te.topic_id)
		RETURNING te.id`,
		ch.user.ID, pathwayID, ch.now)
	if err != nil {
		return fmt.Errorf("unenrol the topics of pathway %d: %w", pathwayID, err)
	}
	slices.Sort(removed)
	for _, te := range removed {
		cs.note(kindTopicEnrolment, te, EventTopicEnrolmentUpdated)
	}
	return nil
}

// updatePathwayStatusesSQL moves the current pathway enrolments of user $1
// that are not Conquered forward to follow their topics (docs/decisions.md,
// "Enrolments"), stamping those that change with $2:
//   - Conquered when every required topic has a conquered current enrolment
//     (required: the mandatory topics, or every topic of a pathway with no
//     mandatory one); conquered_at is the last of their conquered dates and
//     certified_date that plus the pathway's certify_days (computed in the
//     CTE: Citus refuses a non-immutable expression inside the UPDATE's
//     CASE, DECISIONS section 20). A pathway waiting
//     for recertification is conquered again only by a later conquest.
//   - Exploring, from Pre-enrolled or Unexplored, once any of its topics is
//     past Unexplored.
//
// A pathway without topics is never conquered this way.
const updatePathwayStatusesSQL = `
WITH progress AS (
	SELECT pe.id,
		coalesce(bool_or(te.status <> 'Unexplored'), false) AS started,
		coalesce(bool_and(coalesce(te.status = 'Conquered', false)) FILTER (WHERE req.required), false) AS done,
		max(te.completed_topic_at) FILTER (WHERE req.required) AS done_at
	FROM pathway_enrolments pe
	JOIN pathway_topics pt ON pt.pathway_id = pe.pathway_id
	CROSS JOIN LATERAL (SELECT pt.mandatory OR NOT EXISTS (
		SELECT 1 FROM pathway_topics m WHERE m.pathway_id = pe.pathway_id AND m.mandatory)) AS req (required)
	LEFT JOIN topic_enrolments te ON te.user_id = pe.user_id AND te.topic_id = pt.topic_id AND te.removed_at IS NULL
	WHERE pe.user_id = $1 AND pe.removed_at IS NULL AND pe.status <> 'Conquered'
	GROUP BY pe.id
), next AS (
	SELECT p.id, p.done_at, p.done_at + make_interval(days => pw.certify_days) AS certified_until,
		CASE WHEN p.done AND (pe.status <> 'recertify' OR p.done_at > pe.conquered_at) THEN 'Conquered'
			WHEN p.started AND pe.status IN ('Pre-enrolled', 'Unexplored') THEN 'Exploring'
			ELSE pe.status END AS status
	FROM progress p JOIN pathway_enrolments pe ON pe.id = p.id JOIN pathways pw ON pw.id = pe.pathway_id
)
UPDATE pathway_enrolments pe SET status = n.status,
	conquered_at = CASE WHEN n.status = 'Conquered' THEN n.done_at ELSE pe.conquered_at END,
	certified_date = CASE WHEN n.status = 'Conquered' THEN n.certified_until ELSE pe.certified_date END,
	updated_at = $2
FROM next n
WHERE pe.id = n.id AND n.status <> pe.status
RETURNING pe.id, pe.status`

// pathwayMove is a pathway enrolment updatePathwayStatuses moved, with its new status.
type pathwayMove struct {
	ID     int64  `db:"id"`
	Status string `db:"status"`
}

// updatePathwayStatuses moves the user's pathway enrolments forward to
// follow their topics, in one statement, and adds each one it moved to cs:
// pathway_enrolment.conquered when it became Conquered, else updated.
func updatePathwayStatuses(ctx context.Context, tx *sqlx.Tx, userID int64, now time.Time, cs *changes) error {
	var moved []pathwayMove
	if err := tx.SelectContext(ctx, &moved, updatePathwayStatusesSQL, userID, now); err != nil {
		return fmt.Errorf("update pathway statuses of user %d: %w", userID, err)
	}
	slices.SortFunc(moved, func(a, b pathwayMove) int { return cmp.Compare(a.ID, b.ID) })
	for _, m := range moved {
		typ := EventPathwayEnrolmentUpdated
		if m.Status == StatusConquered {
			typ = EventPathwayEnrolmentConquered
		}
		cs.note(kindPathwayEnrolment, m.ID, typ)
	}
	return nil
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
