package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/lib/pq"

	"learngate"
)

// The baseline's batch writes do the benchmark's work set-based and
// nothing more: they create users and records from valid input. Anything
// else (an existing user, an unknown name, a taken email, a subscribed
// webhook endpoint) is answered 422 or 500 rather than handled; the
// benchmark never sends it.
var errUnsupported = errors.New("baseline: not a benchmark request")

// batchSaveUsers is POST /papi/users/batch_save for new users.
func (s *server) batchSaveUsers(w http.ResponseWriter, r *http.Request) {
	var body struct {
		People []map[string]any `json:"people"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || len(body.People) == 0 {
		writeJSON(w, http.StatusBadRequest, "Bad request: Missing parameter 'people'")
		return
	}
	now := s.now().UTC().Truncate(time.Microsecond)
	err := s.inTx(r.Context(), false, func(tx *sql.Tx) error {
		return s.createUsers(r.Context(), tx, body.People, now)
	})
	if err != nil {
		status := http.StatusInternalServerError
		if errors.Is(err, errUnsupported) {
			status = http.StatusUnprocessableEntity
		}
		writeJSON(w, status, map[string]string{"error": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, learngate.BatchResult{Created: len(body.People), ErrorList: []learngate.BatchError{}})
}

// createUsers inserts people with their roles, groups, goals and custom
// values: one lookup per kind of name, one insert per table.
func (s *server) createUsers(ctx context.Context, tx *sql.Tx, people []map[string]any, now time.Time) error {
	names := make(pq.StringArray, len(people))
	emails := make(pq.StringArray, len(people))
	var roleNames, groupNames, goalNames []string
	custom := false
	for i, p := range people {
		names[i] = strings.ToLower(strings.TrimSpace(text(p["user_name"])))
		emails[i] = strings.ToLower(text(p["email"]))
		for n := 1; n <= 5; n++ {
			if v := text(p[fmt.Sprintf("role_%d", n)]); v != "" {
				roleNames = append(roleNames, v)
			}
		}
		groupNames = append(groupNames, splitList(p["groups"])...)
		goalNames = append(goalNames, splitList(p["goals"])...)
		for k := range p {
			custom = custom || strings.HasPrefix(k, "X-")
		}
	}
	if n, err := count(ctx, tx, batchUsersSQL, names); err != nil || n > 0 {
		return orUnsupported(err)
	}
	roles, err := lookupNames(ctx, tx, "roles", roleNames)
	if err != nil {
		return err
	}
	groups, err := lookupNames(ctx, tx, "groups", groupNames)
	if err != nil {
		return err
	}
	goals, err := lookupNames(ctx, tx, "goals", goalNames)
	if err != nil {
		return err
	}
	fields := map[string]customField{}
	if custom {
		if fields, err = customFields(ctx, tx); err != nil {
			return err
		}
	}
	if n, err := count(ctx, tx, takenSQL, names, emails); err != nil || n > 0 {
		return orUnsupported(err)
	}

	cols := make([]pq.StringArray, 5)
	for _, p := range people {
		for j, v := range []string{strings.ToLower(strings.TrimSpace(text(p["user_name"]))), text(p["first_name"]),
			text(p["last_name"]), text(p["email"]), s.timezone} {
			cols[j] = append(cols[j], v)
		}
	}
	rows, err := tx.QueryContext(ctx, insertUsersSQL, cols[0], cols[1], cols[2], cols[3], cols[4], now)
	if err != nil {
		return err
	}
	ids := map[string]int64{}
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			rows.Close()
			return err
		}
		ids[name] = id
	}
	rows.Close()

	var roleUsers, rolePos, roleIDs, groupUsers, groupIDs, goalUsers, goalIDs, valueUsers, valueFields pq.Int64Array
	var values pq.StringArray
	for i, p := range people {
		id := ids[names[i]]
		for n := 1; n <= 5; n++ {
			if v := text(p[fmt.Sprintf("role_%d", n)]); v != "" {
				roleUsers, rolePos, roleIDs = append(roleUsers, id), append(rolePos, int64(n)), append(roleIDs, roles[v])
			}
		}
		for _, g := range idSet(groups, splitList(p["groups"])) {
			groupUsers, groupIDs = append(groupUsers, id), append(groupIDs, g)
		}
		for _, g := range idSet(goals, splitList(p["goals"])) {
			goalUsers, goalIDs = append(goalUsers, id), append(goalIDs, g)
		}
		var set []customValue
		for k, v := range p {
			if name, ok := strings.CutPrefix(k, "X-"); ok {
				f, ok := fields[strings.ToLower(name)]
				if !ok {
					return errUnsupported
				}
				set = append(set, customValue{f.id, f.value(v)})
			}
		}
		sort.Slice(set, func(a, b int) bool { return set[a].field < set[b].field })
		for _, cv := range set {
			valueUsers, valueFields, values = append(valueUsers, id), append(valueFields, cv.field), append(values, cv.value)
		}
	}
	for _, ins := range []struct {
		sql  string
		args []any
	}{
		{insertUserRolesSQL, []any{roleUsers, rolePos, roleIDs}},
		{insertUserGroupsSQL, []any{groupUsers, groupIDs}},
		{insertUserGoalsSQL, []any{goalUsers, goalIDs}},
		{insertUserValuesSQL, []any{valueUsers, valueFields, values}},
	} {
		if _, err := tx.ExecContext(ctx, ins.sql, ins.args...); err != nil {
			return err
		}
	}
	return noWebhookTargets(ctx, tx)
}

// noWebhookTargets runs learngate's event recording query; the baseline
// records no events, so a subscribed endpoint is unsupported.
func noWebhookTargets(ctx context.Context, tx *sql.Tx) error {
	n, err := count(ctx, tx, webhookTargetsSQL)
	if err != nil || n > 0 {
		return orUnsupported(err)
	}
	return nil
}

// count runs query and counts its rows.
func count(ctx context.Context, tx *sql.Tx, query string, args ...any) (int, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
	}
	return n, rows.Err()
}

func orUnsupported(err error) error {
	if err != nil {
		return err
	}
	return errUnsupported
}

// lookupNames maps names to ids in catalog table (a constant of the caller).
func lookupNames(ctx context.Context, tx *sql.Tx, table string, names []string) (map[string]int64, error) {
	found := map[string]int64{}
	if len(names) == 0 {
		return found, nil
	}
	rows, err := tx.QueryContext(ctx, lookupNamesSQL(table), pq.StringArray(names))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var id int64
		if err := rows.Scan(&name, &id); err != nil {
			return nil, err
		}
		found[name] = id
	}
	return found, rows.Err()
}

// idSet returns the sorted distinct ids of names.
func idSet(found map[string]int64, names []string) []int64 {
	seen := map[int64]bool{}
	var ids []int64
	for _, n := range names {
		if id, ok := found[n]; ok && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

type customField struct {
	id      int64
	typ     string
	options []string
}

type customValue struct {
	field int64
	value string
}

func customFields(ctx context.Context, tx *sql.Tx) (map[string]customField, error) {
	rows, err := tx.QueryContext(ctx, customFieldsSQL)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]customField{}
	for rows.Next() {
		var f customField
		var name string
		var options pq.StringArray
		if err := rows.Scan(&f.id, &name, &f.typ, &options); err != nil {
			return nil, err
		}
		f.options = options
		out[strings.ToLower(name)] = f
	}
	return out, rows.Err()
}

// value is v in its stored form: a number in shortest form, list options
// in their spelling, sorted and joined with ';', text as sent.
func (f customField) value(v any) string {
	switch f.typ {
	case "number":
		n, _ := v.(float64)
		return strconv.FormatFloat(n, 'f', -1, 64)
	case "list":
		var chosen []string
		for _, item := range splitList(v) {
			for _, o := range f.options {
				if strings.EqualFold(o, item) {
					chosen = append(chosen, o)
				}
			}
		}
		sortNames(chosen)
		return strings.Join(chosen, ";")
	}
	return text(v)
}

// text is v as a trimmed string ("" when it is not one).
func text(v any) string {
	s, _ := v.(string)
	return strings.TrimSpace(s)
}

// splitList splits a ';' list.
func splitList(v any) []string {
	var out []string
	for _, item := range strings.Split(text(v), ";") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
