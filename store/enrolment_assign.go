package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"learngate"
	"learngate/input"
)

// describeUser names the user in messages.
func describeUser(u learngate.UserRef) string {
	switch {
	case u.UserName != nil && u.ID != nil:
		return fmt.Sprintf("'%s' with user_id %d", input.Quote(*u.UserName), *u.ID)
	case u.UserName != nil:
		return fmt.Sprintf("'%s'", input.Quote(*u.UserName))
	case u.ID != nil:
		return fmt.Sprintf("with user_id %d", *u.ID)
	}
	return "''"
}

// AssignEnrolments applies the enrolment field groups reqs for one user,
// all or nothing (POST /topic_assignments), and returns the enrolment each
// code left, in reqs' order: the current one, or the one UNENROL removed.
// NotFound when the user does not exist; Invalid, with every problem in
// Details and nothing changed, when any group cannot be applied. The events
// of the enrolments it changed are recorded in the same transaction.
func AssignEnrolments(ctx context.Context, tdb *TenantDB, who learngate.UserRef, reqs []learngate.EnrolmentRequest, now time.Time) ([]learngate.Enrolment, error) {
	var out []learngate.Enrolment
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		var user struct {
			ID       int64  `db:"id"`
			UserName string `db:"user_name"`
		}
		var name *string
		if who.UserName != nil {
			lower := normalUserName(*who.UserName)
			name = &lower
		}
		err := sql.ErrNoRows
		if name == nil || storable(*name) {
			// The lock serialises the enrolment requests of one user.
			err = tx.GetContext(ctx, &user, `SELECT id, user_name FROM users
				WHERE ($1::bigint IS NULL OR id = $1) AND ($2::text IS NULL OR user_name = $2) FOR UPDATE`, who.ID, name)
		}
		if err != nil {
			if learngate.IsCode(translate(err), learngate.NotFound) {
				return &learngate.Error{Code: learngate.NotFound, Message: "Cannot find user " + describeUser(who), Err: err}
			}
			return fmt.Errorf("look up user: %w", err)
		}
		cat, err := lookupEnrolmentCatalog(ctx, tx, reqs)
		if err != nil {
			return err
		}
		// A batch of one: the same set-based rules as a users batch's codes.
		pairs := newCodePairs()
		for _, r := range reqs {
			if t, ok := cat.targets[strings.ToLower(r.Code)]; ok {
				pairs.add(user.ID, false, t)
			}
		}
		set, err := loadCodeSet(ctx, tx, pairs, namesPathways(cat, []learngate.BatchRow{{Enrolments: reqs}}), now)
		if err != nil {
			return err
		}
		var cs changes
		refs, problems, err := applyGroups(cat, enrolmentUser{ID: user.ID, Name: user.UserName}, reqs, now, &cs, set.apply)
		if err != nil {
			return err
		}
		if len(problems) > 0 {
			details := make([]string, len(problems))
			for i, p := range problems {
				details[i] = p.Message
			}
			return &learngate.Error{Code: learngate.Invalid, Message: details[0], Details: details}
		}
		if err := set.write(ctx, tx, cs); err != nil {
			return err
		}
		if out, err = loadEnrolmentRefs(ctx, tx, set.numbered(refs)); err != nil {
			return err
		}
		return tdb.recordChanges(ctx, tx, cs, now)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// loadEnrolmentRefs loads the enrolments refs address (removed ones too),
// in refs' order, with a fixed number of queries.
func loadEnrolmentRefs(ctx context.Context, tx *sqlx.Tx, refs []enrolmentRef) ([]learngate.Enrolment, error) {
	out := make([]learngate.Enrolment, len(refs))
	var topicIDs, pathwayIDs pq.Int64Array
	for _, r := range refs {
		if r.Pathway {
			pathwayIDs = append(pathwayIDs, r.ID)
		} else {
			topicIDs = append(topicIDs, r.ID)
		}
	}
	topics := map[int64]*learngate.TopicEnrolment{}
	if len(topicIDs) > 0 {
		var rows []topicEnrolmentRow
		if err := tx.SelectContext(ctx, &rows, topicEnrolmentSelect+` WHERE e.id = ANY($1)`, topicIDs); err != nil {
			return nil, fmt.Errorf("load topic enrolments: %w", err)
		}
		loaded, err := loadTopicEnrolments(ctx, tx, rows)
		if err != nil {
			return nil, err
		}
		for i := range loaded {
			topics[loaded[i].ID] = &loaded[i]
		}
	}
	pathways := map[int64]*learngate.PathwayEnrolment{}
	if len(pathwayIDs) > 0 {
		var rows []pathwayEnrolmentRow
		if err := tx.SelectContext(ctx, &rows, pathwayEnrolmentSelect+` WHERE e.id = ANY($1)`, pathwayIDs); err != nil {
			return nil, fmt.Errorf("load pathway enrolments: %w", err)
		}
		loaded, err := loadPathwayEnrolments(ctx, tx, rows)
		if err != nil {
			return nil, err
		}
		for i := range loaded {
			pathways[loaded[i].ID] = &loaded[i]
		}
	}
	for i, r := range refs {
		if r.Pathway {
			out[i].Pathway = pathways[r.ID]
		} else {
			out[i].Topic = topics[r.ID]
		}
	}
	return out, nil
}

// topicStatusRank orders the topic enrolment statuses: progress only moves
// to a status of higher (or equal) rank.
var topicStatusRank = map[string]int{learngate.StatusUnexplored: 0, learngate.StatusExploring: 1, learngate.StatusApplying: 2, learngate.StatusConquered: 3}

// MaxProgressMinutes is the most minutes one progress report may add.
const MaxProgressMinutes = 10000

// RecordProgress moves current topic enrolment id forward to p.Status and
// adds p.Minutes, then moves the user's pathways on. Reaching Conquered sets
// completed_topic_at to now and the certified date from the topic's
// certify_days. The same status again only adds the minutes. NotFound when
// there is no such current enrolment; Invalid for a move backwards or
// minutes out of range. The change records topic_enrolment.conquered when
// it reaches Conquered, topic_enrolment.updated for any other change, and
// the events of the pathway enrolments it moved; a report that changes
// nothing (the same status, no minutes) records none.
func RecordProgress(ctx context.Context, tdb *TenantDB, id int64, p learngate.Progress, now time.Time) (learngate.TopicEnrolment, error) {
	if p.Minutes < 0 || p.Minutes > MaxProgressMinutes {
		return learngate.TopicEnrolment{}, learngate.Errorf(learngate.Invalid,
			"Illegal value '%d' for 'minutes': it must be a whole number from 0 to %d", p.Minutes, MaxProgressMinutes)
	}
	if _, ok := topicStatusRank[p.Status]; !ok || p.Status == learngate.StatusUnexplored {
		return learngate.TopicEnrolment{}, learngate.Errorf(learngate.Invalid, "Illegal value '%s' for 'status'", input.Quote(p.Status))
	}
	now = now.UTC().Truncate(time.Microsecond)
	var out learngate.TopicEnrolment
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		var cur struct {
			UserID      int64  `db:"user_id"`
			Status      string `db:"status"`
			CertifyDays *int   `db:"certify_days"`
		}
		// The user's lock first, as AssignEnrolments takes it: a user's
		// enrolment changes run one at a time, so the pathway statuses see
		// every topic (and two requests never deadlock).
		err := tx.GetContext(ctx, &cur.UserID, `SELECT user_id FROM topic_enrolments WHERE id = $1 AND removed_at IS NULL`, id)
		if err != nil {
			return notFound(err)
		}
		if _, err := tx.ExecContext(ctx, `SELECT 1 FROM users WHERE id = $1 FOR UPDATE`, cur.UserID); err != nil {
			return fmt.Errorf("lock user %d: %w", cur.UserID, err)
		}
		err = tx.GetContext(ctx, &cur, `SELECT e.user_id, e.status, t.certify_days
			FROM topic_enrolments e JOIN topics t ON t.id = e.topic_id
			WHERE e.id = $1 AND e.removed_at IS NULL FOR UPDATE OF e`, id)
		if err != nil {
			return notFound(err) // unenrolled meanwhile
		}
		if topicStatusRank[p.Status] < topicStatusRank[cur.Status] {
			return learngate.Errorf(learngate.Invalid, "Status cannot move back from '%s' to '%s'", cur.Status, input.Quote(p.Status))
		}
		moved := p.Status != cur.Status
		var cs changes
		if moved || p.Minutes != 0 {
			typ := EventTopicEnrolmentUpdated
			if moved && p.Status == learngate.StatusConquered {
				typ = EventTopicEnrolmentConquered
			}
			cs.note(kindTopicEnrolment, id, typ)
			if err := writeProgress(ctx, tx, id, cur.UserID, p, moved, cur.CertifyDays, now, &cs); err != nil {
				return err
			}
		}
		loaded, err := loadEnrolmentRefs(ctx, tx, []enrolmentRef{{ID: id}})
		if err != nil {
			return err
		}
		out = *loaded[0].Topic
		return tdb.recordChanges(ctx, tx, cs, now)
	})
	if err != nil {
		return learngate.TopicEnrolment{}, err
	}
	return out, nil
}

