package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"

	"learngate"
	"learngate/store/list"
)

// ListTopicEnrolments returns one page of the current topic enrolments
// that pass f, oldest first (id ascending), and how many pass it, in one
// snapshot: four queries whatever the page size (list.TopicEnrolments).
func ListTopicEnrolments(ctx context.Context, tdb *TenantDB, f list.EnrolmentFilter, page list.Page) ([]learngate.TopicEnrolment, int64, error) {
	var out []learngate.TopicEnrolment
	var total int64
	err := tdb.SnapshotTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		out, total, err = listTopicEnrolments(ctx, tx, f, page)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// ListUserTopicEnrolments is ListTopicEnrolments for the user called
// userName (any letter case); NotFound ("not found") when there is no such user.
func ListUserTopicEnrolments(ctx context.Context, tdb *TenantDB, userName string, f list.EnrolmentFilter, page list.Page) ([]learngate.TopicEnrolment, int64, error) {
	var out []learngate.TopicEnrolment
	var total int64
	err := tdb.SnapshotTx(ctx, func(tx *sqlx.Tx) error {
		var id int64
		if !storable(userName) {
			return notFound(sql.ErrNoRows)
		}
		if err := tx.GetContext(ctx, &id, `SELECT id FROM users WHERE user_name = $1`, strings.ToLower(userName)); err != nil {
			return notFound(err)
		}
		f.UserID = &id
		var err error
		out, total, err = listTopicEnrolments(ctx, tx, f, page)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

func listTopicEnrolments(ctx context.Context, tx *sqlx.Tx, f list.EnrolmentFilter, page list.Page) ([]learngate.TopicEnrolment, int64, error) {
	var rows []topicEnrolmentRow
	total, err := list.Select(ctx, tx, &rows, list.TopicEnrolments, topicEnrolmentSelect, f.Query(list.TopicEnrolments), page)
	if err != nil {
		return nil, 0, fmt.Errorf("list topic enrolments: %w", err)
	}
	out, err := loadTopicEnrolments(ctx, tx, rows)
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// ListPathwayEnrolments returns one page of the current pathway enrolments
// that pass f, oldest first (id ascending), and how many pass it, in one
// snapshot: three queries whatever the page size (list.PathwayEnrolments).
func ListPathwayEnrolments(ctx context.Context, tdb *TenantDB, f list.EnrolmentFilter, page list.Page) ([]learngate.PathwayEnrolment, int64, error) {
	var out []learngate.PathwayEnrolment
	var total int64
	err := tdb.SnapshotTx(ctx, func(tx *sqlx.Tx) error {
		var rows []pathwayEnrolmentRow
		var err error
		total, err = list.Select(ctx, tx, &rows, list.PathwayEnrolments, pathwayEnrolmentSelect, f.Query(list.PathwayEnrolments), page)
		if err != nil {
			return fmt.Errorf("list pathway enrolments: %w", err)
		}
		out, err = loadPathwayEnrolments(ctx, tx, rows)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// GetPathwayEnrolment returns current pathway enrolment id; NotFound
// ("cannot find pathway assignment") when there is none.
func GetPathwayEnrolment(ctx context.Context, tdb *TenantDB, id int64) (learngate.PathwayEnrolment, error) {
	var out learngate.PathwayEnrolment
	err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		var rows []pathwayEnrolmentRow
		if err := tx.SelectContext(ctx, &rows, pathwayEnrolmentSelect+` WHERE e.id = $1 AND e.removed_at IS NULL`, id); err != nil {
			return fmt.Errorf("load pathway enrolment %d: %w", id, err)
		}
		if len(rows) == 0 {
			return PathwayEnrolmentNotFound()
		}
		loaded, err := loadPathwayEnrolments(ctx, tx, rows)
		if err != nil {
			return err
		}
		out = loaded[0]
		return nil
	})
	return out, err
}

// PathwayEnrolmentNotFound is the spec's 404 of GET /pathway_assignments/{id}:
// {"error":"cannot find pathway assignment"}.
func PathwayEnrolmentNotFound() *learngate.Error {
	return &learngate.Error{Code: learngate.NotFound, Message: "cannot find pathway assignment"}
}
