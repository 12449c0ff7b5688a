package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"learngate/store/list"
)

// UserInput is a user request's fields after the handler has parsed them
// (docs/api.md, "Users"). A nil field was not given and stays
// as it is; a pointer to "" clears an optional field. Names of roles, groups,
// goals and custom fields are resolved by the store, in the transaction.
type UserInput struct {
	UserName, FirstName, LastName, Email *string
	// Type and Login are canonical spellings; Language a code of input.Languages.
	Type, Login, Language *string
	// Timezone is a valid IANA name; CreateUser needs one (the tenant's by default).
	Timezone                    *string
	ManagerEmails               [5]*string
	MentorEmail                 *string
	LMSLearnerID, LMSReference  *string
	Active, Creator             *bool
	UserNotificationsEnabled    *bool
	ForcePwdResetNextLogin      *bool
	ManagerEmailReport1stMonth  *bool
	ManagerEmailReport15thMonth *bool
	// PasswordHash is a bcrypt hash; "" removes the password.
	PasswordHash *string
	// Scheduled dates: a zero Day clears.
	DeactivateScheduledDate, ReactivateScheduledDate *ScheduledDate
	// Report frequencies are values of input.ReportFrequencies, or "" (none).
	TeamLeaderReportFrequency, LearnerReportFrequency, AssessorReportFrequency *string
	// DefaultLandingPage is a value of input.LandingPages, or "" (Default).
	DefaultLandingPage *string
	// Roles[i] is the role name of position i+1; "" removes it.
	Roles [5]*string
	// Groups and Goals replace all current ones; nil: not given; empty: remove all.
	Groups, Goals []string
	// CustomFields are the X- properties by the name after the prefix, as sent.
	CustomFields map[string]any
	// SendInvitation (send_invitation) asks CreateUser and UpdateUser to queue
	// the user's invitation email in the same transaction; an inactive user
	// is not invited and the save still succeeds. Batch saves ignore it: they
	// follow their send_invitations policy.
	SendInvitation bool
}

// ScheduledDate is a requested deactivate or reactivate date.
type ScheduledDate struct {
	// Day is the date at midnight UTC, as input.Date gives it; zero clears.
	Day time.Time
	// Raw is the value as sent, for the error message.
	Raw string
}

// GetUser returns the user called userName, in any letter case; NotFound
// when there is none.
func GetUser(ctx context.Context, tdb *TenantDB, userName string) (User, error) {
	var user User
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
func CreateUser(ctx context.Context, tdb *TenantDB, in UserInput, now time.Time) (User, error) {
	for i, v := range []*string{in.UserName, in.FirstName, in.LastName, in.Email, in.Timezone} {
		if v == nil || *v == "" {
			field := []string{"user_name", "first_name", "last_name", "email", "timezone"}[i]
			return User{}, fmt.Errorf("create user: %s is required", field)
		}
	}
	var user User
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
func UpdateUser(ctx context.Context, tdb *TenantDB, userName string, in UserInput, now time.Time) (User, error) {
	var user User
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		var old userRow
		err := tx.GetContext(ctx, &old, `SELECT `+UserColumns+` FROM users WHERE user_name = $1 FOR UPDATE`,
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
func ListUsers(ctx context.Context, tdb *TenantDB, f UserFilter, page Page) ([]User, int64, error) {
	users := []User{}
	var total int64
	err := tdb.SnapshotTx(ctx, func(tx *sqlx.Tx) error {
		var fields map[string]list.Field
		if len(f.CustomFields) > 0 {
			var err error
			if fields, err = customFieldsForFilters(ctx, tx); err != nil {
				return err
			}
		}
		q, err := f.Query(ctx, tx, fields)
		if err != nil {
			return err
		}
		var rows []userRow
		total, err = list.Select(ctx, tx, &rows, list.Users, `SELECT `+UserColumns+` FROM users`, q, page)
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

// customFieldsForFilters are the tenant's custom fields by lower case name,
// as the users list's x- filters need them.
func customFieldsForFilters(ctx context.Context, tx *sqlx.Tx) (map[string]list.Field, error) {
	fields, err := customFieldsByName(ctx, tx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]list.Field, len(fields))
	for name, f := range fields {
		out[name] = list.Field{ID: f.ID, Type: f.FieldType}
	}
	return out, nil
}
