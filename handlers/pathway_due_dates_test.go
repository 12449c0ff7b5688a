package handlers

import (
	"net/http"
	"testing"
	"time"
)

// TestPathwayDueDateReachesItsTopics: a due date sent with a pathway code
// is the due date of the topic enrolments the pathway makes; UPDATE of the
// pathway code with a due date changes (or, empty, clears) it on the topic
// enrolments the user holds through the pathway; an UPDATE without one
// leaves them; a topic the user was enrolled in directly keeps its own due
// date; another tenant sees none of it.
func TestPathwayDueDateReachesItsTopics(t *testing.T) {
	t.Parallel()
	e := newEnrolEnv(t)

	// ann is enrolled directly in topic 2 (SQL basics), due 1 October.
	direct := wantTopicEnrolment(1, "ann", 2, map[string]any{"due_date": day("2025-10-01")})
	e.assign(t, `{"user_name":"ann","enrolment_code_1":"SQL-101","enrolment_code_1_due_date":"2025-10-01"}`,
		http.StatusOK, assignments(direct))

	// Enrolling in the pathway due 30 November makes topics 1 and 3 due
	// then; topic 2 keeps its direct enrolment and its date.
	pathway := wantPathwayEnrolment(1, "ann", 1, map[string]any{"due_date": day("2025-11-30")})
	e.assign(t, `{"user_name":"ann","enrolment_code_1":"PATH-BE","enrolment_code_1_due_date":"2025-11-30"}`,
		http.StatusOK, assignments(pathway))
	e.acme.call(t, http.MethodGet, "/papi/topic_assignments/by_user/1", "", http.StatusOK, listBody(3, 1, 25,
		direct,
		wantTopicEnrolment(2, "ann", 1, map[string]any{"relationship": "pathway", "due_date": day("2025-11-30")}),
		wantTopicEnrolment(3, "ann", 3, map[string]any{"relationship": "pathway", "due_date": day("2025-11-30")})))

	// UPDATE with a due date moves it on the pathway and on topics 1 and 3.
	e.clock.advance(time.Hour)
	later := ts(usersStart.Add(time.Hour))
	pathway = wantPathwayEnrolment(1, "ann", 1, map[string]any{"due_date": day("2025-12-31"), "updated_at": later})
	e.assign(t, `{"user_name":"ann","enrolment_code_1":"PATH-BE UPDATE","enrolment_code_1_due_date":"31/12/2025"}`,
		http.StatusOK, assignments(pathway))
	viaPathway := func(topic, id int, fields map[string]any) string {
		fields["relationship"] = "pathway"
		return wantTopicEnrolment(id, "ann", topic, fields)
	}
	e.acme.call(t, http.MethodGet, "/papi/topic_assignments/by_user/1", "", http.StatusOK, listBody(3, 1, 25,
		direct,
		viaPathway(1, 2, map[string]any{"due_date": day("2025-12-31"), "updated_at": later}),
		viaPathway(3, 3, map[string]any{"due_date": day("2025-12-31"), "updated_at": later})))

	// UPDATE without a due date leaves the topics' due dates alone.
	e.clock.advance(time.Hour)
	latest := ts(usersStart.Add(2 * time.Hour))
	e.assign(t, `{"user_name":"ann","enrolment_code_1":"PATH-BE UPDATE","enrolment_code_1_certified_date":"2026-01-31"}`,
		http.StatusOK, assignments(wantPathwayEnrolment(1, "ann", 1, map[string]any{"due_date": day("2025-12-31"),
			"certified_date": day("2026-01-31"), "updated_at": latest})))
	e.acme.call(t, http.MethodGet, "/papi/topic_assignments/by_user/1", "", http.StatusOK, listBody(3, 1, 25,
		direct,
		viaPathway(1, 2, map[string]any{"due_date": day("2025-12-31"), "updated_at": later}),
		viaPathway(3, 3, map[string]any{"due_date": day("2025-12-31"), "updated_at": later})))

	// An empty due date with UPDATE clears it on the pathway and its topics.
	e.assign(t, `{"user_name":"ann","enrolment_code_1":"PATH-BE UPDATE","enrolment_code_1_due_date":""}`,
		http.StatusOK, assignments(wantPathwayEnrolment(1, "ann", 1, map[string]any{
			"certified_date": day("2026-01-31"), "updated_at": latest})))
	e.acme.call(t, http.MethodGet, "/papi/topic_assignments/by_user/1", "", http.StatusOK, listBody(3, 1, 25,
		direct,
		viaPathway(1, 2, map[string]any{"updated_at": latest}),
		viaPathway(3, 3, map[string]any{"updated_at": latest})))

	// bob's enrolments and another tenant's are untouched.
	e.acme.call(t, http.MethodGet, "/papi/topic_assignments/by_user/2", "", http.StatusOK, listBody(0, 1, 25))
	e.other.call(t, http.MethodGet, "/papi/topic_assignments", "", http.StatusOK, listBody(0, 1, 25))
	e.other.call(t, http.MethodPost, "/papi/topic_assignments",
		`{"user_name":"olga","enrolment_code_1":"PATH-BE UPDATE","enrolment_code_1_due_date":"2025-12-31"}`,
		http.StatusBadRequest, enrolErrors("Unknown enrolment code 'PATH-BE' for 'enrolment_code_1'"))
}
