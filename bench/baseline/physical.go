package main

import (
	"context"
	"database/sql"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/lib/pq"

	"learngate"
	"learngate/input"
)

// The physical-limit baseline: GET /physical/papi/<list>, with learngate's
// path and query, answers the list's body from one SQL statement that
// builds the whole JSON in PostgreSQL (physical_sql.go): Go parses the
// query, binds the values and copies the text to the response: no rows
// cross the wire and nothing is marshalled in Go, so what it costs is the
// SQL work of the body itself. The benchmark compares learngate with it to
// show how far the service's own reads are from that limit.
//
// As the same-SQL baseline, it serves one fixed tenant, in a read-only
// transaction that begins with the scope (physicalScopeSQL); it parses the query with
// learngate's input package (the same loose formats), and it answers only
// valid requests: a bad parameter is a 400 with the error, not learngate's
// message. Cursor pages (the Link walk) are not served.

// physicalPrefix is the path prefix of the physical-limit routes.
const physicalPrefix = "/physical"

// physicalRoutes registers the physical-limit lists on mux.
func (s *server) physicalRoutes(mux *http.ServeMux) {
	p := "GET " + physicalPrefix + "/papi"
	mux.HandleFunc(p+"/users", s.physicalUsers)
	mux.HandleFunc(p+"/topic_assignments", s.physicalEnrolments("topic_enrolments", "topic_ids", "topic_id", ""))
	mux.HandleFunc(p+"/topic_assignments/by_topic/{id}", s.physicalEnrolments("topic_enrolments", "topic_ids", "topic_id", "target"))
	mux.HandleFunc(p+"/topic_assignments/by_user/{id}", s.physicalEnrolments("topic_enrolments", "topic_ids", "topic_id", "user"))
	mux.HandleFunc(p+"/topic_assignments/user/{user_name}", s.physicalEnrolments("topic_enrolments", "topic_ids", "topic_id", "user_name"))
	mux.HandleFunc(p+"/pathway_assignments", s.physicalEnrolments("pathway_enrolments", "pathway_ids", "pathway_id", ""))
	mux.HandleFunc(p+"/pathway_assignments/by_pathway/{id}", s.physicalEnrolments("pathway_enrolments", "pathway_ids", "pathway_id", "target"))
	mux.HandleFunc(p+"/pathway_assignments/by_user/{id}", s.physicalEnrolments("pathway_enrolments", "pathway_ids", "pathway_id", "user"))
	mux.HandleFunc(p+"/external_knowledges", s.physicalKnowledge)
}

// physicalArgs collects a statement's arguments after $1 size, $2 offset
// and $3 page number.
type physicalArgs struct{ args []any }

func newPhysicalArgs(number, size int) *physicalArgs {
	return &physicalArgs{args: []any{size, int64(number-1) * int64(size), number}}
}

// add binds v and returns its placeholder.
func (a *physicalArgs) add(v any) string {
	a.args = append(a.args, v)
	return "$" + strconv.Itoa(len(a.args))
}

// physicalPage reads page and per_page as learngate does.
func physicalPage(q url.Values) (number, size int, err error) {
	return input.PageParams(q.Get("page"), q.Get("per_page"))
}

// updatedConds are the updated_after/updated_before conditions on col.
func updatedConds(q url.Values, a *physicalArgs, col string) ([]string, error) {
	var conds []string
	for _, b := range []struct{ param, op string }{{"updated_after", " > "}, {"updated_before", " < "}} {
		v := q.Get(b.param)
		if strings.TrimSpace(v) == "" {
			continue
		}
		t, err := input.DateTimeUTC(b.param, v)
		if err != nil {
			return nil, err
		}
		conds = append(conds, col+b.op+a.add(t))
	}
	return conds, nil
}

// physicalUsers is GET /physical/papi/users.
func (s *server) physicalUsers(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	number, size, err := physicalPage(q)
	if err != nil {
		badRequest(w, err)
		return
	}
	a := newPhysicalArgs(number, size)
	a.add(pq.StringArray(learngate.AdminTypeNames))
	conds, ctes, kind, err := userConds(q, a)
	if err != nil {
		badRequest(w, err)
		return
	}
	s.physicalBody(w, r, usersSQL(kind, whereSQL(conds), ctes), a.args)
}

