package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/lib/pq"
)

// user is a users row and its links, written as learngate's user object.
type user struct {
	id                                             int64
	userName, firstName, lastName, email           string
	managers                                       [5]sql.NullString
	mentor, lmsLearnerID, lmsReference             sql.NullString
	orgAdmin                                       bool
	adminType                                      sql.NullInt64
	creator                                        bool
	currentSignIn, deactivate, reactivate          sql.NullTime
	language, createdBy, timezone                  string
	notifications, forcePwd, report1st, report15th bool
	teamFreq, learnerFreq, assessorFreq, landing   sql.NullString
	login, typ                                     string
	active, champion                               bool
	passwordHash                                   sql.NullString
	createdAt, updatedAt                           sql.NullTime
	teamLeader                                     bool
	roles                                          [5]*string
	groups, goals                                  []string
	custom                                         map[int64]string
	fields                                         []customFieldName
}

type customFieldName struct {
	id   int64
	name string
}

// adminTypeNames: store.AdminTypeNames.
var adminTypeNames = []string{"super", "standard", "knowledge", "reporting", "instructor", "restricted", "observer", "people", "library"}

// userFixed is the user object's fixed fields in the spec's order (store.userJSON).
type userFixed struct {
	UserName                  string     `json:"user_name"`
	FirstName                 string     `json:"first_name"`
	LastName                  string     `json:"last_name"`
	Email                     string     `json:"email"`
	ManagerEmail              *string    `json:"manager_email"`
	Manager2Email             *string    `json:"manager_2_email"`
	Manager3Email             *string    `json:"manager_3_email"`
	Manager4Email             *string    `json:"manager_4_email"`
	Manager5Email             *string    `json:"manager_5_email"`
	MentorEmail               string     `json:"mentor_email"`
	LMSLearnerID              string     `json:"lms_learner_id"`
	LMSReference              string     `json:"lms_reference"`
	OrgAdmin                  bool       `json:"org_admin"`
	Creator                   bool       `json:"creator"`
	TeamLeader                bool       `json:"team_leader"`
	CreatedAt                 timestamp  `json:"created_at"`
	UpdatedAt                 timestamp  `json:"updated_at"`
	CurrentSignInAt           *timestamp `json:"current_sign_in_at"`
	AdminType                 *int64     `json:"admin_type"`
	OrgAdminAccess            string     `json:"org_admin_access"`
	DeactivateScheduledDate   *timestamp `json:"deactivate_scheduled_date"`
	ReactivateScheduledDate   *timestamp `json:"reactivate_scheduled_date"`
	Language                  string     `json:"language"`
	CreatedBy                 string     `json:"created_by"`
	Timezone                  string     `json:"timezone"`
	UserNotificationsEnabled  bool       `json:"user_notifications_enabled"`
	TeamLeaderReportFrequency *string    `json:"team_leader_report_frequency"`
	LearnerReportFrequency    *string    `json:"learner_report_frequency"`
	AssessorReportFrequency   *string    `json:"assessor_report_frequency"`
	DefaultLandingPage        string     `json:"default_landing_page"`
	Login                     string     `json:"login"`
	Type                      string     `json:"type"`
	Active                    bool       `json:"active"`
	PlatformChampion          bool       `json:"platform_champion"`
	Role1                     *string    `json:"role_1"`
	Role2                     *string    `json:"role_2"`
	Role3                     *string    `json:"role_3"`
	Role4                     *string    `json:"role_4"`
	Role5                     *string    `json:"role_5"`
	Groups                    string     `json:"groups"`
	Goals                     string     `json:"goals"`
}

