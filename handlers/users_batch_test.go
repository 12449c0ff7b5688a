package handlers

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// batchResult is the exact batch user result with the given counters and
// error_list entries (JSON objects).
func batchResult(created, updated, unchanged, enrolled, sent, failed int, errs ...string) string {
	return fmt.Sprintf(`{"created":%d,"updated":%d,"unchanged":%d,"enrolled":%d,"invitations_sent":%d,"invitations_failed":%d,"errors":%d,"error_list":[%s]}`,
		created, updated, unchanged, enrolled, sent, failed, len(errs), strings.Join(errs, ","))
}

// rowError is an error_list entry of a user row.
func rowError(userName, email, reason string) string {
	return kv{{"user_name", userName}, {"email", email}, {"error_reason", reason}}.String()
}

func TestBatchSaveUsers(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	e.seedCatalog(t)
	e.acme.call(t, http.MethodPost, "/papi/users",
		`{"user_name":"bob","first_name":"Bob","last_name":"Brown","email":"bob@example.com","groups":"sales"}`,
		http.StatusOK, "")
	e.acme.call(t, http.MethodPost, "/papi/users",
		`{"user_name":"cat","first_name":"Cat","last_name":"Cole","email":"cat@example.com","role_1":"Manager"}`,
		http.StatusOK, "")

	// An hour later: a batch that creates, updates, leaves unchanged and fails.
	e.clock.advance(time.Hour)
	later := usersStart.Add(time.Hour)
	body := `{"people":[
		{"user_name":"Dan","first_name":"Dan","last_name":"Dye","email":"dan@example.com","groups":["alpha","berlin"],"role_1":"trainer","X-City":"Oslo","X-Age":"40","X-Skills":"go;sql"},
		{"user_name":"BOB","last_name":"Black","active":"no"},
		{"user_name":"cat","first_name":"Cat","role_1":"MANAGER"},
		{"user_name":"eve","first_name":"Eve","last_name":"Ek","email":"eve@example.com","groups":"sales;nowhere"},
		{"user_name":"fay","first_name":"Fay","last_name":"Fox","email":"bob@EXAMPLE.com"},
		{"user_name":"gus","first_name":"Gus","email":"gus@example.com"},
		{"user_name":"cat","active":"maybe"},
		{"user_name":"hal","first_name":"Hal","last_name":"Hill","email":"hal@"},
		{"first_name":"Nameless","email":"nobody@example.com"},
		"ivy",
		{"user_name":"dan","mentor_email":"mentor@example.com"}
	],"send_invitations":"NO"}`
	e.acme.call(t, http.MethodPost, "/papi/users/batch_save", body, http.StatusOK, batchResult(5, 3, 1, 0, 0, 0,
		rowError("eve", "eve@example.com", "Illegal value 'nowhere' for 'groups'"),
		rowError("fay", "bob@EXAMPLE.com", "email 'bob@EXAMPLE.com' is already taken"),
		rowError("gus", "gus@example.com", "Illegal value '' for 'last_name'"),
		rowError("cat", "cat@example.com", "Illegal value 'maybe' for 'active'"),
		rowError("hal", "hal@", "Invalid email 'hal@'"),
		rowError("", "nobody@example.com", "Illegal value '' for 'user_name'"),
		rowError("", "", "Each person must be a JSON object"),
	))

	// Created with every link, then updated by a later row of the same batch.
	e.acme.call(t, http.MethodGet, "/papi/users/dan", "", http.StatusOK, wantUser(seededCustom, map[string]any{
		"user_name": "dan", "first_name": "Dan", "last_name": "Dye", "email": "dan@example.com",
		"mentor_email": "mentor@example.com", "created_at": ts(later), "updated_at": ts(later),
		"groups": "Alpha;Berlin", "role_1": "Trainer", "X-City": "Oslo", "X-Age": "40", "X-Skills": "Go;SQL",
	}))
	// Updated: only the given fields changed, matched in any case.
	e.acme.call(t, http.MethodGet, "/papi/users/bob", "", http.StatusOK, wantUser(seededCustom, map[string]any{
		"user_name": "bob", "first_name": "Bob", "last_name": "Black", "email": "bob@example.com",
		"active": false, "groups": "sales", "updated_at": ts(later),
	}))
	// Unchanged: updated_at stays where it was.
	e.acme.call(t, http.MethodGet, "/papi/users/cat", "", http.StatusOK, wantUser(seededCustom, map[string]any{
		"user_name": "cat", "first_name": "Cat", "last_name": "Cole", "email": "cat@example.com", "role_1": "Manager",
	}))
	// Failed rows left no trace: 4 users, no row of eve's in user_groups.
	for _, name := range []string{"eve", "fay", "gus", "hal"} {
		e.acme.call(t, http.MethodGet, "/papi/users/"+name, "", http.StatusNotFound, `"not found"`)
	}
	e.assertUserCounts(t, [5]int{3, 2, 3, 0, 3})
	e.assertIsolated(t, "dan")
}

