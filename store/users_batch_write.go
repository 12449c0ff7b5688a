package store

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"github.com/riverqueue/river"
)

// batchWriteHookKey keys a func() in a context that the set-based batch
// save calls just before it writes: tests use it to make a concurrent
// transaction take an email the batch planned to use.
type batchWriteHookKey struct{}

// The set-based UPDATE and INSERT of batch users: $1 is a JSON array of
// objects keyed by the users columns (writableUserColumns, and id for an
// UPDATE), $2 the updated_at (and created_at) of them all. The INSERT
// keeps the array's order and returns each new user's id and user_name.
var updateUsersBatchSQL, insertUsersBatchSQL = userBatchWriteSQL()

func userBatchWriteSQL() (string, string) {
	cols := strings.Join(writableUserColumns, ", ")
	from := make([]string, len(writableUserColumns))
	for i, col := range writableUserColumns {
		from[i] = "t." + col
	}
	update := fmt.Sprintf(`UPDATE users u SET (%s) = (%s), updated_at = $2::timestamptz
		FROM jsonb_populate_recordset(NULL::users, $1::jsonb) AS t WHERE u.id = t.id`, cols, strings.Join(from, ", "))
	insert := fmt.Sprintf(`INSERT INTO users (%s, created_at, updated_at)
		SELECT %s, $2::timestamptz, $2::timestamptz
		FROM jsonb_populate_recordset(NULL::users, $1::jsonb) WITH ORDINALITY AS t
		ORDER BY t.ordinality RETURNING id, user_name`, cols, strings.Join(from, ", "))
	return update, insert
}

// appendUserJSON appends to buf the JSON object of r that
// userBatchWriteSQL reads: its writable columns and its id. Its texts are
// valid UTF-8 without NUL (storableRow).
func appendUserJSON(buf []byte, r userRow) []byte {
	buf = append(buf, `{"id":`...)
	buf = strconv.AppendInt(buf, r.ID, 10)
	for i, v := range r.writable() {
		buf = append(buf, ',', '"')
		buf = append(buf, writableUserColumns[i]...)
		buf = append(buf, '"', ':')
		switch x := comparableValue(v).(type) {
		case nil:
			buf = append(buf, "null"...)
		case string:
			buf = appendJSONString(buf, x)
		case bool:
			buf = strconv.AppendBool(buf, x)
		case time.Time:
			buf = append(buf, '"')
			buf = x.AppendFormat(buf, time.RFC3339Nano)
			buf = append(buf, '"')
		default:
			panic(fmt.Sprintf("users column %s: no JSON for %T", writableUserColumns[i], x))
		}
	}
	return append(buf, '}')
}

// appendJSONString appends s as a JSON string.
func appendJSONString(buf []byte, s string) []byte {
	const hex = "0123456789abcdef"
	buf = append(buf, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			buf = append(buf, '\\', c)
		case c < 0x20:
			buf = append(buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			buf = append(buf, c)
		}
	}
	return append(buf, '"')
}

// jsonArray is the JSON array of objects.
func jsonArray(objects [][]byte) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, o := range objects {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(o)
	}
	b.WriteByte(']')
	return b.String()
}

// writeBatch writes what plan decided with a fixed number of statements:
// one UPDATE of the changed users, one INSERT of the new ones (which gives
// plan's new users their ids), per kind of link a DELETE and an INSERT of
// the links that changed, and one insert of the invitations. A statement
// with nothing to write is not sent.
func (t *TenantDB) writeBatch(ctx context.Context, tx *sqlx.Tx, plan *batchPlan, now time.Time) error {
	now = now.UTC().Truncate(time.Microsecond)
	var updates, inserts [][]byte
	var created []*plannedUser
	var newPassword []int64
	for _, u := range plan.users {
		switch {
		case u.old == nil:
			inserts = append(inserts, appendUserJSON(nil, u.row))
			created = append(created, u)
		case u.written: // links alone changed too: updated_at moves, as in saveUser
			updates = append(updates, appendUserJSON(nil, u.row))
			if (u.row.PasswordHash == nil) != (u.old.PasswordHash == nil) ||
				(u.row.PasswordHash != nil && *u.old.PasswordHash != *u.row.PasswordHash) {
				newPassword = append(newPassword, u.old.ID) // a password set or removed ends their sessions
			}
		}
	}
	if len(updates) > 0 {
		if _, err := tx.ExecContext(ctx, updateUsersBatchSQL, jsonArray(updates), now); err != nil {
			return fmt.Errorf("update batch users: %w", err)
		}
	}
	if err := t.endWebSessions(ctx, tx, newPassword); err != nil {
		return err
	}
	if len(inserts) > 0 {
		var ids []struct {
			ID       int64  `db:"id"`
			UserName string `db:"user_name"`
		}
		if err := tx.SelectContext(ctx, &ids, insertUsersBatchSQL, jsonArray(inserts), now); err != nil {
			return fmt.Errorf("insert batch users: %w", err)
		}
		byName := make(map[string]int64, len(ids))
		for _, r := range ids {
			byName[r.UserName] = r.ID
		}
		for _, u := range created {
			u.id = byName[u.row.UserName]
			u.row.ID = u.id
		}
	}
	if err := writeBatchLinks(ctx, tx, plan); err != nil {
		return err
	}
	if len(plan.inviteRows) == 0 {
		return nil
	}
	// A user invited by several rows gets one job, as its unique options
	// would keep one.
	params := make([]river.InsertManyParams, 0, len(plan.inviteRows))
	invited := make(map[int64]bool, len(plan.inviteRows))
	for _, row := range plan.inviteRows {
		if id := plan.rows[row].user.id; !invited[id] {
			invited[id] = true
			params = append(params, river.InsertManyParams{Args: InvitationArgs{Schema: t.schema, UserID: id}})
		}
	}
	if _, err := t.db.jobs.InsertManyTx(ctx, tx.Tx, params); err != nil {
		return fmt.Errorf("queue batch invitations: %w", err)
	}
	return nil
}

