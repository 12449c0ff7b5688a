package store

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"learngate/input"
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

// UserFilter narrows ListUsers. Zero values filter nothing.
type UserFilter struct {
	// UpdatedFilter bounds updated_at.
	UpdatedFilter
	Active *bool
	// Email matches exactly, ignoring case.
	Email string
	// CustomFields are x-<name> filters by the name after the prefix, with
	// their raw values; names of no custom field are ignored.
	CustomFields map[string]string
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
// Deep pages and the unfiltered total use the rank anchors of
// MaintainUserRanks (selectUserPage). A bad custom field filter value is
// Invalid.
func ListUsers(ctx context.Context, tdb *TenantDB, f UserFilter, page Page) ([]User, int64, error) {
	users := []User{}
	var total int64
	err := tdb.SnapshotTx(ctx, func(tx *sqlx.Tx) error {
		q, err := userFilterSQL(ctx, tx, f)
		if err != nil {
			return err
		}
		var rows []userRow
		total, err = selectUserPage(ctx, tx, &rows, q, page)
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

// updatedOnly says whether f filters on updated_at and nothing else.
func (f UserFilter) updatedOnly() bool {
	return (f.UpdatedAfter != nil || f.UpdatedBefore != nil) && f.Active == nil &&
		strings.TrimSpace(f.Email) == "" && len(f.CustomFields) == 0
}

// userQuery is a users list filter as SQL.
type userQuery struct {
	// where is the condition over users; args are its arguments.
	where string
	args  []any
	// values, when set, is the condition over user_custom_values v alone
	// of a sole x- filter: its count reads the field's matching values
	// (one per user: user_custom_values' key), 16 ms against 187 ms for
	// 83,000 matches of 1M users joined to users, and its page their user
	// ids in list order (valuesPageSQL).
	values string
	// sortMatches: the filter is on updated_at alone (sortedMatchesPageSQL).
	sortMatches bool
}

// userFilterSQL turns f into a userQuery.
func userFilterSQL(ctx context.Context, tx *sqlx.Tx, f UserFilter) (userQuery, error) {
	where := []string{"true"}
	var args []any
	var valueConds []string
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	if f.UpdatedAfter != nil {
		where = append(where, "updated_at > "+arg(*f.UpdatedAfter))
	}
	if f.UpdatedBefore != nil {
		where = append(where, "updated_at < "+arg(*f.UpdatedBefore))
	}
	if f.Active != nil {
		where = append(where, "active = "+arg(*f.Active))
	}
	if strings.TrimSpace(f.Email) != "" {
		where = append(where, "lower(email) = lower("+arg(strings.TrimSpace(f.Email))+")")
	}
	if len(f.CustomFields) > 0 {
		fields, err := customFieldsByName(ctx, tx)
		if err != nil {
			return userQuery{}, err
		}
		names := make([]string, 0, len(f.CustomFields))
		for name := range f.CustomFields {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			field, ok := fields[strings.ToLower(name)]
			raw := f.CustomFields[name]
			if !ok || strings.TrimSpace(raw) == "" {
				continue // unknown fields and empty values filter nothing
			}
			cond, values, err := customFilterSQL(field, "x-"+name, raw, arg)
			if err != nil {
				return userQuery{}, err
			}
			where = append(where, cond)
			valueConds = append(valueConds, values)
		}
	}
	q := userQuery{where: strings.Join(where, " AND "), args: args, sortMatches: f.updatedOnly()}
	if len(where) == 2 && len(valueConds) == 1 {
		q.values = valueConds[0]
	}
	return q, nil
}

// customFilterSQL is the condition of one x-<name> filter: strings match
// partially, numbers and dates exactly, lists when any of the comma-separated
// items is part of any of the user's items; all ignoring case. Numbers and
// dates are an EXISTS probing user_custom_values_value (field, value, the
// user's created_at and id: migration 00021). Strings and lists
// are `users.id IN (the field's matching user ids)`, found first on the
// trigram index user_custom_values_lower_trgm (lower(value) LIKE '%part%',
// migration 00019) with the field checked on the rows found, so that the
// count and the page join only those users. values is the same condition
// over the field's values v alone ("" when it matches every user).
func customFilterSQL(field CustomField, param, raw string, arg func(any) string) (cond, values string, err error) {
	// Numbers and dates match exactly: a value of up to 64 bytes on
	// user_custom_values_value, whose entries are the short values.
	exact := func(want string) (string, string, error) {
		values := "v.field_id = " + arg(field.ID) + " AND v.value = " + arg(want)
		if len(want) <= 64 {
			values += " AND length(v.value) <= 64"
		}
		return `EXISTS (SELECT 1 FROM user_custom_values v WHERE v.user_created_at = users.created_at AND v.user_id = users.id AND ` +
			values + `)`, values, nil
	}
	matching := func(cond string) (string, string, error) {
		values := `v.field_id = ` + arg(field.ID) + ` AND ` + cond
		return `users.id IN (SELECT v.user_id FROM user_custom_values v WHERE ` + values + `)`, values, nil
	}
	switch field.FieldType {
	case FieldNumber:
		f, err := input.Decimal(param, raw)
		if err != nil {
			return "", "", err
		}
		return exact(formatNumber(f))
	case FieldDate:
		d, err := input.Date(param, raw)
		if err != nil || input.FormatDate(d) != strings.TrimSpace(raw) {
			return "", "", input.IllegalValue(param, raw)
		}
		return exact(input.FormatDate(d))
	case FieldList:
		var items []string
		for _, item := range strings.Split(raw, ",") {
			if item = strings.TrimSpace(item); item != "" {
				items = append(items, item)
			}
		}
		if len(items) == 0 {
			return "true", "", nil
		}
		// A stored item holding a wanted part means the whole value holds
		// it: the whole-value matches, ORed, are a necessary prefilter the
		// index serves; the exact per-item condition decides.
		pre := make([]string, len(items))
		for i, item := range items {
			pre[i] = "lower(v.value) LIKE lower(" + arg(likeContains(item)) + ")"
		}
		return matching("(" + strings.Join(pre, " OR ") + `) AND EXISTS (
			SELECT 1 FROM unnest(string_to_array(v.value, ';')) AS item, unnest(` + arg(pq.StringArray(items)) + `::text[]) AS want
			WHERE strpos(lower(item), lower(want)) > 0)`)
	}
	return matching("lower(v.value) LIKE lower(" + arg(likeContains(strings.TrimSpace(raw))) + ")")
}

// likeEscaper escapes LIKE's wildcards and its default escape character.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// likeContains is the LIKE pattern of the values holding part as it is:
// `%`, `_` and `\` in part are plain characters (docs/decisions.md,
// "GET /papi/users").
func likeContains(part string) string {
	return "%" + likeEscaper.Replace(part) + "%"
}
