package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// topicCodeSet applies the enrolment codes of a users batch set-based
// (docs/decisions.md, "Users batch save"), when every code of the batch
// names a topic outside any pathway: such a code changes only the user's
// enrolment in that topic and its given skills, nothing that another code
// of the batch reads besides the same enrolment. The current enrolments the
// batch names are loaded, locked, in one query; each group is applied in
// memory, in order, by the rules of applyTopic; then the new enrolments
// take their ids from the sequence in creation order (as INSERTs one by
// one would) and everything is written with one statement per kind: a
// fixed number of statements whatever the number of users and codes.
// Pathway codes (and codes of a pathway's topics, whose pathway statuses
// follow them) are applied group by group as before.
type topicCodeSet struct {
	now time.Time
	// current are the current enrolments by user and topic.
	current map[[2]int64]*plannedEnrolment
	// all are every enrolment the batch touched: loaded ones first, then
	// the new ones in creation order.
	all []*plannedEnrolment
	// created counts the new enrolments; the n-th has temporary id -n.
	created int64
}

// plannedEnrolment is a topic enrolment as the batch leaves it.
type plannedEnrolment struct {
	enrolmentState
	userID, topicID        int64
	recertificationAllowed bool
	isNew, removed, dirty  bool
	skills, loadedSkills   []int64 // sorted
}

// topicCodesOnly reports whether every code rows carry names a topic
// outside any pathway (or nothing cat knows).
func topicCodesOnly(cat enrolmentCatalog, rows []BatchRow) bool {
	for _, row := range rows {
		for _, r := range row.Enrolments {
			t, ok := cat.targets[strings.ToLower(r.Code)]
			if ok && (t.PathwayID != nil || t.InPathway) {
				return false
			}
		}
	}
	return true
}

// loadTopicCodeSet loads, locked, the current enrolments (and their given
// skills) of the (user, topic) pairs users[i], topics[i] that the batch's
// codes name, in one query.
func loadTopicCodeSet(ctx context.Context, tx *sqlx.Tx, users, topics pq.Int64Array, now time.Time) (*topicCodeSet, error) {
	set := &topicCodeSet{now: now.UTC().Truncate(time.Microsecond), current: map[[2]int64]*plannedEnrolment{}}
	if len(users) == 0 {
		return set, nil
	}
	var rows []struct {
		enrolmentState
		UserID  int64         `db:"user_id"`
		TopicID int64         `db:"topic_id"`
		Recert  bool          `db:"recertification_allowed"`
		Skills  pq.Int64Array `db:"skills"`
	}
	err := tx.SelectContext(ctx, &rows, `WITH cur AS (
			SELECT e.id, e.user_id, e.topic_id, e.status, e.due_date, e.completed_topic_at AS conquered, e.certified_date,
				e.recertification_allowed
			FROM topic_enrolments e
			WHERE (e.user_id, e.topic_id) IN (SELECT * FROM unnest($1::bigint[], $2::bigint[])) AND e.removed_at IS NULL
			FOR UPDATE)
		SELECT cur.*, ARRAY(SELECT s.skill_id FROM topic_enrolment_skills s WHERE s.enrolment_id = cur.id ORDER BY s.skill_id) AS skills
		FROM cur ORDER BY cur.id`, users, topics)
	if err != nil {
		return nil, fmt.Errorf("load current topic enrolments: %w", err)
	}
	for _, r := range rows {
		e := &plannedEnrolment{enrolmentState: r.enrolmentState, userID: r.UserID, topicID: r.TopicID,
			recertificationAllowed: r.Recert, skills: []int64(r.Skills), loadedSkills: []int64(r.Skills)}
		set.current[[2]int64{r.UserID, r.TopicID}] = e
		set.all = append(set.all, e)
	}
	return set, nil
}

// apply is a groupApplier: applyTopic on the planned enrolments.
func (set *topicCodeSet) apply(ch enrolmentChange, own *changes) (enrolmentRef, string, error) {
	key := [2]int64{ch.user.ID, *ch.target.TopicID}
	e, found := set.current[key]
	var cur enrolmentState
	if found {
		cur = e.enrolmentState
	}
	if !found && (ch.req.Action == ActionUpdate || ch.req.Action == ActionUnenrol) {
		return enrolmentRef{}, ch.missing(), nil
	}
	if ch.req.Action == ActionUnenrol {
		e.removed, e.dirty = true, true
		delete(set.current, key)
		own.note(kindTopicEnrolment, e.ID, EventTopicEnrolmentUpdated)
		return enrolmentRef{ID: e.ID}, "", nil
	}
	next := ch.next(cur, found)
	written := !found || !next.equal(cur)
	if !found {
		set.created++
		e = &plannedEnrolment{userID: ch.user.ID, topicID: *ch.target.TopicID, isNew: true,
			recertificationAllowed: ch.target.RecertificationAllowed}
		e.ID = -set.created
		set.current[key] = e
		set.all = append(set.all, e)
	}
	next.ID = e.ID
	if written {
		e.enrolmentState, e.dirty = next, true
	}
	skillsChanged := false
	if ch.req.Action != ActionEnrol && ch.skillIDs != nil {
		want := slices.Clone([]int64(ch.skillIDs))
		slices.Sort(want)
		if !slices.Equal(want, e.skills) {
			e.skills, e.dirty, skillsChanged = want, true, true
		}
	}
	ch.noteWrite(own, topicEnrolmentEvents, cur, next, found, written, skillsChanged)
	return enrolmentRef{ID: e.ID}, "", nil
}

