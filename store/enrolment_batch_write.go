package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// write writes every change: at most three statements per kind of
// enrolment (update, insert, skills). The new enrolments take their ids
// from the insert, in creation order, also in cs (where they appear by
// temporary id).
func (set *codeSet) write(ctx context.Context, tx *sqlx.Tx, cs changes) error {
	if err := set.topics.write(ctx, tx, topicTables, cs, kindTopicEnrolment, set.now); err != nil {
		return err
	}
	return set.pathways.write(ctx, tx, pathwayTables, cs, kindPathwayEnrolment, set.now)
}

// number gives the new enrolments of s the ids (sorted here) in creation
// order, also in the changes of kind in cs.
func (s *enrolmentSet) number(ids []int64, cs changes, kind resourceKind) error {
	if len(ids) != int(s.created) {
		return fmt.Errorf("%d ids for %d new enrolments", len(ids), s.created)
	}
	slices.Sort(ids)
	s.ids = ids
	for _, e := range s.all {
		if e.ID < 0 {
			e.ID = ids[-e.ID-1]
		}
	}
	for i := range cs {
		if cs[i].kind == kind && cs[i].id < 0 {
			cs[i].id = ids[-cs[i].id-1]
		}
	}
	return nil
}

// numbered returns refs with the temporary ids of new enrolments replaced
// by the ids write gave them.
func (set *codeSet) numbered(refs []enrolmentRef) []enrolmentRef {
	out := slices.Clone(refs)
	for i, r := range out {
		s := &set.topics
		if r.Pathway {
			s = &set.pathways
		}
		if r.ID < 0 {
			out[i].ID = s.ids[-r.ID-1]
		}
	}
	return out
}

// enrolmentTables are the statements that write one kind of enrolment.
type enrolmentTables struct {
	name, update, insert, skills string
}

// The statements of topic and pathway enrolments. The arrays are those of
// enrolmentColumns.args, then the users, targets and relationships. The
// inserts take the new enrolments in creation order (their temporary ids
// -1, -2, ... descending) so that the sequence numbers them in that order,
// as inserts one by one would.
var (
	topicTables = enrolmentTables{name: "topic enrolments",
		update: `UPDATE topic_enrolments e SET status = u.status, due_date = u.due,
				completed_topic_at = u.conquered, certified_date = u.certified,
				removed_at = CASE WHEN u.removed THEN $8 ELSE e.removed_at END, updated_at = $8
			FROM unnest($1::bigint[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::timestamptz[], $6::boolean[], $7::boolean[])
				AS u (id, status, due, conquered, certified, removed, recert)
			WHERE e.id = u.id`,
		insert: `INSERT INTO topic_enrolments (user_id, topic_id, status, relationship, due_date,
				completed_topic_at, certified_date, recertification_allowed, enrolled_by, removed_at, created_at, updated_at)
			SELECT u.user_id, u.target_id, u.status, u.relationship, u.due, u.conquered, u.certified, u.recert, 'api',
				CASE WHEN u.removed THEN $8::timestamptz END, $8, $8
			FROM unnest($1::bigint[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::timestamptz[], $6::boolean[], $7::boolean[],
				$9::bigint[], $10::bigint[], $11::text[])
				AS u (id, status, due, conquered, certified, removed, recert, user_id, target_id, relationship)
			ORDER BY u.id DESC
			RETURNING id`,
		skills: `WITH want AS (SELECT * FROM unnest($2::bigint[], $3::bigint[]) AS w (enrolment_id, skill_id)),
			gone AS (DELETE FROM topic_enrolment_skills s WHERE s.enrolment_id = ANY($1)
				AND NOT EXISTS (SELECT 1 FROM want w WHERE w.enrolment_id = s.enrolment_id AND w.skill_id = s.skill_id))
			INSERT INTO topic_enrolment_skills (enrolment_id, skill_id) SELECT enrolment_id, skill_id FROM want
			ON CONFLICT DO NOTHING`}
	pathwayTables = enrolmentTables{name: "pathway enrolments",
		update: `UPDATE pathway_enrolments e SET status = u.status, due_date = u.due,
				conquered_at = u.conquered, certified_date = u.certified,
				removed_at = CASE WHEN u.removed THEN $8 ELSE e.removed_at END, updated_at = $8
			FROM unnest($1::bigint[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::timestamptz[], $6::boolean[], $7::boolean[])
				AS u (id, status, due, conquered, certified, removed, recert)
			WHERE e.id = u.id`,
		insert: `INSERT INTO pathway_enrolments (user_id, pathway_id, status, due_date,
				conquered_at, certified_date, recertification_allowed, enrolled_by, removed_at, created_at, updated_at)
			SELECT u.user_id, u.target_id, u.status, u.due, u.conquered, u.certified, u.recert, 'api',
				CASE WHEN u.removed THEN $8::timestamptz END, $8, $8
			FROM unnest($1::bigint[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::timestamptz[], $6::boolean[], $7::boolean[],
				$9::bigint[], $10::bigint[], $11::text[])
				AS u (id, status, due, conquered, certified, removed, recert, user_id, target_id, relationship)
			ORDER BY u.id DESC
			RETURNING id`,
		skills: `WITH want AS (SELECT * FROM unnest($2::bigint[], $3::bigint[]) AS w (enrolment_id, skill_id)),
			gone AS (DELETE FROM pathway_enrolment_skills s WHERE s.enrolment_id = ANY($1)
				AND NOT EXISTS (SELECT 1 FROM want w WHERE w.enrolment_id = s.enrolment_id AND w.skill_id = s.skill_id))
			INSERT INTO pathway_enrolment_skills (enrolment_id, skill_id) SELECT enrolment_id, skill_id FROM want
			ON CONFLICT DO NOTHING`}
)

