package handlers

import (
	"net/http"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
)

func TestTopicAssignmentsEnrol(t *testing.T) {
	t.Parallel()
	e := newEnrolEnv(t)

	// No codes: nothing to do.
	e.assign(t, `{"user_name":"ann"}`, http.StatusOK, `{"assignments":[]}`)

	// Enrol: user_name in any case, code in any case, a due date in each format.
	ann1 := wantTopicEnrolment(1, "ann", 1, map[string]any{"due_date": day("2025-12-31")})
	e.assign(t, `{"user_name":"ANN","enrolment_code_1":"go-101","enrolment_code_1_due_date":"31/12/2025"}`,
		http.StatusOK, assignments(ann1))
	bob2 := wantTopicEnrolment(2, "bob", 2, map[string]any{"due_date": day("2026-01-02")})
	e.assign(t, `{"user_id":2,"enrolment_code_1":"SQL-101","enrolment_code_1_due_date":"02/01/26"}`,
		http.StatusOK, assignments(bob2))
	bob3 := wantTopicEnrolment(3, "bob", 3, map[string]any{"due_date": day("2026-02-01")})
	e.assign(t, `{"user_id":"2","user_name":"Bob","enrolment_code_3":" DOCKER-1 ","enrolment_code_3_due_date":"2026-02-01"}`,
		http.StatusOK, assignments(bob3))

	// Enrolling again changes nothing (updated_at stays), apart from a given due date.
	e.clock.advance(time.Hour)
	later := ts(usersStart.Add(time.Hour))
	e.assign(t, `{"user_name":"ann","enrolment_code_1":"GO-101","enrolment_code_1_conquered_date":"2025-01-01"}`,
		http.StatusOK, assignments(ann1))
	ann1 = wantTopicEnrolment(1, "ann", 1, map[string]any{"due_date": day("2026-03-01"), "updated_at": later})
	e.assign(t, `{"user_name":"ann","enrolment_code_1":"GO-101","enrolment_code_1_due_date":"2026-03-01"}`,
		http.StatusOK, assignments(ann1))

	// Several codes at once: one entry per code, in field order.
	ann4 := wantTopicEnrolment(4, "ann", 4, map[string]any{"created_at": later, "updated_at": later})
	e.assign(t, `{"user_name":"ann","enrolment_code_2":"SAFE-1","enrolment_code_1":"GO-101"}`,
		http.StatusOK, assignments(ann1, ann4))

	e.acme.call(t, http.MethodGet, "/papi/topic_assignments", "", http.StatusOK, listBody(4, 1, 25, ann1, bob2, bob3, ann4))
	e.other.call(t, http.MethodGet, "/papi/topic_assignments", "", http.StatusOK, catalogEmptyList)
}

