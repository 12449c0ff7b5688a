package handlers

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

func TestTopicAssignmentLists(t *testing.T) {
	t.Parallel()
	e := newEnrolEnv(t)
	// ann: topics 1, 2 at usersStart; bob: topics 1, 3 an hour later; ann: topic 4 two hours later.
	e.assign(t, `{"user_name":"ann","enrolment_code_1":"GO-101","enrolment_code_2":"SQL-101"}`, http.StatusOK, "")
	e.clock.at(time.Hour)
	e.assign(t, `{"user_name":"bob","enrolment_code_1":"GO-101","enrolment_code_2":"DOCKER-1"}`, http.StatusOK, "")
	e.clock.at(2 * time.Hour)
	e.assign(t, `{"user_name":"ann","enrolment_code_1":"SAFE-1"}`, http.StatusOK, "")
	at := func(h int) map[string]any {
		s := ts(usersStart.Add(time.Duration(h) * time.Hour))
		return map[string]any{"created_at": s, "updated_at": s}
	}
	ann1, ann2 := wantTopicEnrolment(1, "ann", 1, nil), wantTopicEnrolment(2, "ann", 2, nil)
	bob1, bob3 := wantTopicEnrolment(3, "bob", 1, at(1)), wantTopicEnrolment(4, "bob", 3, at(1))
	ann4 := wantTopicEnrolment(5, "ann", 4, at(2))

	for _, tt := range []struct {
		query string
		want  string
	}{
		{"", listBody(5, 1, 25, ann1, ann2, bob1, bob3, ann4)},
		{"?per_page=2&page=2", listBody(5, 2, 2, bob1, bob3)},
		{"?per_page=2&page=4", listBody(5, 4, 2)},
		{"?per_page=500", listBody(5, 1, 100, ann1, ann2, bob1, bob3, ann4)},
		{"?topic_ids=1,%203,,", listBody(3, 1, 25, ann1, bob1, bob3)},
		{"?topic_id=1", listBody(2, 1, 25, ann1, bob1)},
		{"?topic_ids=1,2&topic_id=2", listBody(1, 1, 25, ann2)},
		{"?user_name=ANN", listBody(3, 1, 25, ann1, ann2, ann4)},
		{"?user_id=2&topic_id=3", listBody(1, 1, 25, bob3)},
		{"?user_name=zed", listBody(0, 1, 25)},
		{"?topic_id=99", listBody(0, 1, 25)},
		{"?user_id=1&user_name=bob", listBody(0, 1, 25)},
		{"?topic_ids=&user_name=&topic_id=", listBody(5, 1, 25, ann1, ann2, bob1, bob3, ann4)},
		{"?updated_after=2025-06-01T10:30:00", listBody(1, 1, 25, ann4)},
		{"?updated_after=2025-06-01T09:30:00&updated_before=2025-06-01T11:30:00", listBody(2, 1, 25, bob1, bob3)},
	} {
		t.Run("list"+tt.query, func(t *testing.T) {
			e.acme.call(t, http.MethodGet, "/papi/topic_assignments"+tt.query, "", http.StatusOK, tt.want)
		})
	}
	// The same list by topic, by user id and by user name.
	e.acme.call(t, http.MethodGet, "/papi/topic_assignments/by_topic/1", "", http.StatusOK, listBody(2, 1, 25, ann1, bob1))
	e.acme.call(t, http.MethodGet, "/papi/topic_assignments/by_topic/1?user_name=bob", "", http.StatusOK, listBody(1, 1, 25, bob1))
	e.acme.call(t, http.MethodGet, "/papi/topic_assignments/by_topic/42", "", http.StatusOK, listBody(0, 1, 25))
	e.acme.call(t, http.MethodGet, "/papi/topic_assignments/by_user/2", "", http.StatusOK, listBody(2, 1, 25, bob1, bob3))
	e.acme.call(t, http.MethodGet, "/papi/topic_assignments/by_user/42", "", http.StatusOK, listBody(0, 1, 25))
	e.acme.call(t, http.MethodGet, "/papi/topic_assignments/user/Ann?per_page=2", "", http.StatusOK, listBody(3, 1, 2, ann1, ann2))
	e.acme.call(t, http.MethodGet, "/papi/topic_assignments/user/ann?updated_after=2025-06-01T10:30:00", "", http.StatusOK,
		listBody(1, 1, 25, ann4))
	e.acme.call(t, http.MethodGet, "/papi/topic_assignments/user/zed", "", http.StatusNotFound, `"not found"`)
	// A name PostgreSQL cannot hold is bad input (docs/decisions.md, "Bodies and hostile input").
	for _, tt := range []struct{ path, want string }{
		{"/papi/topic_assignments/user/a%00", `"Bad request: Illegal value 'a\u0000' for 'user_name'"`},
		{"/papi/topic_assignments/user/%FF", `"Bad request: Illegal value '\ufffd' for 'user_name'"`},
		{"/papi/topic_assignments?user_name=a%00b", `"Bad request: Illegal value 'a\u0000b' for 'user_name'"`},
		{"/papi/topic_assignments?user_name=%FF", `"Bad request: Illegal value '\ufffd' for 'user_name'"`},
	} {
		e.acme.call(t, http.MethodGet, tt.path, "", http.StatusBadRequest, tt.want)
	}

	for _, tt := range []struct{ path, want string }{
		{"/papi/topic_assignments?page=x", `"Bad request: Illegal value 'x' for 'page'"`},
		{"/papi/topic_assignments?per_page=1.5", `"Bad request: Illegal value '1.5' for 'per_page'"`},
		{"/papi/topic_assignments?topic_ids=1,a", `"Bad request: Illegal value '1,a' for 'topic_ids'"`},
		{"/papi/topic_assignments?topic_id=one", `"Bad request: Illegal value 'one' for 'topic_id'"`},
		{"/papi/topic_assignments?user_id=1.5", `"Bad request: Illegal value '1.5' for 'user_id'"`},
		{"/papi/topic_assignments?updated_after=2025-06-01", `"Bad request: Illegal value '2025-06-01' for 'updated_after'"`},
		{"/papi/topic_assignments?updated_before=2025-06-01T10:30:00Z", `"Bad request: Illegal value '2025-06-01T10:30:00Z' for 'updated_before'"`},
		{"/papi/topic_assignments/by_topic/abc", `"Bad request: Illegal value 'abc' for 'topic_id'"`},
		{"/papi/topic_assignments/by_user/abc", `"Bad request: Illegal value 'abc' for 'user_id'"`},
		{"/papi/topic_assignments/user/ann?page=-", `"Bad request: Illegal value '-' for 'page'"`},
	} {
		t.Run("refused "+tt.path, func(t *testing.T) {
			e.acme.call(t, http.MethodGet, tt.path, "", http.StatusBadRequest, tt.want)
		})
	}

	// Tenant other sees none of acme's enrolments, topics or users.
	for _, path := range []string{"/papi/topic_assignments", "/papi/topic_assignments/by_topic/1", "/papi/topic_assignments/by_user/1",
		"/papi/topic_assignments?user_id=1", "/papi/topic_assignments/user/olga"} {
		e.other.call(t, http.MethodGet, path, "", http.StatusOK, catalogEmptyList)
	}
	e.other.call(t, http.MethodGet, "/papi/topic_assignments/user/ann", "", http.StatusNotFound, `"not found"`)
}