// write writes the changed enrolments of s with the statements of t: the
// updates first (one may remove the enrolment a new one replaces), then the
// new enrolments, numbered (see number), then the changed skill sets.
func (s *enrolmentSet) write(ctx context.Context, tx *sqlx.Tx, t enrolmentTables, cs changes, kind resourceKind, now time.Time) error {
	var upd, ins enrolmentColumns
	for _, e := range s.all {
		switch {
		case e.isNew:
			ins.add(e)
		case e.dirty:
			upd.add(e)
		}
	}
	if len(upd.ids) > 0 {
		if _, err := tx.ExecContext(ctx, t.update, upd.args(now)...); err != nil {
			return fmt.Errorf("update %s: %w", t.name, err)
		}
	}
	if len(ins.ids) > 0 {
		var ids []int64
		if err := tx.SelectContext(ctx, &ids, t.insert, append(ins.args(now), ins.users, ins.targets, ins.relationships)...); err != nil {
			return fmt.Errorf("insert %s: %w", t.name, err)
		}
		if err := s.number(ids, cs, kind); err != nil {
			return err
		}
	}
	var skillEnrolments, skillPairsE, skillPairsS pq.Int64Array
	for _, e := range s.all {
		if !slices.Equal(e.skills, e.loadedSkills) {
			if !e.isNew { // a new one has no skills to delete
				skillEnrolments = append(skillEnrolments, e.ID)
			}
			for _, sk := range e.skills {
				skillPairsE, skillPairsS = append(skillPairsE, e.ID), append(skillPairsS, sk)
			}
		}
	}
	if len(skillPairsE) > 0 || len(skillEnrolments) > 0 {
		if _, err := tx.ExecContext(ctx, t.skills, skillEnrolments, skillPairsE, skillPairsS); err != nil {
			return fmt.Errorf("replace skills of %s: %w", t.name, err)
		}
	}
	return nil
}

// enrolmentColumns are planned enrolments as the arrays a statement takes.
type enrolmentColumns struct {
	ids, users, targets             pq.Int64Array
	statuses, relationships         pq.StringArray
	due, conquered, certified       []*time.Time
	removed, recertificationAllowed pq.BoolArray
}

// add appends e.
func (c *enrolmentColumns) add(e *plannedEnrolment) {
	c.ids, c.users, c.targets = append(c.ids, e.ID), append(c.users, e.userID), append(c.targets, e.targetID)
	c.statuses, c.relationships = append(c.statuses, e.Status), append(c.relationships, e.relationship)
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