// writeProgress stores progress p of topic enrolment id (of user userID);
// moved tells whether its status changes. The pathway enrolments it moves
// are added to cs.
func writeProgress(ctx context.Context, tx *sqlx.Tx, id, userID int64, p learngate.Progress, moved bool, certifyDays *int,
	now time.Time, cs *changes) error {
	var certified *time.Time
	if certifyDays != nil {
		until := now.AddDate(0, 0, *certifyDays)
		certified = &until
	}
	_, err := tx.ExecContext(ctx, `UPDATE topic_enrolments SET status = $2::text,
			progress_minutes = progress_minutes + $3,
			completed_topic_at = CASE WHEN $4::boolean AND $2::text = 'Conquered' THEN $5::timestamptz ELSE completed_topic_at END,
			certified_date = CASE WHEN $4::boolean AND $2::text = 'Conquered' THEN $6::timestamptz ELSE certified_date END,
			updated_at = $5::timestamptz
		WHERE id = $1`, id, p.Status, p.Minutes, moved, now, certified)
	if err != nil {
		return fmt.Errorf("record progress of topic enrolment %d: %w", id, err)
	}
	if !moved {
		return nil
	}
	// The user's pathway enrolments follow their topics, by the rules a
	// code's change follows (codeSet.updatePathwayStatuses).
	pairs := newCodePairs()
	pairs.addUser(userID)
	set, err := loadCodeSet(ctx, tx, pairs, true, now)
	if err != nil {
		return err
	}
	set.updatePathwayStatuses(userID, cs)
	return set.write(ctx, tx, *cs)
}
