package store

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"learngate"
	"learngate/input"
)

// writableUserColumns are the users columns a request can change, in the
// order of userRow.writable.
var writableUserColumns = []string{
	"user_name", "first_name", "last_name", "email",
	"manager_email", "manager_2_email", "manager_3_email", "manager_4_email", "manager_5_email",
	"mentor_email", "lms_learner_id", "lms_reference", "creator",
	"deactivate_scheduled_date", "reactivate_scheduled_date", "language", "timezone",
	"user_notifications_enabled", "force_pwd_reset_next_login",
	"manager_email_report_1st_month", "manager_email_report_15th_month",
	"team_leader_report_frequency", "learner_report_frequency", "assessor_report_frequency",
	"default_landing_page", "login", "type", "active", "password_hash",
}

// writable returns the values of writableUserColumns.
func (r *userRow) writable() []any {
	return []any{
		r.UserName, r.FirstName, r.LastName, r.Email,
		r.ManagerEmail, r.Manager2Email, r.Manager3Email, r.Manager4Email, r.Manager5Email,
		r.MentorEmail, r.LMSLearnerID, r.LMSReference, r.Creator,
		r.DeactivateScheduledDate, r.ReactivateScheduledDate, r.Language, r.Timezone,
		r.UserNotificationsEnabled, r.ForcePwdResetNextLogin,
		r.ManagerEmailReport1stMonth, r.ManagerEmailReport15thMonth,
		r.TeamLeaderReportFrequency, r.LearnerReportFrequency, r.AssessorReportFrequency,
		r.DefaultLandingPage, r.Login, r.Type, r.Active, r.PasswordHash,
	}
}

// The INSERT and UPDATE of writableUserColumns; updated_at (and created_at)
// is the argument after them, the id of an UPDATE the one after that.
var (
	insertUserSQL, updateUserSQL = userWriteSQL()
)

func userWriteSQL() (string, string) {
	n := len(writableUserColumns)
	marks := make([]string, n)
	sets := make([]string, n)
	for i, col := range writableUserColumns {
		marks[i] = fmt.Sprintf("$%d", i+1)
		sets[i] = fmt.Sprintf("%s = $%d", col, i+1)
	}
	insert := fmt.Sprintf(`INSERT INTO users (%s, created_at, updated_at) VALUES (%s, $%d, $%d) RETURNING id`,
		strings.Join(writableUserColumns, ", "), strings.Join(marks, ", "), n+1, n+1)
	update := fmt.Sprintf(`UPDATE users SET %s, updated_at = $%d WHERE id = $%d`, strings.Join(sets, ", "), n+1, n+2)
	return insert, update
}

// userLinks are what a user carries besides its row: role ids by position
// (0: none), group and goal ids (sorted), custom values by field id.
type userLinks struct {
	roles  [5]int64
	groups []int64
	goals  []int64
	custom map[int64]string
}

// saveUser applies in to old (nil for a new user), checks the result and
// writes what changed, stamping updated_at with now only then. It returns
// the user's id and what it did (userUnchanged when it wrote nothing).
// Nothing is written before every check has passed.
func saveUser(ctx context.Context, tx *sqlx.Tx, old *userRow, in learngate.UserInput, now time.Time) (int64, userChange, error) {
	links := userLinks{custom: map[int64]string{}}
	if old != nil {
		var err error
		if links, err = loadLinks(ctx, tx, old.ID); err != nil {
			return 0, userUnchanged, err
		}
	}
	cat, err := lookupLinkCatalog(ctx, tx, []learngate.UserInput{in})
	if err != nil {
		return 0, userUnchanged, err
	}
	row, newLinks, err := planUser(old, links, in, cat, now)
	if err != nil {
		return 0, userUnchanged, err
	}
	if err := checkTaken(ctx, tx, row); err != nil {
		return 0, userUnchanged, err
	}
	rowChanged := old == nil || !sameValues(old.writable(), row.writable())
	linksChanged := !newLinks.equal(links)
	if !rowChanged && !linksChanged {
		return row.ID, userUnchanged, nil
	}
	now = now.UTC().Truncate(time.Microsecond)
	args := append(row.writable(), now)
	if old == nil {
		err = tx.GetContext(ctx, &row.ID, insertUserSQL, args...)
	} else {
		_, err = tx.ExecContext(ctx, updateUserSQL, append(args, row.ID)...)
	}
	if err != nil {
		return 0, userUnchanged, takenByRace(err, row)
	}
	if err := writeLinks(ctx, tx, row.ID, links, newLinks); err != nil {
		return 0, userUnchanged, err
	}
	return row.ID, changeOf(old, row.Active), nil
}

