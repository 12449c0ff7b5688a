package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"learngate"
)

// userRow is a users row as the driver reads it.
type userRow struct {
	ID                          int64      `db:"id"`
	UserName                    string     `db:"user_name"`
	FirstName                   string     `db:"first_name"`
	LastName                    string     `db:"last_name"`
	Email                       string     `db:"email"`
	ManagerEmail                *string    `db:"manager_email"`
	Manager2Email               *string    `db:"manager_2_email"`
	Manager3Email               *string    `db:"manager_3_email"`
	Manager4Email               *string    `db:"manager_4_email"`
	Manager5Email               *string    `db:"manager_5_email"`
	MentorEmail                 *string    `db:"mentor_email"`
	LMSLearnerID                *string    `db:"lms_learner_id"`
	LMSReference                *string    `db:"lms_reference"`
	OrgAdmin                    bool       `db:"org_admin"`
	AdminType                   *int       `db:"admin_type"`
	Creator                     bool       `db:"creator"`
	CurrentSignInAt             *time.Time `db:"current_sign_in_at"`
	DeactivateScheduledDate     *time.Time `db:"deactivate_scheduled_date"`
	ReactivateScheduledDate     *time.Time `db:"reactivate_scheduled_date"`
	Language                    string     `db:"language"`
	CreatedBy                   string     `db:"created_by"`
	Timezone                    string     `db:"timezone"`
	UserNotificationsEnabled    bool       `db:"user_notifications_enabled"`
	ForcePwdResetNextLogin      bool       `db:"force_pwd_reset_next_login"`
	ManagerEmailReport1stMonth  bool       `db:"manager_email_report_1st_month"`
	ManagerEmailReport15thMonth bool       `db:"manager_email_report_15th_month"`
	TeamLeaderReportFrequency   *string    `db:"team_leader_report_frequency"`
	LearnerReportFrequency      *string    `db:"learner_report_frequency"`
	AssessorReportFrequency     *string    `db:"assessor_report_frequency"`
	DefaultLandingPage          *string    `db:"default_landing_page"`
	Login                       string     `db:"login"`
	Type                        string     `db:"type"`
	Active                      bool       `db:"active"`
	PlatformChampion            bool       `db:"platform_champion"`
	PasswordHash                *string    `db:"password_hash"`
	CreatedAt                   time.Time  `db:"created_at"`
	UpdatedAt                   time.Time  `db:"updated_at"`
}

// userColumns are the columns of userRow. The benchmark's baseline
// (bench/baseline) keeps a copy.
const userColumns = `id, user_name, first_name, last_name, email,
	manager_email, manager_2_email, manager_3_email, manager_4_email, manager_5_email,
	mentor_email, lms_learner_id, lms_reference, org_admin, admin_type, creator, current_sign_in_at,
	deactivate_scheduled_date, reactivate_scheduled_date, language, created_by, timezone,
	user_notifications_enabled, force_pwd_reset_next_login, manager_email_report_1st_month,
	manager_email_report_15th_month, team_leader_report_frequency, learner_report_frequency,
	assessor_report_frequency, default_landing_page, login, type, active, platform_champion,
	password_hash, created_at, updated_at`

// managerEmails points at the five manager email columns, in order.
func (r *userRow) managerEmails() [5]**string {
	return [5]**string{&r.ManagerEmail, &r.Manager2Email, &r.Manager3Email, &r.Manager4Email, &r.Manager5Email}
}

// userByName loads the user called userName in any letter case; NotFound
// when there is none.
func userByName(ctx context.Context, q sqlx.QueryerContext, userName string) (learngate.User, error) {
	return loadOneUser(ctx, q, `SELECT `+userColumns+` FROM users WHERE user_name = $1`, strings.ToLower(userName))
}

// userByID loads user id; NotFound when there is none.
func userByID(ctx context.Context, q sqlx.QueryerContext, id int64) (learngate.User, error) {
	return loadOneUser(ctx, q, `SELECT `+userColumns+` FROM users WHERE id = $1`, id)
}

func loadOneUser(ctx context.Context, q sqlx.QueryerContext, query string, arg any) (learngate.User, error) {
	var row userRow
	if err := sqlx.GetContext(ctx, q, &row, query, arg); err != nil {
		return learngate.User{}, notFound(err)
	}
	users, err := loadUsers(ctx, q, []userRow{row})
	if err != nil {
		return learngate.User{}, err
	}
	return users[0], nil
}

