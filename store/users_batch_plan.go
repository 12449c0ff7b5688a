package store

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"learngate"
)

// batchPlan is what the set-based batch save decided, before writing.
type batchPlan struct {
	rows []plannedRow
	// counters of the result (created, updated, unchanged, invitations).
	created, updated, unchanged, sent, failed int
	// inviteRows are the rows whose user is invited, in order.
	inviteRows []int
}

// plannedRow is the outcome of one row of a batch.
type plannedRow struct {
	// err is the row's fault (an error_list entry); storedEmail the
	// existing user's email, reported when the row sent none.
	err         error
	storedEmail string
	// name is the row's lower-cased user_name.
	name string
	// user is the row's user, nil when err is set.
	user *plannedUser
	// change is what the save does to the user.
	change userChange
}

// plannedUser is a user the batch saves: as stored (old nil for a new one)
// and as the batch leaves it. id is 0 for a new user until it is inserted.
type plannedUser struct {
	old          *userRow
	row          userRow
	links, next  userLinks
	rowChanged   bool
	linksChanged bool
	id           int64
}

// errRowByRow says the set-based batch save cannot decide the batch alone
// (a user named twice, text PostgreSQL would refuse) and the rows must be
// saved one by one.
var errRowByRow = errors.New("batch needs the row-by-row save")

// storedUser is a users row with its email as PostgreSQL lower-cases it.
type storedUser struct {
	userRow
	EmailKey string `db:"email_key"`
}

// claim is who holds what a user must hold alone: a user_name, an email
// (compared by its PostgreSQL lower() key, then ignoring case as
// checkTaken does) and an lms_learner_id with lms_reference pair.
type claim struct {
	userName, email, emailKey string
	lmsID, lmsRef             *string
}

// planBatch decides every row of the batch in order, as the row-by-row
// save would, with a fixed number of queries: the existing users named by
// the rows (locked), their links, the catalog names and custom fields the
// rows use, and the lower() keys of the emails the rows end with with the
// users that hold a user_name, email or lms pair a row ends with.
// errRowByRow when it cannot.
func planBatch(ctx context.Context, tx *sqlx.Tx, rows []BatchRow, invite string, now time.Time) (batchPlan, error) {
	plan := batchPlan{rows: make([]plannedRow, len(rows))}
	names := make(pq.StringArray, 0, len(rows))
	seen := make(map[string]bool, len(rows))
	for i, row := range rows {
		if row.Err != nil {
			continue
		}
		name := strings.ToLower(strings.TrimSpace(row.UserName))
		if seen[name] {
			return plan, errRowByRow
		}
		seen[name] = true
		plan.rows[i].name = name
		names = append(names, name)
	}
	var found []storedUser
	err := tx.SelectContext(ctx, &found, `SELECT `+userColumns+`, lower(email) AS email_key
		FROM users WHERE user_name = ANY (ARRAY(SELECT unnest($1::text[]))) ORDER BY id FOR UPDATE`, names)
	if err != nil {
		return plan, fmt.Errorf("look up batch users: %w", err)
	}
	existing := make(map[string]*storedUser, len(found))
	ids := make(pq.Int64Array, len(found))
	for i := range found {
		existing[found[i].UserName] = &found[i]
		ids[i] = found[i].ID
	}
	links, err := loadLinksOf(ctx, tx, ids)
	if err != nil {
		return plan, err
	}

	// Parse every row; the catalog is looked up once for all of them.
	ins := make([]UserInput, len(rows))
	var parsed []UserInput
	for i, row := range rows {
		p := &plan.rows[i]
		if row.Err != nil {
			p.err = row.Err
			continue
		}
		old := existing[p.name]
		if old == nil {
			plan.created++
		} else {
			// Counted as updated now; moved to unchanged when nothing is written.
			plan.updated++
			p.storedEmail = old.Email
		}
		if ins[i], p.err = row.Input(old == nil); p.err == nil {
			parsed = append(parsed, ins[i])
		}
	}
	cat, err := lookupLinkCatalog(ctx, tx, parsed)
	if err != nil {
		return plan, err
	}
	for i := range rows {
		p := &plan.rows[i]
		if p.err != nil {
			continue
		}
		u := &plannedUser{links: userLinks{custom: map[int64]string{}}}
		if old := existing[p.name]; old != nil {
			u.old, u.id, u.links = &old.userRow, old.ID, links[old.ID]
		}
		if u.row, u.next, p.err = planUser(u.old, u.links, ins[i], cat, now); p.err != nil {
			continue
		}
		if !storableRow(u.row) {
			return plan, errRowByRow
		}
		u.rowChanged = u.old == nil || !sameValues(u.old.writable(), u.row.writable())
		u.linksChanged = !u.next.equal(u.links)
		p.user = u
	}
	if err := plan.checkTaken(ctx, tx, found); err != nil {
		return plan, err
	}

	for i := range plan.rows {
		p := &plan.rows[i]
		if p.err != nil {
			if !rowFault(p.err) {
				return plan, p.err
			}
			continue
		}
		u := p.user
		p.change = userUnchanged
		if u.rowChanged || u.linksChanged {
			p.change = changeOf(u.old, u.row.Active)
		} else {
			plan.updated--
			plan.unchanged++
		}
		if invite == InviteAll || (invite == InviteNew && u.old == nil) {
			if u.row.Active {
				plan.sent++
				plan.inviteRows = append(plan.inviteRows, i)
			} else {
				plan.failed++
			}
		}
	}
	return plan, nil
}