// planUser returns the row and links saving in would leave: old (nil for
// a new user, which starts from newUserRow) and its links changed by in,
// the names of in resolved with cat. The errors are those of
// linkCatalog.resolve, then those of applyUserInput.
func planUser(old *userRow, links userLinks, in learngate.UserInput, cat linkCatalog, now time.Time) (userRow, userLinks, error) {
	row := newUserRow()
	if old != nil {
		row = *old
	}
	newLinks, err := cat.resolve(in, links)
	if err != nil {
		return row, newLinks, err
	}
	if err := applyUserInput(in, &row, now); err != nil {
		return row, newLinks, err
	}
	return row, newLinks, nil
}

// newUserRow is a new user before its input is applied: the defaults.
func newUserRow() userRow {
	return userRow{Language: "en", Type: input.DefaultUserType, Login: "internal", Active: true, UserNotificationsEnabled: true}
}

// applyUserInput sets the given fields of in on r. Invalid for a scheduled date
// that is not in the future and for a password given with login external
// (an external user's existing password is removed).
func applyUserInput(in learngate.UserInput, r *userRow, now time.Time) error {
	setString(&r.UserName, in.UserName)
	setString(&r.FirstName, in.FirstName)
	setString(&r.LastName, in.LastName)
	setString(&r.Email, in.Email)
	setString(&r.Type, in.Type)
	setString(&r.Login, in.Login)
	setString(&r.Language, in.Language)
	setString(&r.Timezone, in.Timezone)
	for i, m := range r.managerEmails() {
		setOptional(m, in.ManagerEmails[i])
	}
	setOptional(&r.MentorEmail, in.MentorEmail)
	setOptional(&r.LMSLearnerID, in.LMSLearnerID)
	setOptional(&r.LMSReference, in.LMSReference)
	setBool(&r.Active, in.Active)
	setBool(&r.Creator, in.Creator)
	setBool(&r.UserNotificationsEnabled, in.UserNotificationsEnabled)
	setBool(&r.ForcePwdResetNextLogin, in.ForcePwdResetNextLogin)
	setBool(&r.ManagerEmailReport1stMonth, in.ManagerEmailReport1stMonth)
	setBool(&r.ManagerEmailReport15thMonth, in.ManagerEmailReport15thMonth)
	setOptional(&r.TeamLeaderReportFrequency, in.TeamLeaderReportFrequency)
	setOptional(&r.LearnerReportFrequency, in.LearnerReportFrequency)
	setOptional(&r.AssessorReportFrequency, in.AssessorReportFrequency)
	setOptional(&r.DefaultLandingPage, in.DefaultLandingPage)
	setOptional(&r.PasswordHash, in.PasswordHash)
	if r.Login == "external" && r.PasswordHash != nil {
		if in.PasswordHash != nil {
			return learngate.Errorf(learngate.Invalid, "a password is not allowed with login 'external'")
		}
		r.PasswordHash = nil // single sign-on users have no password of ours
	}
	loc, err := time.LoadLocation(r.Timezone)
	if err != nil {
		return fmt.Errorf("time zone %q of user %q: %w", r.Timezone, r.UserName, err)
	}
	for _, d := range []struct {
		field string
		in    *learngate.ScheduledDate
		out   **time.Time
	}{
		{"deactivate_scheduled_date", in.DeactivateScheduledDate, &r.DeactivateScheduledDate},
		{"reactivate_scheduled_date", in.ReactivateScheduledDate, &r.ReactivateScheduledDate},
	} {
		if d.in == nil {
			continue
		}
		if d.in.Day.IsZero() {
			*d.out = nil
			continue
		}
		// The date starts at midnight in the user's time zone; it must be ahead.
		at := time.Date(d.in.Day.Year(), d.in.Day.Month(), d.in.Day.Day(), 0, 0, 0, 0, loc)
		if !at.After(now) {
			return input.IllegalValue(d.field, d.in.Raw)
		}
		*d.out = &at
	}
	return nil
}

