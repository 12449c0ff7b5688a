package handlers

import (
	"net/http"
	"testing"
	"time"
)

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
	e.acme.call(t, http.MethodGet, "/papi/topic_assignments", "", http.StatusOK, list(3, 1, 25,
		wantTopicEnrolment(1, "ann", 1, map[string]any{"user": cy, "created_at": later, "updated_at": later,
			"status": "Conquered", "completed_topic_at": day("2025-05-20"), "certified_date": day("2026-05-20"),
			"conquered_minutes": 30, "conquered_cpd_minutes": 10, "skills_attained": raw(`[{"id":1,"name":"Go"}]`)}),
		wantTopicEnrolment(2, "ann", 4, map[string]any{"created_at": later, "updated_at": later}),
		wantTopicEnrolment(3, "bob", 1, map[string]any{"created_at": later, "updated_at": later, "due_date": day("2025-12-31")}),
	))
	e.acme.call(t, http.MethodGet, "/papi/pathway_assignments", "", http.StatusOK, list(1, 1, 25,
		wantPathwayEnrolment(1, "ann", 2, map[string]any{"user": cy, "created_at": later, "updated_at": later})))
	e.acme.call(t, http.MethodGet, "/papi/users/dee", "", http.StatusNotFound, `"not found"`)

	// Codes written as in POST /topic_assignments work the same way: a
	// second batch updates and unenrols.
	e.acme.call(t, http.MethodPost, "/papi/users/batch_save", `{"people":[
		{"user_name":"cy","enrolment_code_1":"go-101 unenrol","enrolment_code_2":"PATH-EMPTY UNENROL"},
		{"user_name":"bob","enrolment_code_1":"GO-101 UPDATE","enrolment_code_1_due_date":""}]}`,
		http.StatusOK, batchResult(0, 0, 2, 3, 0, 0))
	e.acme.call(t, http.MethodGet, "/papi/topic_assignments", "", http.StatusOK, list(2, 1, 25,
		wantTopicEnrolment(2, "ann", 4, map[string]any{"created_at": later, "updated_at": later}),
		wantTopicEnrolment(3, "bob", 1, map[string]any{"created_at": later, "updated_at": later}),
	))
	e.acme.call(t, http.MethodGet, "/papi/pathway_assignments", "", http.StatusOK, list(0, 1, 25))
	e.other.call(t, http.MethodGet, "/papi/topic_assignments", "", http.StatusOK, catalogEmptyList)
}