func TestTopicAssignmentsCompleteUpdateUnenrol(t *testing.T) {
	t.Parallel()
	e := newEnrolEnv(t)
	now := ts(usersStart)

	// COMPLETE with a conquered date: certified for the topic's 365 days;
	// skills: the topic's (Go) and those given (SQL; unknown ones ignored).
	conquered := wantTopicEnrolment(1, "ann", 1, map[string]any{
		"status": "Conquered", "completed_topic_at": day("2025-05-20"), "certified_date": day("2026-05-20"),
		"conquered_minutes": 30, "conquered_cpd_minutes": 10,
		"skills_attained": raw(`[{"id":1,"name":"Go"},{"id":2,"name":"SQL"}]`),
	})
	e.assign(t, `{"user_name":"ann","enrolment_code_1":"GO-101 complete","enrolment_code_1_conquered_date":"20/05/2025",
		"enrolment_code_1_skill_attained":"sql; Knitting"}`, http.StatusOK, assignments(conquered))

	// COMPLETE without dates on a new enrolment: conquered now, no certification
	// (no certify_days); a certified date given is kept.
	e.assign(t, `{"user_name":"ann","enrolment_code_1":"SQL-101 COMPLETE","enrolment_code_2":"SAFE-1 Complete",
		"enrolment_code_2_certified_date":"2027-01-01","enrolment_code_2_skill_attained":["Docker"]}`, http.StatusOK,
		assignments(
			wantTopicEnrolment(2, "ann", 2, map[string]any{"status": "Conquered", "completed_topic_at": now}),
			wantTopicEnrolment(3, "ann", 4, map[string]any{"status": "Conquered", "completed_topic_at": now,
				"certified_date": day("2027-01-01"), "skills_attained": raw(`[{"id":3,"name":"Docker"}]`)}),
		))

	// UPDATE: a due date, a new certified date, skills replaced; "" clears.
	e.clock.advance(time.Hour)
	later := ts(usersStart.Add(time.Hour))
	updated := wantTopicEnrolment(1, "ann", 1, map[string]any{
		"status": "Conquered", "completed_topic_at": day("2025-05-20"), "certified_date": day("2026-06-30"),
		"conquered_minutes": 30, "conquered_cpd_minutes": 10, "due_date": day("2025-07-01"), "updated_at": later,
		"skills_attained": raw(`[{"id":3,"name":"Docker"},{"id":1,"name":"Go"}]`),
	})
	e.assign(t, `{"user_name":"ann","enrolment_code_1":"GO-101 UPDATE","enrolment_code_1_due_date":"2025-07-01",
		"enrolment_code_1_certified_date":"30/06/2026","enrolment_code_1_skill_attained":"Docker"}`,
		http.StatusOK, assignments(updated))
	cleared := wantTopicEnrolment(1, "ann", 1, map[string]any{
		"status": "Conquered", "completed_topic_at": day("2025-05-20"), "conquered_minutes": 30,
		"conquered_cpd_minutes": 10, "updated_at": later, "skills_attained": raw(`[{"id":1,"name":"Go"}]`),
	})
	e.assign(t, `{"user_name":"ann","enrolment_code_1":"GO-101 update","enrolment_code_1_due_date":"",
		"enrolment_code_1_certified_date":"","enrolment_code_1_skill_attained":""}`, http.StatusOK, assignments(cleared))

	// UPDATE with a conquered date conquers an enrolment and certifies it anew.
	e.assign(t, `{"user_name":"bob","enrolment_code_1":"GO-101"}`, http.StatusOK, "")
	e.assign(t, `{"user_name":"bob","enrolment_code_1":"GO-101 UPDATE","enrolment_code_1_conquered_date":"2025-06-01"}`,
		http.StatusOK, assignments(wantTopicEnrolment(4, "bob", 1, map[string]any{
			"created_at": later, "updated_at": later, "status": "Conquered", "completed_topic_at": day("2025-06-01"),
			"certified_date": day("2026-06-01"), "conquered_minutes": 30, "conquered_cpd_minutes": 10,
			"skills_attained": raw(`[{"id":1,"name":"Go"}]`),
		})))

	// UNENROL answers the enrolment as it was removed; it is no longer listed
	// but kept as history, and enrolling again makes a new one.
	e.clock.advance(time.Hour)
	latest := ts(usersStart.Add(2 * time.Hour))
	removed := wantTopicEnrolment(1, "ann", 1, map[string]any{
		"status": "Conquered", "completed_topic_at": day("2025-05-20"), "conquered_minutes": 30,
		"conquered_cpd_minutes": 10, "updated_at": latest, "skills_attained": raw(`[{"id":1,"name":"Go"}]`),
	})
	e.assign(t, `{"user_name":"ann","enrolment_code_1":"GO-101 UNENROL"}`, http.StatusOK, assignments(removed))
	e.acme.call(t, http.MethodGet, "/papi/topic_assignments?user_name=ann&topic_id=1", "", http.StatusOK, listBody(0, 1, 25))
	var history int
	e.inAcme(t, func(tx *sqlx.Tx) error {
		return tx.Get(&history, `SELECT count(*) FROM topic_enrolments WHERE user_id = 1 AND topic_id = 1 AND removed_at IS NOT NULL`)
	})
	if history != 1 {
		t.Fatalf("%d removed enrolments kept, want 1", history)
	}
	e.assign(t, `{"user_name":"ann","enrolment_code_1":"GO-101"}`, http.StatusOK,
		assignments(wantTopicEnrolment(5, "ann", 1, map[string]any{"created_at": latest, "updated_at": latest})))
}