func setString(dst *string, v *string) {
	if v != nil {
		*dst = *v
	}
}

// setOptional sets a nullable column: "" makes it NULL.
func setOptional(dst **string, v *string) {
	switch {
	case v == nil:
	case *v == "":
		*dst = nil
	default:
		s := *v
		*dst = &s
	}
}

func setBool(dst *bool, v *bool) {
	if v != nil {
		*dst = *v
	}
}

// sameValues reports whether two writable() lists hold equal values.
func sameValues(a, b []any) bool {
	for i := range a {
		if comparableValue(a[i]) != comparableValue(b[i]) {
			return false
		}
	}
	return true
}

// comparableValue turns a writable value into one == compares by value.
func comparableValue(v any) any {
	switch x := v.(type) {
	case *string:
		if x == nil {
			return nil
		}
		return *x
	case *time.Time:
		if x == nil {
			return nil
		}
		return x.UTC().Truncate(time.Microsecond)
	}
	return v
}

// checkTaken is Unprocessable, listing each clash, when another user has
// r's user_name, its email (ignoring case) or its lms_learner_id and
// lms_reference pair.
func checkTaken(ctx context.Context, tx *sqlx.Tx, r userRow) error {
	var others []userRow
	err := tx.SelectContext(ctx, &others, `SELECT `+userColumns+` FROM users WHERE id <> $1
		AND (user_name = $2 OR lower(email) = lower($3) OR (lms_learner_id = $4 AND lms_reference = $5))`,
		r.ID, r.UserName, r.Email, r.LMSLearnerID, r.LMSReference)
	if err != nil {
		return fmt.Errorf("check user uniqueness: %w", err)
	}
	var name, email, lms bool
	for _, o := range others {
		name = name || o.UserName == r.UserName
		email = email || strings.EqualFold(o.Email, r.Email)
		lms = lms || (o.LMSLearnerID != nil && o.LMSReference != nil && r.LMSLearnerID != nil && r.LMSReference != nil &&
			*o.LMSLearnerID == *r.LMSLearnerID && *o.LMSReference == *r.LMSReference)
	}
	return takenError(r, name, email, lms, nil)
}

// takenByRace turns the unique violation of a concurrent save into the
// Unprocessable error checkTaken would have given; other errors pass.
func takenByRace(err error, r userRow) error {
	if !isUniqueViolation(err) {
		return err
	}
	c := ConstraintName(err)
	if taken := takenError(r, c == "users_user_name", c == "users_email", c == "users_lms", err); taken != nil {
		return taken
	}
	return err
}

func takenError(r userRow, name, email, lms bool, cause error) error {
	var msgs []string
	if name {
		msgs = append(msgs, fmt.Sprintf("user_name '%s' is already taken", input.Quote(r.UserName)))
	}
	if email {
		msgs = append(msgs, fmt.Sprintf("email '%s' is already taken", input.Quote(r.Email)))
	}
	if lms {
		msgs = append(msgs, fmt.Sprintf("lms_learner_id '%s' with lms_reference '%s' is already taken",
			*r.LMSLearnerID, *r.LMSReference))
	}
	if len(msgs) == 0 {
		return nil
	}
	return &learngate.Error{Code: learngate.Unprocessable, Message: msgs[0], Details: msgs, Err: cause}
}