// userConds are the users list's filters (store.userFilterSQL), the CTEs
// they read and how the list is counted.
func userConds(q url.Values, a *physicalArgs) ([]string, []string, userCountKind, error) {
	conds, err := updatedConds(q, a, "updated_at")
	if err != nil {
		return nil, nil, 0, err
	}
	var ctes []string
	activeOnly := false
	if v := q.Get("active"); strings.TrimSpace(v) != "" {
		active, err := input.Bool("active", v)
		if err != nil {
			return nil, nil, 0, err
		}
		conds = append(conds, "active = "+a.add(active))
		activeOnly = active && len(conds) == 1
	}
	if email := strings.TrimSpace(q.Get("email")); email != "" {
		conds = append(conds, "lower(email) = lower("+a.add(email)+")")
		activeOnly = false
	}
	custom, err := input.CustomFieldFilters(q)
	if err != nil {
		return nil, nil, 0, err
	}
	for name, raw := range custom {
		raw = strings.TrimSpace(raw)
		if raw == "" {
			continue
		}
		var num, day *string
		if f, err := input.Decimal("x-"+name, raw); err == nil {
			n := strconv.FormatFloat(f, 'f', -1, 64) // store.formatNumber
			num = &n
		}
		if d, err := input.Date("x-"+name, raw); err == nil && input.FormatDate(d) == raw {
			n := input.FormatDate(d)
			day = &n
		}
		items := pq.StringArray{}
		for _, item := range strings.Split(raw, ",") {
			if item = strings.TrimSpace(item); item != "" {
				items = append(items, item)
			}
		}
		cte, cond := customFilterSQL(len(ctes), a.add(strings.ToLower(name)), a.add(num), a.add(day), a.add(items), a.add(raw))
		ctes, conds = append(ctes, cte), append(conds, cond)
		activeOnly = false
	}
	switch {
	case len(conds) == 0:
		return nil, nil, countAnchored, nil
	case activeOnly:
		return conds, nil, countActive, nil
	}
	return conds, ctes, countFiltered, nil
}

// physicalEnrolments is a topic or pathway enrolment list of table:
// narrow is "" (the whole list), "target" (by_topic, by_pathway), "user"
// (by_user) or "user_name" (GET /topic_assignments/user/{user_name}).
func (s *server) physicalEnrolments(table, idsParam, idParam, narrow string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		number, size, err := physicalPage(q)
		if err != nil {
			badRequest(w, err)
			return
		}
		a := newPhysicalArgs(number, size)
		var conds []string
		ids, err := input.IDList(idsParam, q.Get(idsParam))
		if err != nil {
			badRequest(w, err)
			return
		}
		if ids != nil {
			conds = append(conds, "e."+idParam+" = ANY("+a.add(pq.Int64Array(ids))+")")
		}
		targetID, userID := q.Get(idParam), q.Get("user_id")
		switch narrow {
		case "target":
			targetID = r.PathValue("id")
		case "user":
			userID = r.PathValue("id")
		}
		for _, f := range []struct{ param, raw, col string }{{idParam, targetID, "e." + idParam}, {"user_id", userID, "e.user_id"}} {
			if strings.TrimSpace(f.raw) == "" {
				continue
			}
			id, err := input.Int(f.param, f.raw)
			if err != nil {
				badRequest(w, err)
				return
			}
			conds = append(conds, f.col+" = "+a.add(id))
		}
		var userCheck string
		if narrow == "user_name" {
			p := a.add(strings.ToLower(r.PathValue("user_name")))
			conds = append(conds, "e.user_id = (SELECT id FROM users WHERE user_name = "+p+")")
			userCheck = "EXISTS (SELECT 1 FROM users WHERE user_name = " + p + ")"
		}
		if name := strings.ToLower(strings.TrimSpace(q.Get("user_name"))); name != "" {
			conds = append(conds, "e.user_id = (SELECT id FROM users WHERE user_name = "+a.add(name)+")")
		}
		updated, err := updatedConds(q, a, "e.updated_at")
		if err != nil {
			badRequest(w, err)
			return
		}
		conds = append(append([]string{unfilteredEnrolmentsSQL}, conds...), updated...)
		s.physicalBody(w, r, enrolmentsSQL(table, whereSQL(conds), userCheck), a.args)
	}
}

// physicalKnowledge is GET /physical/papi/external_knowledges.
func (s *server) physicalKnowledge(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	number, size, err := physicalPage(q)
	if err != nil {
		badRequest(w, err)
		return
	}
	a := newPhysicalArgs(number, size)
	conds, err := updatedConds(q, a, "k.updated_at")
	if err != nil {
		badRequest(w, err)
		return
	}
	if name := strings.TrimSpace(q.Get("user_name")); name != "" {
		conds = append(conds, "k.user_id = (SELECT id FROM users WHERE user_name = "+a.add(strings.ToLower(name))+")")
	}
	s.physicalBody(w, r, knowledgeSQL(whereSQL(conds)), a.args)
}

// physicalBody runs query, the one statement of a physical list, in a
// read-only transaction scoped to the tenant and copies the body it
// returns to the response; a NULL body is learngate's 404 "not found".
func (s *server) physicalBody(w http.ResponseWriter, r *http.Request, query string, args []any) {
	var out []byte
	err := s.inPhysicalTx(r.Context(), func(tx *sql.Tx) error {
		return tx.QueryRowContext(r.Context(), query, args...).Scan(&out)
	})
	if err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	if out == nil {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`"not found"`))
		return
	}
	_, _ = w.Write(out)
}

// physicalScopeSQL is scopeSQL, with JIT compilation off for the
// transaction: a whole body in one statement can cost more than
// jit_above_cost, and compiling its expressions takes longer (seconds on
// this machine) than running them (milliseconds).
const physicalScopeSQL = `SELECT set_config('search_path', $1, true), set_config('jit', 'off', true)`

// inPhysicalTx runs fn in a read-only transaction that begins with
// physicalScopeSQL.
func (s *server) inPhysicalTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, physicalScopeSQL, s.schema); err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// badRequest answers 400 with err (the benchmark sends valid requests).
func badRequest(w http.ResponseWriter, err error) {
	writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
}