func TestTopicAssignmentsRefusals(t *testing.T) {
	t.Parallel()
	e := newEnrolEnv(t)
	// ann is enrolled in GO-101; every refused request below leaves that as it is.
	e.assign(t, `{"user_name":"ann","enrolment_code_1":"GO-101"}`, http.StatusOK, "")
	before := e.enrolmentSnapshot(t)

	tests := []struct {
		name, body string
		status     int
		want       string
	}{
		{"unknown code", `{"user_name":"ann","enrolment_code_1":"NOPE-1"}`, http.StatusBadRequest,
			enrolErrors("Unknown enrolment code 'NOPE-1' for 'enrolment_code_1'")},
		{"another tenant's code", `{"user_name":"ann","enrolment_code_1":"OTHER-1"}`, http.StatusBadRequest,
			enrolErrors("Unknown enrolment code 'OTHER-1' for 'enrolment_code_1'")},
		{"unknown action word", `{"user_name":"ann","enrolment_code_1":"SQL-101 FINISH"}`, http.StatusBadRequest,
			enrolErrors("Unknown action 'FINISH' in 'SQL-101 FINISH' for 'enrolment_code_1': the action after the code must be COMPLETE, UPDATE or UNENROL")},
		{"two action words", `{"user_name":"ann","enrolment_code_1":"SQL-101 UPDATE NOW"}`, http.StatusBadRequest,
			enrolErrors("Unknown action 'UPDATE NOW' in 'SQL-101 UPDATE NOW' for 'enrolment_code_1': the action after the code must be COMPLETE, UPDATE or UNENROL")},
		{"code not a string", `{"user_name":"ann","enrolment_code_1":101}`, http.StatusBadRequest,
			enrolErrors("Illegal value '101' for 'enrolment_code_1'")},
		{"bad due date", `{"user_name":"ann","enrolment_code_1":"SQL-101","enrolment_code_1_due_date":"2025-13-01"}`,
			http.StatusBadRequest, enrolErrors("Illegal value '2025-13-01' for 'enrolment_code_1_due_date'")},
		{"due date in another format", `{"user_name":"ann","enrolment_code_1":"SQL-101","enrolment_code_1_due_date":"12-31-2025"}`,
			http.StatusBadRequest, enrolErrors("Illegal value '12-31-2025' for 'enrolment_code_1_due_date'")},
		{"no such day", `{"user_name":"ann","enrolment_code_1":"SQL-101 COMPLETE","enrolment_code_1_conquered_date":"31/02/2025"}`,
			http.StatusBadRequest, enrolErrors("Illegal value '31/02/2025' for 'enrolment_code_1_conquered_date'")},
		{"certified date not a string", `{"user_name":"ann","enrolment_code_1":"SQL-101 COMPLETE","enrolment_code_1_certified_date":20250101}`,
			http.StatusBadRequest, enrolErrors("Illegal value '20250101' for 'enrolment_code_1_certified_date'")},
		{"conquered date in the future", `{"user_name":"ann","enrolment_code_1":"SQL-101 COMPLETE","enrolment_code_1_conquered_date":"2025-06-02"}`,
			http.StatusBadRequest, enrolErrors("Illegal value '2025-06-02' for 'enrolment_code_1_conquered_date': a conquered date cannot be in the future")},
		{"skills not names", `{"user_name":"ann","enrolment_code_1":"SQL-101 COMPLETE","enrolment_code_1_skill_attained":[1]}`,
			http.StatusBadRequest, enrolErrors("Illegal value '[1]' for 'enrolment_code_1_skill_attained'")},
		{"UPDATE without an enrolment", `{"user_name":"ann","enrolment_code_1":"SQL-101 UPDATE","enrolment_code_1_due_date":"2025-07-01"}`,
			http.StatusBadRequest, enrolErrors("Nothing to update for 'enrolment_code_1': user 'ann' has no current enrolment for 'SQL-101'")},
		{"UNENROL without an enrolment", `{"user_name":"ann","enrolment_code_1":"PATH-BE UNENROL"}`,
			http.StatusBadRequest, enrolErrors("Nothing to unenrol for 'enrolment_code_1': user 'ann' has no current enrolment for 'PATH-BE'")},
		{"a sixth code", `{"user_name":"ann","enrolment_code_1":"SQL-101","enrolment_code_6":"SAFE-1","enrolment_code_6_due_date":"2025-07-01"}`,
			http.StatusBadRequest, enrolErrors(
				"'enrolment_code_6' is not accepted: at most 5 enrolments (enrolment_code_1 to enrolment_code_5)",
				"'enrolment_code_6_due_date' is not accepted: at most 5 enrolments (enrolment_code_1 to enrolment_code_5)")},
		{"a date without its code", `{"user_name":"ann","enrolment_code_2_due_date":"2025-07-01","enrolment_code_2":""}`,
			http.StatusBadRequest, enrolErrors("'enrolment_code_2_due_date' was given without 'enrolment_code_2'")},
		// All or nothing: the good codes are not applied either, and every bad one is named.
		{"every problem named", `{"user_name":"ann","enrolment_code_1":"SQL-101 COMPLETE","enrolment_code_2":"NOPE-2",
			"enrolment_code_2_due_date":"tomorrow","enrolment_code_3":"GO-101 UNENROL","enrolment_code_4":"SAFE-1 UPDATE",
			"enrolment_code_5":"DOCKER-1 COMPLETE","enrolment_code_5_conquered_date":"01/01/2030"}`, http.StatusBadRequest,
			enrolErrors("Illegal value 'tomorrow' for 'enrolment_code_2_due_date'",
				"Unknown enrolment code 'NOPE-2' for 'enrolment_code_2'",
				"Nothing to update for 'enrolment_code_4': user 'ann' has no current enrolment for 'SAFE-1'",
				"Illegal value '01/01/2030' for 'enrolment_code_5_conquered_date': a conquered date cannot be in the future")},
		{"no user", `{"enrolment_code_1":"SQL-101"}`, http.StatusBadRequest,
			enrolErrors("Missing parameter 'user_name' (or 'user_id')")},
		{"user_id not a number", `{"user_id":"two","enrolment_code_1":"SQL-101"}`, http.StatusBadRequest,
			enrolErrors("Illegal value 'two' for 'user_id'")},
		{"body not JSON", `{"user_name":`, http.StatusBadRequest, enrolErrors("malformed JSON")},
		{"unknown user", `{"user_name":"zed","enrolment_code_1":"SQL-101"}`, http.StatusNotFound,
			enrolErrors("Cannot find user 'zed'")},
		{"unknown user id", `{"user_id":99,"enrolment_code_1":"SQL-101"}`, http.StatusNotFound,
			enrolErrors("Cannot find user with user_id 99")},
		{"user_name and user_id of two users", `{"user_name":"ann","user_id":2,"enrolment_code_1":"SQL-101"}`,
			http.StatusNotFound, enrolErrors("Cannot find user 'ann' with user_id 2")},
		{"a code that cannot be stored", `{"user_name":"ann","enrolment_code_1":"GO-101\u0000","enrolment_code_1_skill_attained":"Go\u0000"}`,
			http.StatusBadRequest, enrolErrors("Illegal value 'GO-101\x00' for 'enrolment_code_1'",
				"Illegal value 'Go\x00' for 'enrolment_code_1_skill_attained'")},
		{"a user name that cannot be stored", `{"user_name":"ann\u0000","enrolment_code_1":"GO-101"}`, http.StatusBadRequest,
			enrolErrors("Illegal value 'ann\x00' for 'user_name'")},
		{"another tenant's user", `{"user_name":"olga","enrolment_code_1":"SQL-101"}`, http.StatusNotFound,
			enrolErrors("Cannot find user 'olga'")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.assign(t, tt.body, tt.status, tt.want)
			if after := e.enrolmentSnapshot(t); after != before {
				t.Fatalf("enrolments changed:\n%s\nwant\n%s", after, before)
			}
		})
	}
	// Tenant other cannot use acme's codes or users.
	e.other.call(t, http.MethodPost, "/papi/topic_assignments", `{"user_name":"olga","enrolment_code_1":"GO-101"}`,
		http.StatusBadRequest, enrolErrors("Unknown enrolment code 'GO-101' for 'enrolment_code_1'"))
	e.other.call(t, http.MethodPost, "/papi/topic_assignments", `{"user_id":1,"enrolment_code_1":"OTHER-1"}`,
		http.StatusOK, `{"assignments":[{"id":1,"created_at":"`+ts(usersStart)+`","updated_at":"`+ts(usersStart)+
			`","completed_topic_at":null,"status":"Unexplored","due_date":null,"relationship":"direct","conquered_minutes":0,`+
			`"conquered_cpd_minutes":0,"enrolled_by":"api","certified_date":null,"recertification_allowed":false,"version":null,`+
			`"skills_attained":[],"categories":[],"user":{"id":1,"name":"Olga Olsen","user_name":"olga","link":"/users/olga"},`+
			`"topic":{"id":1,"title":"Other topic","link":"/topics/1","knowledge_type":1,"show_certificate":false,"external_id":""}}]}`)
	if after := e.enrolmentSnapshot(t); after != before {
		t.Fatalf("acme's enrolments changed by tenant other:\n%s", after)
	}
}

func TestTopicAssignmentsNeedJSON(t *testing.T) {
	t.Parallel()
	e := newEnrolEnv(t)
	w := do(e.h.public, request{method: http.MethodPost, host: e.acme.host, path: "/papi/topic_assignments",
		body: `{"user_name":"ann"}`, headers: map[string]string{"Authorization": e.acme.key, "Content-Type": "text/plain"}})
	assertResponse(t, w, http.StatusNotAcceptable, `{"error":"Content-Type must be application/json"}`)
}