// loadUsers completes rows into users, in rows' order, with a fixed number
// of queries whatever their number: the tenant's custom fields, then the
// roles, groups, goals, custom values and team leadership of all of them.
func loadUsers(ctx context.Context, q sqlx.QueryerContext, rows []userRow) ([]learngate.User, error) {
	users := make([]learngate.User, len(rows))
	if len(rows) == 0 {
		return users, nil
	}
	ids := make(pq.Int64Array, len(rows))
	emails := make(pq.StringArray, len(rows))
	byID := make(map[int64]*learngate.User, len(rows))
	for i, r := range rows {
		ids[i], emails[i] = r.ID, r.Email
		users[i] = r.toUser()
		byID[r.ID] = &users[i]
	}

	var fields []struct {
		ID   int64  `db:"id"`
		Name string `db:"name"`
	}
	if err := sqlx.SelectContext(ctx, q, &fields, customFieldNamesSQL); err != nil {
		return nil, fmt.Errorf("load custom fields: %w", err)
	}
	var links []struct {
		UserID   int64  `db:"user_id"`
		Kind     string `db:"kind"`
		Position int    `db:"position"`
		FieldID  int64  `db:"field_id"`
		Value    string `db:"value"`
	}
	err := sqlx.SelectContext(ctx, q, &links, userLinksSQL, ids)
	if err != nil {
		return nil, fmt.Errorf("load user links: %w", err)
	}
	var leaders []int64
	err = sqlx.SelectContext(ctx, q, &leaders, teamLeadersSQL, ids, emails)
	if err != nil {
		return nil, fmt.Errorf("load team leaders: %w", err)
	}

	custom := make(map[int64]map[int64]string, len(rows))
	for _, l := range links {
		u := byID[l.UserID]
		switch l.Kind {
		case "role":
			name := l.Value
			u.Roles[l.Position-1] = &name
		case "group":
			u.Groups = append(u.Groups, l.Value)
		case "goal":
			u.Goals = append(u.Goals, l.Value)
		case "custom":
			if custom[l.UserID] == nil {
				custom[l.UserID] = map[int64]string{}
			}
			custom[l.UserID][l.FieldID] = l.Value
		}
	}
	for _, id := range leaders {
		byID[id].TeamLeader = true
	}
	for i := range users {
		u := &users[i]
		sortNames(u.Groups)
		sortNames(u.Goals)
		u.CustomValues = make([]learngate.CustomValue, len(fields))
		for j, f := range fields {
			u.CustomValues[j] = learngate.CustomValue{Name: f.Name}
			if v, ok := custom[u.ID][f.ID]; ok {
				u.CustomValues[j].Value = &v
			}
		}
	}
	return users, nil
}

// customFieldNamesSQL lists the tenant's custom fields, in id order (the order
// of the X- fields of the user object). The benchmark's baseline
// (bench/baseline) keeps a copy.
const customFieldNamesSQL = `SELECT id, name FROM custom_fields ORDER BY id`

// userLinksSQL selects every kind of link of the users $1 in one query: roles
// by position, group and goal names, custom values by field. The benchmark's baseline
// (bench/baseline) keeps a copy.
const userLinksSQL = `
		SELECT ur.user_id, 'role' AS kind, ur.position, 0 AS field_id, r.name AS value
		FROM user_roles ur JOIN roles r ON r.id = ur.role_id WHERE ur.user_id = ANY($1)
		UNION ALL
		SELECT ug.user_id, 'group', 0, 0, g.name FROM user_groups ug JOIN groups g ON g.id = ug.group_id WHERE ug.user_id = ANY($1)
		UNION ALL
		SELECT ug.user_id, 'goal', 0, 0, g.name FROM user_goals ug JOIN goals g ON g.id = ug.goal_id WHERE ug.user_id = ANY($1)
		UNION ALL
		SELECT v.user_id, 'custom', 0, v.field_id, v.value FROM user_custom_values v WHERE v.user_id = ANY($1)`

// teamLeadersSQL selects those of the users $1 (ids) with emails $2 (in the
// same order) whose email another user names as one of their managers (the
// derived team_leader). The page's emails come from its rows: joining users for
// them let PostgreSQL pick a scan of the whole table (34 ms at 100k users;
// docs/performance.md, P3). The page's emails are lower-cased once (the
// MATERIALIZED CTE) and compared with the stored lower-cased manager columns
// (migration 00018): a small tenant is joined pair by pair, and lower() on
// both sides of every pair cost 18 ms at 100 users (P9). The benchmark's baseline
// (bench/baseline) keeps a copy.
const teamLeadersSQL = `WITH p AS MATERIALIZED (SELECT id, lower(email) AS email FROM unnest($1::bigint[], $2::text[]) AS u (id, email))
	SELECT p.id FROM p WHERE EXISTS (
	SELECT 1 FROM users o WHERE o.id <> p.id AND (o.manager_email_lower = p.email
		OR o.manager_2_email_lower = p.email OR o.manager_3_email_lower = p.email
		OR o.manager_4_email_lower = p.email OR o.manager_5_email_lower = p.email))`

// toUser copies the row's public fields; links and team_leader come later.
func (r userRow) toUser() learngate.User {
	u := learngate.User{
		ID: r.ID, UserName: r.UserName, FirstName: r.FirstName, LastName: r.LastName, Email: r.Email,
		ManagerEmails: [5]*string{r.ManagerEmail, r.Manager2Email, r.Manager3Email, r.Manager4Email, r.Manager5Email},
		MentorEmail:   deref(r.MentorEmail), LMSLearnerID: deref(r.LMSLearnerID), LMSReference: deref(r.LMSReference),
		OrgAdmin: r.OrgAdmin, Creator: r.Creator, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		CurrentSignInAt: r.CurrentSignInAt, AdminType: r.AdminType,
		DeactivateScheduledDate: r.DeactivateScheduledDate, ReactivateScheduledDate: r.ReactivateScheduledDate,
		Language: r.Language, CreatedBy: r.CreatedBy, Timezone: r.Timezone,
		UserNotificationsEnabled: r.UserNotificationsEnabled, ForcePwdResetNextLogin: r.ForcePwdResetNextLogin,
		ManagerEmailReport1stMonth: r.ManagerEmailReport1stMonth, ManagerEmailReport15thMonth: r.ManagerEmailReport15thMonth,
		TeamLeaderReportFrequency: r.TeamLeaderReportFrequency, LearnerReportFrequency: r.LearnerReportFrequency,
		AssessorReportFrequency: r.AssessorReportFrequency, DefaultLandingPage: "Default",
		Login: r.Login, Type: r.Type, Active: r.Active, PlatformChampion: r.PlatformChampion,
		Groups: []string{}, Goals: []string{},
	}
	if r.DefaultLandingPage != nil {
		u.DefaultLandingPage = *r.DefaultLandingPage
	}
	return u
}