func TestBatchSaveUsersRefusesWholeBatch(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	person := `{"user_name":"ann","first_name":"Ann","last_name":"Lee","email":"ann@example.com"}`
	tooMany := strings.TrimSuffix(strings.Repeat(person+",", 101), ",")
	tests := []struct {
		name, body, want string
	}{
		{"no people", `{"send_invitations":"new"}`, `"Bad request: Missing parameter 'people'"`},
		{"null people", `{"people":null}`, `"Bad request: Missing parameter 'people'"`},
		{"people not an array", `{"people":{"user_name":"ann"}}`, `"Bad request: Illegal value '{\"user_name\":\"ann\"}' for 'people'"`},
		{"people a string", `{"people":"ann"}`, `"Bad request: Illegal value 'ann' for 'people'"`},
		{"no one in people", `{"people":[]}`, `"Bad request: 'people' must hold at least one person"`},
		{"101 people", `{"people":[` + tooMany + `]}`, `"Bad request: 'people' may hold at most 100 people, 101 given"`},
		{"bad send_invitations", `{"people":[` + person + `],"send_invitations":"some"}`, `"Bad request: Illegal value 'some' for 'send_invitations'"`},
		{"send_invitations not a string", `{"people":[` + person + `],"send_invitations":true}`, `"Bad request: Illegal value 'true' for 'send_invitations'"`},
		{"body not an object", `[` + person + `]`, `"Bad request: request body must be a JSON object"`},
		{"malformed JSON", `{"people":[`, `"Bad request: malformed JSON"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.acme.call(t, http.MethodPost, "/papi/users/batch_save", tt.body, http.StatusBadRequest, tt.want)
			e.assertUserCounts(t, [5]int{0, 0, 0, 0, 0})
		})
	}
	// Exactly 100 is allowed; the same person 100 times is one create and 99 unchanged.
	hundred := strings.TrimSuffix(strings.Repeat(person+",", 100), ",")
	e.acme.call(t, http.MethodPost, "/papi/users/batch_save", `{"people":[`+hundred+`]}`, http.StatusOK,
		batchResult(1, 0, 99, 0, 0, 0))
	e.assertUserCounts(t, [5]int{1, 0, 0, 0, 0})
	e.assertIsolated(t, "ann")
}

func TestBatchSaveUsersNeedsJSON(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	w := do(e.h.public, request{method: http.MethodPost, host: e.acme.host, path: "/papi/users/batch_save",
		body: `{"people":[]}`, headers: map[string]string{"Authorization": e.acme.key, "Content-Type": "text/plain"}})
	assertResponse(t, w, http.StatusNotAcceptable, `{"error":"Content-Type must be application/json"}`)
}

func TestBatchSaveUsersInvitations(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	e.acme.call(t, http.MethodPost, "/papi/users",
		`{"user_name":"bob","first_name":"Bob","last_name":"Brown","email":"bob@example.com"}`, http.StatusOK, "")
	invited := func(t *testing.T, want ...string) {
		t.Helper()
		var got []string
		err := e.h.db.Pool().Select(&got, `SELECT u.user_name FROM public.river_job j
			JOIN `+e.schema(t, "acme")+`.users u ON u.id = (j.args->>'user_id')::bigint
			WHERE j.kind = 'send_invitation' ORDER BY j.id`)
		if err != nil {
			t.Fatalf("queued invitations: %v", err)
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("invitations queued for %v, want %v", got, want)
		}
	}

	// "new": only created users are invited; an inactive one cannot be; a
	// failed row invites nobody.
	e.acme.call(t, http.MethodPost, "/papi/users/batch_save", `{"send_invitations":"New","people":[
		{"user_name":"ann","first_name":"Ann","last_name":"Lee","email":"ann@example.com"},
		{"user_name":"cy","first_name":"Cy","last_name":"Cole","email":"cy@example.com","active":false},
		{"user_name":"bob","first_name":"Bobby"},
		{"user_name":"dee","first_name":"Dee","last_name":"Dunn","email":"ann@example.com"}]}`,
		http.StatusOK, batchResult(3, 1, 0, 0, 1, 1,
			rowError("dee", "ann@example.com", "email 'ann@example.com' is already taken")))
	invited(t, "ann")

	// "no" (and omitted) invites nobody.
	e.acme.call(t, http.MethodPost, "/papi/users/batch_save", `{"send_invitations":"no","people":[
		{"user_name":"eve","first_name":"Eve","last_name":"Ek","email":"eve@example.com"}]}`,
		http.StatusOK, batchResult(1, 0, 0, 0, 0, 0))
	invited(t, "ann")

	// "all": everyone saved, unchanged users too. Ann's invitation is still
	// waiting, so she gets no second one.
	e.acme.call(t, http.MethodPost, "/papi/users/batch_save", `{"send_invitations":"all","people":[
		{"user_name":"ann"},{"user_name":"bob"},{"user_name":"cy"}]}`,
		http.StatusOK, batchResult(0, 0, 3, 0, 2, 1))
	invited(t, "ann", "bob")
	e.assertIsolated(t, "ann")
}

// schema returns the schema of tenant slug.
func (e *usersEnv) schema(t *testing.T, slug string) string {
	t.Helper()
	tn, err := e.h.registry.Show(context.Background(), slug)
	if err != nil {
		t.Fatal(err)
	}
	return tn.Schema
}
