package main

import (
	"database/sql"
	"learngate/store/list"
	"math"
	"net/http"
	"sort"
	"strings"

	"github.com/lib/pq"

	"learngate"
)

// user is a users row and its links as database/sql reads them; its JSON
// is learngate's own user object (learngate.User), so that a change of the
// user object is made once, in the service.
type user struct {
	learngate.User
	mentor, lmsLearnerID, lmsReference sql.NullString
	landing, passwordHash              sql.NullString
	custom                             map[int64]string
}

type customFieldName struct {
	id   int64
	name string
}

// scanTargets are the columns of userColumns, in order.
func (u *user) scanTargets() []any {
	m := &u.ManagerEmails
	return []any{&u.ID, &u.UserName, &u.FirstName, &u.LastName, &u.Email,
		&m[0], &m[1], &m[2], &m[3], &m[4],
		&u.mentor, &u.lmsLearnerID, &u.lmsReference, &u.OrgAdmin, &u.AdminType, &u.Creator, &u.CurrentSignInAt,
		&u.DeactivateScheduledDate, &u.ReactivateScheduledDate, &u.Language, &u.CreatedBy, &u.Timezone,
		&u.UserNotificationsEnabled, &u.ForcePwdResetNextLogin, &u.ManagerEmailReport1stMonth,
		&u.ManagerEmailReport15thMonth, &u.TeamLeaderReportFrequency, &u.LearnerReportFrequency,
		&u.AssessorReportFrequency, &u.landing, &u.Login, &u.Type, &u.Active, &u.PlatformChampion,
		&u.passwordHash, &u.CreatedAt, &u.UpdatedAt}
}

// complete sets the fields read as nullable columns and the custom values
// of fields (in the tenant's field order), as store.loadUsers does.
func (u *user) complete(fields []customFieldName) {
	u.MentorEmail, u.LMSLearnerID, u.LMSReference = u.mentor.String, u.lmsLearnerID.String, u.lmsReference.String
	u.DefaultLandingPage = "Default"
	if u.landing.Valid {
		u.DefaultLandingPage = u.landing.String
	}
	sortNames(u.Groups)
	sortNames(u.Goals)
	u.CustomValues = make([]learngate.CustomValue, len(fields))
	for j, f := range fields {
		u.CustomValues[j] = learngate.CustomValue{Name: f.name}
		if v, ok := u.custom[f.id]; ok {
			u.CustomValues[j].Value = &v
		}
	}
}

// listUsers is GET /papi/users without filters, in one snapshot as
// store.ListUsers: the total from the newest valid rank anchor, then the
// page newest first (the benchmark reads page 1, which the list engine
// reads newest first), with the engine's statements (store/list).
func (s *server) listUsers(w http.ResponseWriter, r *http.Request) {
	number, size := page(r)
	var users []learngate.User
	var total int64
	err := s.inSnapshot(r.Context(), func(tx *sql.Tx) error {
		ctx := r.Context()
		var rank, pageRank int64
		var anchorAt, pageAt sql.NullTime
		var anchorID, pageID sql.NullInt64
		anchors := list.Users.AnchorsStatement(math.MaxInt64)
		err := tx.QueryRowContext(ctx, anchors.SQL, anchors.Args...).Scan(&rank, &anchorAt, &anchorID, &pageRank, &pageAt, &pageID)
		if err != nil {
			return err
		}
		count := list.Users.CountSinceStatement(learngate.Key{CreatedAt: anchorAt.Time, ID: anchorID.Int64}, anchorID.Valid)
		if err := tx.QueryRowContext(ctx, count.SQL, count.Args...).Scan(&total); err != nil {
			return err
		}
		total += rank
		offset := int64(number-1) * int64(size)
		if total <= offset {
			return nil
		}
		page := list.Users.PageStatement(`SELECT `+userColumns+` FROM users`, list.NewQuery(list.Plan{Count: list.CountAnchored}),
			list.Window{Size: min(int64(size), total-offset), Skip: offset})
		rows, err := tx.QueryContext(ctx, page.SQL, page.Args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		var read []*user
		byID := map[int64]*user{}
		var ids pq.Int64Array
		var emails pq.StringArray
		for rows.Next() {
			u := &user{custom: map[int64]string{}}
			u.Groups, u.Goals = []string{}, []string{}
			if err := rows.Scan(u.scanTargets()...); err != nil {
				return err
			}
			read = append(read, u)
			byID[u.ID] = u
			ids = append(ids, u.ID)
			emails = append(emails, u.Email)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if err := loadLinks(r, tx, read, byID, ids, emails); err != nil {
			return err
		}
		for _, u := range read {
			users = append(users, u.User)
		}
		return nil
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
			u.Roles[position-1] = &value
		case "group":
			u.Groups = append(u.Groups, value)
		case "goal":
			u.Goals = append(u.Goals, value)
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
		byID[id].TeamLeader = true
	}
	rows.Close()
	for _, u := range users {
		u.complete(fields)
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
