package store

import (
	"context"
	"errors"
	"fmt"
	"maps"
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
	// users are the users the rows save, stored ones first (by id), then
	// the new ones in the order of the rows that create them.
	users []*plannedUser
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
	// change is what the row does to the user.
	change userChange
	// holds is what the user holds alone once the row is applied.
	holds claim
}

// plannedUser is a user the batch saves, shared by every row that names
// it: as stored (old nil for a new one) and as the rows decided so far
// leave it. id is 0 for a new user until it is inserted.
type plannedUser struct {
	old         *userRow
	row         userRow
	links, next userLinks
	// written: a row changed the user, so its row is written (and its
	// updated_at moves) even when a later row put every value back.
	written bool
	id      int64
	// key identifies the user among the holders of unique values: its id,
	// or minus (1 + the index of the row that creates it).
	key int64
	// email is the email reported for a later row of the user that fails
	// without one: as stored, or as the creating row gave it.
	email string
}

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

// batchUsersSQL looks up and locks the stored users named $1 (stored form).
// The benchmark's baseline
// (bench/baseline) keeps a copy.
const batchUsersSQL = `SELECT ` + userColumns + `, lower(email) AS email_key
		FROM users WHERE user_name = ANY (ARRAY(SELECT unnest($1::text[]))) ORDER BY id FOR UPDATE`

