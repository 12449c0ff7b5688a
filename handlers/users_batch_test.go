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

// enrolError is an error_list entry of an enrolment: error_reason only.
func enrolError(reason string) string {
	return kv{{"error_reason", reason}}.String()
}

func TestBatchSaveUsersEnrolments(t *testing.T) {
	t.Parallel()
	e := newEnrolEnv(t)
	e.clock.advance(time.Hour)
	later := ts(usersStart.Add(time.Hour))

	// Each applied code counts in enrolled; each bad one is an error entry
	// with only error_reason, and leaves the user and its other codes saved.
	// A row that fails enrols nobody.
	e.acme.call(t, http.MethodPost, "/papi/users/batch_save", `{"people":[
		{"user_name":"Cy","first_name":"Cy","last_name":"Cole","email":"cy@example.com",
			"enrolment_code_1":"GO-101 COMPLETE","enrolment_code_1_conquered_date":"20/05/2025",
			"enrolment_code_2":"NOPE","enrolment_code_3":"SQL-101","enrolment_code_3_due_date":"bad",
			"enrolment_code_4":"path-empty","enrolment_code_5":"OTHER-1","enrolment_code_6":"SAFE-1"},
		{"user_name":"ann","enrolment_code_1":"SQL-101 UPDATE","enrolment_code_2":"SAFE-1","enrolment_code_3":""},
		{"user_name":"dee","first_name":"Dee","last_name":"Dunn","email":"dee@","enrolment_code_1":"GO-101"},
		{"user_name":"bob","enrolment_code_1":"GO-101","enrolment_code_1_due_date":"2025-12-31"}
	]}`, http.StatusOK, batchResult(2, 0, 2, 4, 0, 0,
		enrolError("Enrolment code 'NOPE' for user 'cy' was not applied: Unknown enrolment code 'NOPE' for 'enrolment_code_2'"),
		enrolError("Enrolment code 'SQL-101' for user 'cy' was not applied: Illegal value 'bad' for 'enrolment_code_3_due_date'"),
		enrolError("Enrolment code 'OTHER-1' for user 'cy' was not applied: Unknown enrolment code 'OTHER-1' for 'enrolment_code_5'"),
		enrolError("Enrolment code 'SAFE-1' for user 'cy' was not applied: 'enrolment_code_6' is not accepted: at most 5 enrolments (enrolment_code_1 to enrolment_code_5)"),
		enrolError("Enrolment code 'SQL-101 UPDATE' for user 'ann' was not applied: Nothing to update for 'enrolment_code_1': user 'ann' has no current enrolment for 'SQL-101'"),
		rowError("dee", "dee@", "Invalid email 'dee@'"),
	))

	cy := raw(`{"id":3,"name":"Cy Cole","user_name":"cy","link":"/users/cy"}`)
	e.acme.call(t, http.MethodGet, "/papi/topic_assignments", "", http.StatusOK, listBody(3, 1, 25,
		wantTopicEnrolment(1, "ann", 1, map[string]any{"user": cy, "created_at": later, "updated_at": later,
			"status": "Conquered", "completed_topic_at": day("2025-05-20"), "certified_date": day("2026-05-20"),
			"conquered_minutes": 30, "conquered_cpd_minutes": 10, "skills_attained": raw(`[{"id":1,"name":"Go"}]`)}),
		wantTopicEnrolment(2, "ann", 4, map[string]any{"created_at": later, "updated_at": later}),
		wantTopicEnrolment(3, "bob", 1, map[string]any{"created_at": later, "updated_at": later, "due_date": day("2025-12-31")}),
	))
	e.acme.call(t, http.MethodGet, "/papi/pathway_assignments", "", http.StatusOK, listBody(1, 1, 25,
		wantPathwayEnrolment(1, "ann", 2, map[string]any{"user": cy, "created_at": later, "updated_at": later})))
	e.acme.call(t, http.MethodGet, "/papi/users/dee", "", http.StatusNotFound, `"not found"`)

	// Codes written as in POST /topic_assignments work the same way: a
	// second batch updates and unenrols.
	e.acme.call(t, http.MethodPost, "/papi/users/batch_save", `{"people":[
		{"user_name":"cy","enrolment_code_1":"go-101 unenrol","enrolment_code_2":"PATH-EMPTY UNENROL"},
		{"user_name":"bob","enrolment_code_1":"GO-101 UPDATE","enrolment_code_1_due_date":""}]}`,
		http.StatusOK, batchResult(0, 0, 2, 3, 0, 0))
	e.acme.call(t, http.MethodGet, "/papi/topic_assignments", "", http.StatusOK, listBody(2, 1, 25,
		wantTopicEnrolment(2, "ann", 4, map[string]any{"created_at": later, "updated_at": later}),
		wantTopicEnrolment(3, "bob", 1, map[string]any{"created_at": later, "updated_at": later}),
	))
	e.acme.call(t, http.MethodGet, "/papi/pathway_assignments", "", http.StatusOK, listBody(0, 1, 25))
	e.other.call(t, http.MethodGet, "/papi/topic_assignments", "", http.StatusOK, catalogEmptyList)
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