// MarshalJSON writes the fixed fields, then X-<name> for every custom field.
func (u *user) MarshalJSON() ([]byte, error) {
	access := "none"
	var adminType *int64
	if u.adminType.Valid {
		adminType = &u.adminType.Int64
		if u.orgAdmin && u.adminType.Int64 >= 0 && int(u.adminType.Int64) < len(adminTypeNames) {
			access = adminTypeNames[u.adminType.Int64]
		}
	}
	landing := "Default"
	if u.landing.Valid {
		landing = u.landing.String
	}
	m := u.managers
	fixed, err := json.Marshal(userFixed{
		UserName: u.userName, FirstName: u.firstName, LastName: u.lastName, Email: u.email,
		ManagerEmail: optString(m[0]), Manager2Email: optString(m[1]), Manager3Email: optString(m[2]),
		Manager4Email: optString(m[3]), Manager5Email: optString(m[4]),
		MentorEmail: u.mentor.String, LMSLearnerID: u.lmsLearnerID.String, LMSReference: u.lmsReference.String,
		OrgAdmin: u.orgAdmin, Creator: u.creator, TeamLeader: u.teamLeader,
		CreatedAt: timestamp(u.createdAt.Time), UpdatedAt: timestamp(u.updatedAt.Time),
		CurrentSignInAt: optTimestamp(u.currentSignIn), AdminType: adminType, OrgAdminAccess: access,
		DeactivateScheduledDate: optTimestamp(u.deactivate), ReactivateScheduledDate: optTimestamp(u.reactivate),
		Language: u.language, CreatedBy: u.createdBy, Timezone: u.timezone, UserNotificationsEnabled: u.notifications,
		TeamLeaderReportFrequency: optString(u.teamFreq), LearnerReportFrequency: optString(u.learnerFreq),
		AssessorReportFrequency: optString(u.assessorFreq), DefaultLandingPage: landing,
		Login: u.login, Type: u.typ, Active: u.active, PlatformChampion: u.champion,
		Role1: u.roles[0], Role2: u.roles[1], Role3: u.roles[2], Role4: u.roles[3], Role5: u.roles[4],
		Groups: strings.Join(u.groups, ";"), Goals: strings.Join(u.goals, ";"),
	})
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.Write(fixed[:len(fixed)-1])
	for _, f := range u.fields {
		name, _ := json.Marshal("X-" + f.name)
		var value []byte = []byte("null")
		if v, ok := u.custom[f.id]; ok {
			value, _ = json.Marshal(v)
		}
		buf.WriteByte(',')
		buf.Write(name)
		buf.WriteByte(':')
		buf.Write(value)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

func (u *user) scanTargets() []any {
	return []any{&u.id, &u.userName, &u.firstName, &u.lastName, &u.email,
		&u.managers[0], &u.managers[1], &u.managers[2], &u.managers[3], &u.managers[4],
		&u.mentor, &u.lmsLearnerID, &u.lmsReference, &u.orgAdmin, &u.adminType, &u.creator, &u.currentSignIn,
		&u.deactivate, &u.reactivate, &u.language, &u.createdBy, &u.timezone,
		&u.notifications, &u.forcePwd, &u.report1st, &u.report15th, &u.teamFreq, &u.learnerFreq,
		&u.assessorFreq, &u.landing, &u.login, &u.typ, &u.active, &u.champion,
		&u.passwordHash, &u.createdAt, &u.updatedAt}
}

// listUsers is GET /papi/users without filters, in one snapshot as
// store.ListUsers: the total from the newest valid rank anchor, then the
// page newest first (the benchmark reads page 1, which store.selectUserPage
// reads newest first).
func (s *server) listUsers(w http.ResponseWriter, r *http.Request) {
	number, size := page(r)
	var users []*user
	var total int64
	err := s.inSnapshot(r.Context(), func(tx *sql.Tx) error {
		ctx := r.Context()
		var rank, anchorID int64
		var anchorAt time.Time
		err := tx.QueryRowContext(ctx, validAnchorSQL, int64(math.MaxInt64)).Scan(&rank, &anchorAt, &anchorID)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			err = tx.QueryRowContext(ctx, countUsersSQL).Scan(&total)
		case err == nil:
			err = tx.QueryRowContext(ctx, countUsersSinceAnchorSQL, anchorAt, anchorID).Scan(&total)
			total += rank
		}
		if err != nil {
			return err
		}
		offset := int64(number-1) * int64(size)
		if total <= offset {
			return nil
		}
		rows, err := tx.QueryContext(ctx, pageUsersSQL, min(int64(size), total-offset), offset)
		if err != nil {
			return err
		}
		defer rows.Close()
		byID := map[int64]*user{}
		var ids pq.Int64Array
		var emails pq.StringArray
		for rows.Next() {
			u := &user{groups: []string{}, goals: []string{}, custom: map[int64]string{}}
			if err := rows.Scan(u.scanTargets()...); err != nil {
				return err
			}
			users = append(users, u)
			byID[u.id] = u
			ids = append(ids, u.id)
			emails = append(emails, u.email)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		return loadLinks(r, tx, users, byID, ids, emails)
	})
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, newEnvelope(users, total, number, size))
}

// loadLinks completes users with their custom fields, links and team leadership.
func loadLinks(r *http.Request, tx *sql.Tx, users []*user, byID map[int64]*user, ids pq.Int64Array, emails pq.StringArray) error {
	ctx := r.Context()
	var fields []customFieldName
	rows, err := tx.QueryContext(ctx, customFieldNamesSQL)
	if err != nil {
		return err
	}
	for rows.Next() {
		var f customFieldName
		if err := rows.Scan(&f.id, &f.name); err != nil {
			rows.Close()
			return err
		}
		fields = append(fields, f)
	}
	rows.Close()
	rows, err = tx.QueryContext(ctx, userLinksSQL, ids)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id, fieldID int64
		var kind, value string
		var position int
		if err := rows.Scan(&id, &kind, &position, &fieldID, &value); err != nil {
			rows.Close()
			return err
		}
		u := byID[id]
		switch kind {
		case "role":
			u.roles[position-1] = &value
		case "group":
			u.groups = append(u.groups, value)
		case "goal":
			u.goals = append(u.goals, value)
		default:
			u.custom[fieldID] = value
		}
	}
	rows.Close()
	rows, err = tx.QueryContext(ctx, teamLeadersSQL, ids, emails)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		byID[id].teamLeader = true
	}
	rows.Close()
	for _, u := range users {
		sortNames(u.groups)
		sortNames(u.goals)
		u.fields = fields
	}
	return rows.Err()
}

// sortNames sorts names ignoring case, then by spelling (store.sortNames).
func sortNames(names []string) {
	sort.Slice(names, func(i, j int) bool {
		a, b := strings.ToLower(names[i]), strings.ToLower(names[j])
		if a != b {
			return a < b
		}
		return names[i] < names[j]
	})
}
