package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"learngate"
	"learngate/store/list"
)

// GetUser returns the user called userName, in any letter case; NotFound
// when there is none.
func GetUser(ctx context.Context, tdb *TenantDB, userName string) (learngate.User, error) {
	var user learngate.User
	err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		user, err = userByName(ctx, tx, userName)
		return err
	})
	return user, err
}

// CreateUser stores a new user (created_by api) with its roles, groups,
// goals and custom values in one transaction and returns it. UserName,
// FirstName, LastName, Email and Timezone must be given. Invalid for an
// unknown role, group, goal or custom field, a bad custom value, a past
// scheduled date or a password with login external; Unprocessable when the
// user_name, the email or the lms_learner_id/lms_reference pair is taken.
// With in.SendInvitation an active user's invitation is queued too.
func CreateUser(ctx context.Context, tdb *TenantDB, in learngate.UserInput, now time.Time) (learngate.User, error) {
	for i, v := range []*string{in.UserName, in.FirstName, in.LastName, in.Email, in.Timezone} {
		if v == nil || *v == "" {
			field := []string{"user_name", "first_name", "last_name", "email", "timezone"}[i]
			return learngate.User{}, fmt.Errorf("create user: %s is required", field)
		}
	}
	var user learngate.User
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		id, change, err := saveUser(ctx, tx, nil, in, now)
		if err != nil {
			return err
		}
		if in.SendInvitation {
			if _, err := tdb.queueInvitation(ctx, tx, id); err != nil {
				return err
			}
		}
		if user, err = userByID(ctx, tx, id); err != nil {
			return err
		}
		return tdb.recordUser(ctx, tx, change, user, now)
	})
	return user, err
}

// UpdateUser changes the given fields of the user called userName (any
// letter case) and returns it; updated_at moves only when something
// changed. NotFound when there is no such user; other errors as CreateUser.
// With in.SendInvitation the (active) user's invitation is queued even when
// nothing else changed: it is a request to send it again.
func UpdateUser(ctx context.Context, tdb *TenantDB, userName string, in learngate.UserInput, now time.Time) (learngate.User, error) {
	var user learngate.User
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		var old userRow
		err := tx.GetContext(ctx, &old, `SELECT `+userColumns+` FROM users WHERE user_name = $1 FOR UPDATE`,
			strings.ToLower(userName))
		if err != nil {
			return notFound(err)
		}
		_, change, err := saveUser(ctx, tx, &old, in, now)
		if err != nil {
			return err
		}
		if passwordWritten(&old, in) {
			if err := tdb.endWebSessions(ctx, tx, []int64{old.ID}); err != nil {
				return err
			}
		}
		if in.SendInvitation {
			if _, err := tdb.queueInvitation(ctx, tx, old.ID); err != nil {
				return err
			}
		}
		if user, err = userByID(ctx, tx, old.ID); err != nil {
			return err
		}
		return tdb.recordUser(ctx, tx, change, user, now)
	})
	return user, err
}

// ListUsers returns one page of the users that pass f, newest first
// (created_at desc, id desc), and how many pass it, all in one snapshot.
// The plan is the filter's (list.UserFilter.Query). A bad custom field
// filter value is Invalid.
func ListUsers(ctx context.Context, tdb *TenantDB, f list.UserFilter, page list.Page) ([]learngate.User, int64, error) {
	users := []learngate.User{}
	var total int64
	err := tdb.SnapshotTx(ctx, func(tx *sqlx.Tx) error {
		var fields map[string]learngate.CustomField
		if len(f.CustomFields) > 0 {
			var err error
			if fields, err = customFieldsByName(ctx, tx); err != nil {
				return err
			}
		}
		q, err := f.Query(ctx, tx, fields)
		if err != nil {
			return err
		}
		var rows []userRow
		total, err = list.Select(ctx, tx, &rows, list.Users, `SELECT `+userColumns+` FROM users`, q, page)
		if err != nil {
			return fmt.Errorf("list users: %w", err)
		}
		users, err = loadUsers(ctx, tx, rows)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return users, total, nil
}