// loadLinks reads the roles, groups, goals and custom values of user id.
func loadLinks(ctx context.Context, tx *sqlx.Tx, id int64) (userLinks, error) {
	l := userLinks{custom: map[int64]string{}}
	var roles []struct {
		Position int   `db:"position"`
		RoleID   int64 `db:"role_id"`
	}
	if err := tx.SelectContext(ctx, &roles, `SELECT position, role_id FROM user_roles WHERE user_id = $1`, id); err != nil {
		return l, fmt.Errorf("load user roles: %w", err)
	}
	for _, r := range roles {
		l.roles[r.Position-1] = r.RoleID
	}
	if err := tx.SelectContext(ctx, &l.groups, `SELECT group_id FROM user_groups WHERE user_id = $1 ORDER BY group_id`, id); err != nil {
		return l, fmt.Errorf("load user groups: %w", err)
	}
	if err := tx.SelectContext(ctx, &l.goals, `SELECT goal_id FROM user_goals WHERE user_id = $1 ORDER BY goal_id`, id); err != nil {
		return l, fmt.Errorf("load user goals: %w", err)
	}
	var values []struct {
		FieldID int64  `db:"field_id"`
		Value   string `db:"value"`
	}
	if err := tx.SelectContext(ctx, &values, `SELECT field_id, value FROM user_custom_values WHERE user_id = $1`, id); err != nil {
		return l, fmt.Errorf("load user custom values: %w", err)
	}
	for _, v := range values {
		l.custom[v.FieldID] = v.Value
	}
	return l, nil
}

func (l userLinks) equal(o userLinks) bool {
	return l.roles == o.roles && slices.Equal(l.groups, o.groups) && slices.Equal(l.goals, o.goals) && maps.Equal(l.custom, o.custom)
}

// writeLinks replaces the links of user id that differ between old and new.
func writeLinks(ctx context.Context, tx *sqlx.Tx, id int64, old, new userLinks) error {
	if old.roles != new.roles {
		var positions, roles []int64
		for i, r := range new.roles {
			if r != 0 {
				positions = append(positions, int64(i+1))
				roles = append(roles, r)
			}
		}
		if err := replaceLinks(ctx, tx, id, old.roles != [5]int64{}, "user_roles", "position, role_id",
			`SELECT $1, p, r FROM unnest($2::bigint[], $3::bigint[]) AS t(p, r)`,
			pq.Int64Array(positions), pq.Int64Array(roles)); err != nil {
			return err
		}
	}
	if !slices.Equal(old.groups, new.groups) {
		if err := replaceLinks(ctx, tx, id, len(old.groups) > 0, "user_groups", "group_id",
			`SELECT $1, unnest($2::bigint[])`, pq.Int64Array(new.groups)); err != nil {
			return err
		}
	}
	if !slices.Equal(old.goals, new.goals) {
		if err := replaceLinks(ctx, tx, id, len(old.goals) > 0, "user_goals", "goal_id",
			`SELECT $1, unnest($2::bigint[])`, pq.Int64Array(new.goals)); err != nil {
			return err
		}
	}
	if !maps.Equal(old.custom, new.custom) {
		fields := make([]int64, 0, len(new.custom))
		for f := range new.custom {
			fields = append(fields, f)
		}
		sort.Slice(fields, func(i, j int) bool { return fields[i] < fields[j] })
		values := make([]string, len(fields))
		for i, f := range fields {
			values[i] = new.custom[f]
		}
		if err := replaceLinks(ctx, tx, id, len(old.custom) > 0, "user_custom_values", "field_id, value",
			`SELECT $1, f, v FROM unnest($2::bigint[], $3::text[]) AS t(f, v)`,
			pq.Int64Array(fields), pq.StringArray(values)); err != nil {
			return err
		}
	}
	return nil
}

// replaceLinks deletes the rows of user id in table (a constant of this
// file), when it had any, and inserts the rows that selectRows, given id
// and args, yields.
func replaceLinks(ctx context.Context, tx *sqlx.Tx, id int64, hadAny bool, table, columns, selectRows string, args ...any) error {
	if hadAny {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE user_id = $1`, id); err != nil {
			return fmt.Errorf("clear %s: %w", table, err)
		}
	}
	q := `INSERT INTO ` + table + ` (user_id, ` + columns + `) ` + selectRows
	if _, err := tx.ExecContext(ctx, q, append([]any{id}, args...)...); err != nil {
		return fmt.Errorf("write %s: %w", table, err)
	}
	return nil
}