func TestPathwayAssignmentLists(t *testing.T) {
	t.Parallel()
	e := newEnrolEnv(t)
	e.assign(t, `{"user_name":"ann","enrolment_code_1":"PATH-BE","enrolment_code_2":"PATH-EMPTY"}`, http.StatusOK, "")
	e.clock.at(time.Hour)
	e.assign(t, `{"user_name":"bob","enrolment_code_1":"PATH-EMPTY"}`, http.StatusOK, "")
	later := ts(usersStart.Add(time.Hour))
	annBE, annEmpty := wantPathwayEnrolment(1, "ann", 1, nil), wantPathwayEnrolment(2, "ann", 2, nil)
	bobEmpty := wantPathwayEnrolment(3, "bob", 2, map[string]any{"created_at": later, "updated_at": later})

	for _, tt := range []struct{ path, want string }{
		{"/papi/pathway_assignments", listBody(3, 1, 25, annBE, annEmpty, bobEmpty)},
		{"/papi/pathway_assignments?per_page=1&page=3", listBody(3, 3, 1, bobEmpty)},
		{"/papi/pathway_assignments?pathway_ids=2,9", listBody(2, 1, 25, annEmpty, bobEmpty)},
		{"/papi/pathway_assignments?pathway_id=1", listBody(1, 1, 25, annBE)},
		{"/papi/pathway_assignments?user_name=Bob", listBody(1, 1, 25, bobEmpty)},
		{"/papi/pathway_assignments?user_id=1&pathway_id=2", listBody(1, 1, 25, annEmpty)},
		{"/papi/pathway_assignments?user_id=3", listBody(0, 1, 25)},
		{"/papi/pathway_assignments?updated_after=2025-06-01T09:30:00", listBody(1, 1, 25, bobEmpty)},
		{"/papi/pathway_assignments/by_pathway/2", listBody(2, 1, 25, annEmpty, bobEmpty)},
		{"/papi/pathway_assignments/by_user/1", listBody(2, 1, 25, annBE, annEmpty)},
		{"/papi/pathway_assignments/3", bobEmpty},
	} {
		t.Run(tt.path, func(t *testing.T) {
			e.acme.call(t, http.MethodGet, tt.path, "", http.StatusOK, tt.want)
		})
	}
	for _, tt := range []struct {
		path   string
		status int
		want   string
	}{
		{"/papi/pathway_assignments?pathway_ids=x", http.StatusBadRequest, `"Bad request: Illegal value 'x' for 'pathway_ids'"`},
		{"/papi/pathway_assignments?pathway_id=1e", http.StatusBadRequest, `"Bad request: Illegal value '1e' for 'pathway_id'"`},
		{"/papi/pathway_assignments/by_pathway/x", http.StatusBadRequest, `"Bad request: Illegal value 'x' for 'pathway_id'"`},
		{"/papi/pathway_assignments/by_user/x", http.StatusBadRequest, `"Bad request: Illegal value 'x' for 'user_id'"`},
		{"/papi/pathway_assignments/4", http.StatusNotFound, `{"error":"cannot find pathway assignment"}`},
		{"/papi/pathway_assignments/0", http.StatusNotFound, `{"error":"cannot find pathway assignment"}`},
		{"/papi/pathway_assignments/abc", http.StatusNotFound, `{"error":"cannot find pathway assignment"}`},
	} {
		t.Run("refused "+tt.path, func(t *testing.T) {
			e.acme.call(t, http.MethodGet, tt.path, "", tt.status, tt.want)
		})
	}
	// An unenrolled pathway enrolment is no longer found.
	e.assign(t, `{"user_name":"bob","enrolment_code_1":"PATH-EMPTY UNENROL"}`, http.StatusOK, "")
	e.acme.call(t, http.MethodGet, "/papi/pathway_assignments/3", "", http.StatusNotFound, `{"error":"cannot find pathway assignment"}`)

	for id := 1; id <= 3; id++ {
		e.other.call(t, http.MethodGet, fmt.Sprintf("/papi/pathway_assignments/%d", id), "", http.StatusNotFound,
			`{"error":"cannot find pathway assignment"}`)
	}
	for _, path := range []string{"/papi/pathway_assignments", "/papi/pathway_assignments/by_pathway/1", "/papi/pathway_assignments/by_user/1"} {
		e.other.call(t, http.MethodGet, path, "", http.StatusOK, catalogEmptyList)
	}
}

