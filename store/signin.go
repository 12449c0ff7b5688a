package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"learngate"
)

// Learner sign-in (docs/decisions.md, "Sign-in"): finding the user an
// identity provider's claim names, creating one on first sign-in (JIT),
// recording a sign-in, and the ownership checks of "My learning".

// Match values: which claim finds the user.
const (
	MatchEmail    = "email"
	MatchUserName = "user_name"
)

// UserForSignIn returns the tenant's user whose email (match MatchEmail) or
// user_name (MatchUserName) is value, ignoring case; NotFound when none.
func UserForSignIn(ctx context.Context, tdb *TenantDB, match, value string) (learngate.User, error) {
	if value == "" || !storable(value) {
		return learngate.User{}, learngate.Errorf(learngate.NotFound, "not found")
	}
	column := "lower(email)"
	if match == MatchUserName {
		column = "user_name"
	}
	var user learngate.User
	err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		var id int64
		if err := tx.GetContext(ctx, &id, `SELECT id FROM users WHERE `+column+` = $1`, strings.ToLower(value)); err != nil {
			return notFound(err)
		}
		var err error
		user, err = userByID(ctx, tx, id)
		return err
	})
	return user, err
}

// SignInUser returns the user with internal id; NotFound when none.
func SignInUser(ctx context.Context, tdb *TenantDB, id int64) (learngate.User, error) {
	var user learngate.User
	err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		user, err = userByID(ctx, tx, id)
		return notFound(err)
	})
	return user, err
}

// CreateSignInUser creates a learner on first sign-in (JIT): the same
// checks and event as CreateUser, with created_by sso.
func CreateSignInUser(ctx context.Context, tdb *TenantDB, in learngate.UserInput, now time.Time) (learngate.User, error) {
	var user learngate.User
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		id, change, err := saveUser(ctx, tx, nil, in, now)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE users SET created_by = 'sso' WHERE id = $1`, id); err != nil {
			return fmt.Errorf("mark user created by sso: %w", err)
		}
		if user, err = userByID(ctx, tx, id); err != nil {
			return err
		}
		return tdb.recordUser(ctx, tx, change, user, now)
	})
	return user, err
}

// RecordSignIn sets current_sign_in_at of active user id to now and, in
// the same transaction, records the webhook event user.signed_in with the
// user as the API now shows it; NotFound when there is no such active
// user. updated_at does not move: a sign-in is no change to the user's
// record. With no endpoint subscribed to the event the user is not loaded.
func RecordSignIn(ctx context.Context, tdb *TenantDB, id int64, now time.Time) error {
	return tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE users SET current_sign_in_at = $2 WHERE id = $1 AND active`,
			id, now.UTC().Truncate(time.Microsecond))
		if err != nil {
			return fmt.Errorf("record sign-in: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return learngate.Errorf(learngate.NotFound, "not found")
		}
		targets, err := webhookTargets(ctx, tx)
		if err != nil || !anyWants(targets, EventUserSignedIn) {
			return err
		}
		user, err := userByID(ctx, tx, id)
		if err != nil {
			return err
		}
		return tdb.recordEventsFor(ctx, tx, targets, []Event{{Type: EventUserSignedIn, Data: user, At: now}})
	})
}

// SetSignInPassword stores hash (bcrypt, made by the caller outside the
// transaction) as the password of active user id and clears their
// force_pwd_reset_next_login, as a user save does: updated_at moves and
// user.updated is recorded. NotFound when there is no such active user;
// Invalid when the user's login is external (no password of ours).
func SetSignInPassword(ctx context.Context, tdb *TenantDB, id int64, hash string, now time.Time) (learngate.User, error) {
	var user learngate.User
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		var old userRow
		if err := tx.GetContext(ctx, &old, `SELECT `+userColumns+` FROM users WHERE id = $1 AND active FOR UPDATE`, id); err != nil {
			return notFound(err)
		}
		off := false
		_, change, err := saveUser(ctx, tx, &old, learngate.UserInput{PasswordHash: &hash, ForcePwdResetNextLogin: &off}, now)
		if err != nil {
			return err
		}
		if err := tdb.endWebSessions(ctx, tx, []int64{id}); err != nil {
			return err
		}
		if user, err = userByID(ctx, tx, id); err != nil {
			return err
		}
		return tdb.recordUser(ctx, tx, change, user, now)
	})
	return user, err
}

// EnrolmentOwner returns the id of the user whose current enrolment ref
// is; NotFound when there is none.
func EnrolmentOwner(ctx context.Context, tdb *TenantDB, ref EnrolmentRef) (int64, error) {
	table := "topic_enrolments"
	if ref.Kind == PathwayCertificate {
		table = "pathway_enrolments"
	}
	var owner int64
	err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		return notFound(tx.GetContext(ctx, &owner, `SELECT user_id FROM `+table+` WHERE id = $1 AND removed_at IS NULL`, ref.ID))
	})
	return owner, err
}

// UserForPassword returns the tenant's user whose user_name is userName
// (ignoring case) and their bcrypt password hash ("" when they have no
// password); NotFound when there is no such user.
func UserForPassword(ctx context.Context, tdb *TenantDB, userName string) (learngate.User, string, error) {
	if userName == "" || !storable(userName) {
		return learngate.User{}, "", learngate.Errorf(learngate.NotFound, "not found")
	}
	var user learngate.User
	var hash *string
	err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		var row struct {
			ID   int64   `db:"id"`
			Hash *string `db:"password_hash"`
		}
		if err := tx.GetContext(ctx, &row, `SELECT id, password_hash FROM users WHERE lower(user_name) = $1`,
			strings.ToLower(userName)); err != nil {
			return notFound(err)
		}
		hash = row.Hash
		var err error
		user, err = userByID(ctx, tx, row.ID)
		return err
	})
	if err != nil || hash == nil {
		return user, "", err
	}
	return user, *hash, nil
}