// checkTaken fails, in row order, each planned row whose user would end
// with a user_name, email or lms pair another user holds at that point of
// the batch (checkTaken's rule), given stored, the users the rows name.
func (plan *batchPlan) checkTaken(ctx context.Context, tx *sqlx.Tx, stored []storedUser) error {
	var userNames, emails, lmsIDs, lmsRefs pq.StringArray
	for _, p := range plan.rows {
		if p.user == nil {
			continue
		}
		r := p.user.row
		if r.UserName != p.name { // the holders of p.name are in stored
			userNames = append(userNames, r.UserName)
		}
		emails = append(emails, r.Email)
		if r.LMSLearnerID != nil && r.LMSReference != nil {
			lmsIDs = append(lmsIDs, *r.LMSLearnerID)
			lmsRefs = append(lmsRefs, *r.LMSReference)
		}
	}
	if len(emails) == 0 {
		return nil
	}
	// One query: the lower() key of each email the rows end with (id 0),
	// then the users holding one of the user_names, emails or lms pairs,
	// one SELECT per unique index (a user may come more than once). Each
	// ANY (ARRAY(...)) lets the planner use the index whatever the number
	// of values.
	var found []struct {
		ID           int64   `db:"id"`
		UserName     string  `db:"user_name"`
		Email        string  `db:"email"`
		EmailKey     string  `db:"email_key"`
		LMSLearnerID *string `db:"lms_learner_id"`
		LMSReference *string `db:"lms_reference"`
	}
	err := tx.SelectContext(ctx, &found, `
		SELECT 0::bigint AS id, '' AS user_name, e AS email, lower(e) AS email_key, NULL::text AS lms_learner_id, NULL::text AS lms_reference
			FROM unnest($2::text[]) AS e
		UNION ALL SELECT id, user_name, email, lower(email), lms_learner_id, lms_reference FROM users WHERE user_name = ANY (ARRAY(SELECT unnest($1::text[])))
		UNION ALL SELECT id, user_name, email, lower(email), lms_learner_id, lms_reference FROM users
			WHERE lower(email) = ANY (ARRAY(SELECT lower(e) FROM unnest($2::text[]) AS e))
		UNION ALL SELECT id, user_name, email, lower(email), lms_learner_id, lms_reference FROM users
			WHERE (lms_learner_id, lms_reference) IN (SELECT * FROM unnest($3::text[], $4::text[]))
			AND lms_learner_id IS NOT NULL AND lms_reference IS NOT NULL`,
		userNames, emails, lmsIDs, lmsRefs)
	if err != nil {
		return fmt.Errorf("look up taken user names, emails and lms ids: %w", err)
	}
	keys := make(map[string]string, len(emails))
	claims := make(map[int64]claim, len(stored)+len(found))
	for _, s := range stored {
		claims[s.ID] = claim{userName: s.UserName, email: s.Email, emailKey: s.EmailKey, lmsID: s.LMSLearnerID, lmsRef: s.LMSReference}
	}
	for _, f := range found {
		if f.ID == 0 {
			keys[f.Email] = f.EmailKey
		} else {
			claims[f.ID] = claim{userName: f.UserName, email: f.Email, emailKey: f.EmailKey, lmsID: f.LMSLearnerID, lmsRef: f.LMSReference}
		}
	}
	// Who holds what, as the batch goes: the stored users, then the new
	// ones too (by negative row numbers).
	for i := range plan.rows {
		p := &plan.rows[i]
		if p.user == nil {
			continue
		}
		r := p.user.row
		self := p.user.id
		if self == 0 {
			self = -int64(i) - 1
		}
		mine := claim{userName: r.UserName, email: r.Email, emailKey: keys[r.Email], lmsID: r.LMSLearnerID, lmsRef: r.LMSReference}
		var name, email, lms bool
		for id, c := range claims {
			if id == self {
				continue
			}
			name = name || c.userName == mine.userName
			email = email || (c.emailKey == mine.emailKey && strings.EqualFold(c.email, mine.email))
			lms = lms || (c.lmsID != nil && c.lmsRef != nil && mine.lmsID != nil && mine.lmsRef != nil &&
				*c.lmsID == *mine.lmsID && *c.lmsRef == *mine.lmsRef)
		}
		if err := takenError(r, name, email, lms, nil); err != nil {
			p.err, p.user = err, nil
			continue
		}
		claims[self] = mine
	}
	return nil
}