// planBatch decides every row of the batch in order, as saving the rows
// one by one would, with a fixed number of queries: the existing users
// named by the rows (locked), their links, the catalog names and custom
// fields the rows use, and (holders.lookUp) the users that hold a
// user_name, email or lms pair a row ends with. A user named by several
// rows is decided row after row: each row applies on top of what the
// earlier ones left (a new user when no earlier row created it), exactly
// as if it came alone.
func planBatch(ctx context.Context, tx *sqlx.Tx, rows []learngate.BatchRow, invite string, now time.Time) (batchPlan, error) {
	var plan batchPlan
	names := make(pq.StringArray, 0, len(rows))
	seen := make(map[string]bool, len(rows))
	var parsed []learngate.UserInput
	for _, row := range rows {
		if row.Err != nil {
			continue
		}
		for _, form := range []learngate.ParsedUser{row.New, row.Update} {
			if form.Err == nil {
				parsed = append(parsed, form.In)
			}
		}
		if name := strings.ToLower(strings.TrimSpace(row.UserName)); !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	var found []storedUser
	err := tx.SelectContext(ctx, &found, batchUsersSQL, names)
	if err != nil {
		return plan, fmt.Errorf("look up batch users: %w", err)
	}
	ids := make(pq.Int64Array, len(found))
	for i := range found {
		ids[i] = found[i].ID
	}
	links, err := loadLinksOf(ctx, tx, ids)
	if err != nil {
		return plan, err
	}
	cat, err := lookupLinkCatalog(ctx, tx, parsed)
	if err != nil {
		return plan, err
	}
	d := decider{rows: rows, stored: found, links: links, cat: cat, invite: invite, now: now}
	// First without the uniqueness checks, for the values the rows end
	// with; then with them, looking up the holders of any value a row
	// ends with that was not looked up yet (a later row of a user whose
	// earlier row failed may end with other values): once in practice.
	if plan, err = d.decide(nil); err != nil {
		return plan, err
	}
	h := newHolders(found)
	for {
		if err := h.lookUp(ctx, tx, plan.rows); err != nil {
			return plan, err
		}
		if plan, err = d.decide(h); err != nil {
			return plan, err
		}
		if h.knowsAll(plan.rows) {
			return plan, nil
		}
	}
}

// decider decides a batch's rows in order against what the batch read.
type decider struct {
	rows   []learngate.BatchRow
	stored []storedUser
	links  map[int64]userLinks
	cat    linkCatalog
	invite string
	now    time.Time
}

// decide plans every row in order. With h, a row whose user would end with
// a user_name, email or lms pair another user holds at that point of the
// batch fails (checkTaken's rule); without, no row is checked. A fault
// that is not the row's (see rowFault) is returned.
func (d decider) decide(h *holders) (batchPlan, error) {
	plan := batchPlan{rows: make([]plannedRow, len(d.rows))}
	users := make(map[string]*plannedUser, len(d.rows))
	for i := range d.stored {
		s := &d.stored[i]
		u := &plannedUser{old: &s.userRow, row: s.userRow, links: d.links[s.ID], next: d.links[s.ID], id: s.ID, key: s.ID, email: s.Email}
		users[s.UserName] = u
		plan.users = append(plan.users, u)
	}
	var claims map[int64]claim
	if h != nil {
		claims = maps.Clone(h.claims)
	}
	for i, row := range d.rows {
		p := &plan.rows[i]
		if row.Err != nil {
			p.err = row.Err
			continue
		}
		p.name = strings.ToLower(strings.TrimSpace(row.UserName))
		u := users[p.name]
		base, baseLinks := (*userRow)(nil), userLinks{custom: map[int64]string{}}
		if u == nil {
			plan.created++
		} else {
			// Counted as updated now; moved to unchanged when nothing is written.
			plan.updated++
			p.storedEmail = u.email
			base, baseLinks = &u.row, u.next
		}
		in, err := row.Input(u == nil)
		var next userRow
		var nextLinks userLinks
		if err == nil {
			next, nextLinks, err = planUser(base, baseLinks, in, d.cat, d.now)
		}
		if err == nil && !storableRow(next) {
			return plan, fmt.Errorf("batch user %q: text PostgreSQL cannot store", p.name)
		}
		key := -int64(i) - 1
		if u != nil {
			key = u.key
		}
		p.holds = claim{userName: next.UserName, email: next.Email, lmsID: next.LMSLearnerID, lmsRef: next.LMSReference}
		if err == nil && h != nil {
			p.holds.emailKey = h.keys[next.Email]
			err = takenBy(claims, key, next, p.holds)
		}
		if err != nil {
			if !rowFault(err) {
				return plan, err
			}
			p.err = err
			continue
		}
		if claims != nil {
			claims[key] = p.holds
		}
		if u == nil {
			u = &plannedUser{links: baseLinks, key: key, email: deref(in.Email)}
			users[p.name] = u
			plan.users = append(plan.users, u)
		}
		p.user, p.change = u, userUnchanged
		if base == nil || !sameValues(base.writable(), next.writable()) || !nextLinks.equal(baseLinks) {
			p.change, u.written = changeOf(base, next.Active), true
		} else {
			plan.updated--
			plan.unchanged++
		}
		u.row, u.next = next, nextLinks
		if d.invite == InviteAll || (d.invite == InviteNew && base == nil) {
			if next.Active {
				plan.sent++
				plan.inviteRows = append(plan.inviteRows, i)
			} else {
				plan.failed++
			}
		}
	}
	return plan, nil
}

// takenBy returns the error of a user (key) ending as r, holding mine,
// when another user of claims holds its user_name, email or lms pair.
func takenBy(claims map[int64]claim, key int64, r userRow, mine claim) error {
	var name, email, lms bool
	for id, c := range claims {
		if id == key {
			continue
		}
		name = name || c.userName == mine.userName
		email = email || (c.emailKey == mine.emailKey && strings.EqualFold(c.email, mine.email))
		lms = lms || (c.lmsID != nil && c.lmsRef != nil && mine.lmsID != nil && mine.lmsRef != nil &&
			*c.lmsID == *mine.lmsID && *c.lmsRef == *mine.lmsRef)
	}
	return takenError(r, name, email, lms, nil)
}

// holders are the users that hold the user_names, emails and lms pairs a
// batch's rows end with, as looked up so far, and the lower() keys of
// those emails.
type holders struct {
	claims map[int64]claim
	keys   map[string]string
	// names and lms are the user_names and lms pairs looked up.
	names map[string]bool
	lms   map[[2]string]bool
}

// newHolders starts with the stored users the rows name.
func newHolders(stored []storedUser) *holders {
	h := &holders{claims: make(map[int64]claim, len(stored)), keys: map[string]string{}, names: map[string]bool{}, lms: map[[2]string]bool{}}
	for _, s := range stored {
		h.claims[s.ID] = claim{userName: s.UserName, email: s.Email, emailKey: s.EmailKey, lmsID: s.LMSLearnerID, lmsRef: s.LMSReference}
	}
	return h
}

// unknown returns the values the planned rows end with that were not
// looked up yet. A row's own user_name is not one: its holders are the
// stored users the rows name.
func (h *holders) unknown(rows []plannedRow) (userNames, emails, lmsIDs, lmsRefs pq.StringArray) {
	for _, p := range rows {
		if p.user == nil {
			continue
		}
		c := p.holds
		if c.userName != p.name && !h.names[c.userName] {
			userNames = append(userNames, c.userName)
		}
		if _, ok := h.keys[c.email]; !ok {
			emails = append(emails, c.email)
		}
		if c.lmsID != nil && c.lmsRef != nil && !h.lms[[2]string{*c.lmsID, *c.lmsRef}] {
			lmsIDs, lmsRefs = append(lmsIDs, *c.lmsID), append(lmsRefs, *c.lmsRef)
		}
	}
	return userNames, emails, lmsIDs, lmsRefs
}

// knowsAll reports whether every value the planned rows end with was
// looked up.
func (h *holders) knowsAll(rows []plannedRow) bool {
	names, emails, lmsIDs, _ := h.unknown(rows)
	return len(names)+len(emails)+len(lmsIDs) == 0
}

// lookUp adds, in one query, the holders of the values the planned rows
// end with that were not looked up yet; nothing is sent when there are none.
func (h *holders) lookUp(ctx context.Context, tx *sqlx.Tx, rows []plannedRow) error {
	userNames, emails, lmsIDs, lmsRefs := h.unknown(rows)
	if len(userNames)+len(emails)+len(lmsIDs) == 0 {
		return nil
	}
	// One query: the lower() key of each email (id 0), then the users
	// holding one of the user_names, emails or lms pairs, one SELECT per
	// unique index (a user may come more than once). Each ANY (ARRAY(...))
	// lets the planner use the index whatever the number of values.
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
	for _, f := range found {
		if f.ID == 0 {
			h.keys[f.Email] = f.EmailKey
		} else {
			h.claims[f.ID] = claim{userName: f.UserName, email: f.Email, emailKey: f.EmailKey, lmsID: f.LMSLearnerID, lmsRef: f.LMSReference}
		}
	}
	for _, n := range userNames {
		h.names[n] = true
	}
	for i := range lmsIDs {
		h.lms[[2]string{lmsIDs[i], lmsRefs[i]}] = true
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
// as the set-based writes (JSON) need; PostgreSQL refuses any other text,
// so a row holding one fails the batch.
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