// batchLinks are the link rows of some users, column by column.
type batchLinks struct {
	cleared                  pq.Int64Array // users whose rows are replaced
	users, refs, pos         pq.Int64Array
	values                   pq.StringArray
	table, columns, selectFn string
}

// writeBatchLinks replaces, per kind of link, the links of the users of
// plan whose links of that kind the batch left changed: one DELETE of the old ones (when
// a stored user had any) and one INSERT of the new ones.
func writeBatchLinks(ctx context.Context, tx *sqlx.Tx, plan *batchPlan) error {
	roles := batchLinks{table: "user_roles", columns: "user_id, position, role_id",
		selectFn: `SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[])`}
	groups := batchLinks{table: "user_groups", columns: "user_id, group_id", selectFn: `SELECT * FROM unnest($1::bigint[], $2::bigint[])`}
	goals := batchLinks{table: "user_goals", columns: "user_id, goal_id", selectFn: `SELECT * FROM unnest($1::bigint[], $2::bigint[])`}
	custom := batchLinks{table: "user_custom_values", columns: "user_id, field_id, value",
		selectFn: `SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[])`}
	for _, u := range plan.users {
		if u.next.equal(u.links) {
			continue
		}
		old, next := u.links, u.next
		if old.roles != next.roles {
			roles.clear(u, old.roles != [5]int64{})
			for i, r := range next.roles {
				if r != 0 {
					roles.users, roles.pos, roles.refs = append(roles.users, u.id), append(roles.pos, int64(i+1)), append(roles.refs, r)
				}
			}
		}
		if !slices.Equal(old.groups, next.groups) {
			groups.clear(u, len(old.groups) > 0)
			groups.addIDs(u.id, next.groups)
		}
		if !slices.Equal(old.goals, next.goals) {
			goals.clear(u, len(old.goals) > 0)
			goals.addIDs(u.id, next.goals)
		}
		if !maps.Equal(old.custom, next.custom) {
			custom.clear(u, len(old.custom) > 0)
			fields := make([]int64, 0, len(next.custom))
			for f := range next.custom {
				fields = append(fields, f)
			}
			sort.Slice(fields, func(i, j int) bool { return fields[i] < fields[j] })
			for _, f := range fields {
				custom.users, custom.refs, custom.values = append(custom.users, u.id), append(custom.refs, f), append(custom.values, next.custom[f])
			}
		}
	}
	for _, l := range []batchLinks{roles, groups, goals, custom} {
		if len(l.cleared) > 0 {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+l.table+` WHERE user_id = ANY (ARRAY(SELECT unnest($1::bigint[])))`, l.cleared); err != nil {
				return fmt.Errorf("clear %s: %w", l.table, err)
			}
		}
		if len(l.users) == 0 {
			continue
		}
		args := []any{l.users, l.refs}
		switch l.table {
		case "user_roles":
			args = []any{l.users, l.pos, l.refs}
		case "user_custom_values":
			args = append(args, l.values)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO `+l.table+` (`+l.columns+`) `+l.selectFn, args...); err != nil {
			return fmt.Errorf("write %s: %w", l.table, err)
		}
	}
	return nil
}

// clear notes that the links of u are replaced, which deletes the stored
// ones when it had any.
func (l *batchLinks) clear(u *plannedUser, hadAny bool) {
	if u.old != nil && hadAny {
		l.cleared = append(l.cleared, u.id)
	}
}

// addIDs adds a link of user id to each of refs.
func (l *batchLinks) addIDs(id int64, refs []int64) {
	for _, r := range refs {
		l.users, l.refs = append(l.users, id), append(l.refs, r)
	}
}