// rowFault reports whether err is a fault of a row (reported in the
// error_list) rather than one failing the batch.
func rowFault(err error) bool {
	var e *learngate.Error
	return errors.As(err, &e) && (e.Code == learngate.Invalid || e.Code == learngate.Unprocessable)
}

// storableRow reports whether every text of r is valid UTF-8 without NUL,
// as the set-based writes (JSON) need to store it exactly as the
// row-by-row save would (or fail as it would).
func storableRow(r userRow) bool {
	for _, v := range r.writable() {
		var s string
		switch x := v.(type) {
		case string:
			s = x
		case *string:
			if x == nil {
				continue
			}
			s = *x
		default:
			continue
		}
		if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
			return false
		}
	}
	return true
}

// loadLinksOf reads the roles, groups, goals and custom values of the
// users ids in one query, as loadLinks does for one.
func loadLinksOf(ctx context.Context, tx *sqlx.Tx, ids pq.Int64Array) (map[int64]userLinks, error) {
	out := make(map[int64]userLinks, len(ids))
	for _, id := range ids {
		out[id] = userLinks{custom: map[int64]string{}}
	}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []struct {
		UserID int64  `db:"user_id"`
		Kind   string `db:"kind"`
		Pos    int    `db:"pos"`
		ID     int64  `db:"ref"`
		Value  string `db:"value"`
	}
	err := tx.SelectContext(ctx, &rows, `
		SELECT user_id, 'role' AS kind, position AS pos, role_id AS ref, '' AS value FROM user_roles WHERE user_id = ANY (ARRAY(SELECT unnest($1::bigint[])))
		UNION ALL SELECT user_id, 'group', 0, group_id, '' FROM user_groups WHERE user_id = ANY (ARRAY(SELECT unnest($1::bigint[])))
		UNION ALL SELECT user_id, 'goal', 0, goal_id, '' FROM user_goals WHERE user_id = ANY (ARRAY(SELECT unnest($1::bigint[])))
		UNION ALL SELECT user_id, 'custom', 0, field_id, value FROM user_custom_values WHERE user_id = ANY (ARRAY(SELECT unnest($1::bigint[])))`, ids)
	if err != nil {
		return nil, fmt.Errorf("load batch user links: %w", err)
	}
	for _, r := range rows {
		l := out[r.UserID]
		switch r.Kind {
		case "role":
			l.roles[r.Pos-1] = r.ID
		case "group":
			l.groups = append(l.groups, r.ID)
		case "goal":
			l.goals = append(l.goals, r.ID)
		case "custom":
			l.custom[r.ID] = r.Value
		}
		out[r.UserID] = l
	}
	for id, l := range out {
		sort.Slice(l.groups, func(i, j int) bool { return l.groups[i] < l.groups[j] })
		sort.Slice(l.goals, func(i, j int) bool { return l.goals[i] < l.goals[j] })
		out[id] = l
	}
	return out, nil
}