func TestDeletingSkillsAndCategoriesLeavesEnrolments(t *testing.T) {
	t.Parallel()
	e := newEnrolEnv(t)
	e.assign(t, `{"user_name":"ann","enrolment_code_1":"GO-101 COMPLETE","enrolment_code_1_skill_attained":"SQL;Docker",
		"enrolment_code_2":"PATH-BE COMPLETE","enrolment_code_2_skill_attained":"Docker"}`, http.StatusOK, "")
	conquered := map[string]any{"status": "Conquered", "completed_topic_at": ts(usersStart),
		"certified_date": ts(usersStart.AddDate(1, 0, 0)), "conquered_minutes": 30, "conquered_cpd_minutes": 10,
		"skills_attained": raw(`[{"id":3,"name":"Docker"},{"id":1,"name":"Go"},{"id":2,"name":"SQL"}]`)}
	e.acme.call(t, http.MethodGet, "/papi/topic_assignments?topic_id=1", "", http.StatusOK,
		listBody(1, 1, 25, wantTopicEnrolment(1, "ann", 1, conquered)))

	// Deleting skills Docker (given) and Go (the topic's) and category CPD
	// removes them from the enrolments; updated_at does not move.
	e.clock.advance(time.Hour)
	e.acme.call(t, http.MethodDelete, "/papi/skills/3", "", http.StatusNoContent, "")
	e.acme.call(t, http.MethodDelete, "/papi/skills/1", "", http.StatusNoContent, "")
	e.acme.call(t, http.MethodDelete, "/papi/categories/1", "", http.StatusNoContent, "")
	conquered["skills_attained"] = raw(`[{"id":2,"name":"SQL"}]`)
	conquered["categories"] = raw(`[]`)
	e.acme.call(t, http.MethodGet, "/papi/topic_assignments?topic_id=1", "", http.StatusOK,
		listBody(1, 1, 25, wantTopicEnrolment(1, "ann", 1, conquered)))
	e.acme.call(t, http.MethodGet, "/papi/pathway_assignments/1", "", http.StatusOK,
		wantPathwayEnrolment(1, "ann", 1, map[string]any{"status": "Conquered", "conquered_at": ts(usersStart),
			"certified_date": ts(usersStart.AddDate(0, 0, 30)), "skills_attained": raw(`[{"id":2,"name":"SQL"}]`)}))
	// Deleting the pathway's own skill SQL leaves none.
	e.acme.call(t, http.MethodDelete, "/papi/skills/2", "", http.StatusNoContent, "")
	e.acme.call(t, http.MethodGet, "/papi/pathway_assignments/1", "", http.StatusOK,
		wantPathwayEnrolment(1, "ann", 1, map[string]any{"status": "Conquered", "conquered_at": ts(usersStart),
			"certified_date": ts(usersStart.AddDate(0, 0, 30))}))
}