// write gives the new enrolments their ids (also in cs, where they appear
// by temporary id) and writes every change: at most four statements.
func (set *topicCodeSet) write(ctx context.Context, tx *sqlx.Tx, cs changes) error {
	if set.created > 0 {
		var ids []int64
		err := tx.SelectContext(ctx, &ids, `SELECT nextval(pg_get_serial_sequence('topic_enrolments', 'id'))
			FROM generate_series(1, $1)`, set.created)
		if err != nil {
			return fmt.Errorf("number new topic enrolments: %w", err)
		}
		slices.Sort(ids)
		for _, e := range set.all {
			if e.ID < 0 {
				e.ID = ids[-e.ID-1]
			}
		}
		for i := range cs {
			if cs[i].kind == kindTopicEnrolment && cs[i].id < 0 {
				cs[i].id = ids[-cs[i].id-1]
			}
		}
	}
	var upd, ins enrolmentColumns
	var skillEnrolments, skillPairsE, skillPairsS pq.Int64Array
	for _, e := range set.all {
		switch {
		case e.isNew:
			ins.add(e)
		case e.dirty:
			upd.add(e)
		}
		if !slices.Equal(e.skills, e.loadedSkills) {
			skillEnrolments = append(skillEnrolments, e.ID)
			for _, s := range e.skills {
				skillPairsE, skillPairsS = append(skillPairsE, e.ID), append(skillPairsS, s)
			}
		}
	}
	// The updates first: one may remove the enrolment a new one replaces.
	if len(upd.ids) > 0 {
		_, err := tx.ExecContext(ctx, `UPDATE topic_enrolments e SET status = u.status, due_date = u.due,
				completed_topic_at = u.conquered, certified_date = u.certified,
				removed_at = CASE WHEN u.removed THEN $8 ELSE e.removed_at END, updated_at = $8
			FROM unnest($1::bigint[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::timestamptz[], $6::boolean[], $7::boolean[])
				AS u (id, status, due, conquered, certified, removed, recert)
			WHERE e.id = u.id`, upd.args(set.now)...)
		if err != nil {
			return fmt.Errorf("update topic enrolments: %w", err)
		}
	}
	if len(ins.ids) > 0 {
		_, err := tx.ExecContext(ctx, `INSERT INTO topic_enrolments (id, user_id, topic_id, status, due_date,
				completed_topic_at, certified_date, recertification_allowed, enrolled_by, removed_at, created_at, updated_at)
			SELECT u.id, u.user_id, u.topic_id, u.status, u.due, u.conquered, u.certified, u.recert, 'api',
				CASE WHEN u.removed THEN $10::timestamptz END, $10, $10
			FROM unnest($1::bigint[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::timestamptz[], $6::boolean[], $7::boolean[],
				$8::bigint[], $9::bigint[]) AS u (id, status, due, conquered, certified, removed, recert, user_id, topic_id)
			ORDER BY u.id`, append(ins.args(set.now)[:7], ins.users, ins.topics, set.now)...)
		if err != nil {
			return fmt.Errorf("insert topic enrolments: %w", err)
		}
	}
	if len(skillEnrolments) > 0 {
		_, err := tx.ExecContext(ctx, `WITH want AS (SELECT * FROM unnest($2::bigint[], $3::bigint[]) AS w (enrolment_id, skill_id)),
			gone AS (DELETE FROM topic_enrolment_skills s WHERE s.enrolment_id = ANY($1)
				AND NOT EXISTS (SELECT 1 FROM want w WHERE w.enrolment_id = s.enrolment_id AND w.skill_id = s.skill_id))
			INSERT INTO topic_enrolment_skills (enrolment_id, skill_id) SELECT enrolment_id, skill_id FROM want
			ON CONFLICT DO NOTHING`, skillEnrolments, skillPairsE, skillPairsS)
		if err != nil {
			return fmt.Errorf("replace topic enrolment skills: %w", err)
		}
	}
	return nil
}

// enrolmentColumns are planned enrolments as the arrays a statement takes.
type enrolmentColumns struct {
	ids, users, topics              pq.Int64Array
	statuses                        pq.StringArray
	due, conquered, certified       []*time.Time
	removed, recertificationAllowed pq.BoolArray
}

// add appends e.
func (c *enrolmentColumns) add(e *plannedEnrolment) {
	c.ids, c.users, c.topics = append(c.ids, e.ID), append(c.users, e.userID), append(c.topics, e.topicID)
	c.statuses = append(c.statuses, e.Status)
	c.due, c.conquered, c.certified = append(c.due, e.DueDate), append(c.conquered, e.Conquered), append(c.certified, e.CertifiedDate)
	c.removed, c.recertificationAllowed = append(c.removed, e.removed), append(c.recertificationAllowed, e.recertificationAllowed)
}

// args are the arrays $1 to $7 (ids, statuses, due, conquered and certified
// dates, removed, recertification allowed) and now as $8.
func (c *enrolmentColumns) args(now time.Time) []any {
	return []any{c.ids, c.statuses, timeArray(c.due), timeArray(c.conquered), timeArray(c.certified), c.removed,
		c.recertificationAllowed, now}
}

// timeArray is ts as a timestamptz[] argument, NULL for nil.
func timeArray(ts []*time.Time) any {
	a := make([]sql.NullString, len(ts))
	for i, t := range ts {
		if t != nil {
			a[i] = sql.NullString{String: t.UTC().Format(time.RFC3339Nano), Valid: true}
		}
	}
	return pq.Array(a)
}
