package handlers

import (
	"context"
	"net/http"
	"testing"
	"time"

	"learngate/store"
)

func TestPathwayEnrolmentFollowsItsTopics(t *testing.T) {
	t.Parallel()
	e := newEnrolEnv(t)
	start := ts(usersStart)
	hour := func(n int) string { return ts(usersStart.Add(time.Duration(n) * time.Hour)) }

	// ann is already enrolled in topic 1; enrolling in the pathway enrols her
	// in its other topics (relationship pathway, due when the pathway is) and
	// leaves topic 1 as it is.
	e.assign(t, `{"user_name":"ann","enrolment_code_1":"GO-101"}`, http.StatusOK, "")
	pathway := wantPathwayEnrolment(1, "ann", 1, map[string]any{"due_date": day("2025-09-30")})
	e.assign(t, `{"user_name":"ann","enrolment_code_1":"path-be","enrolment_code_1_due_date":"30/09/2025"}`,
		http.StatusOK, assignments(pathway))
	topic1 := wantTopicEnrolment(1, "ann", 1, nil)
	topic2 := wantTopicEnrolment(2, "ann", 2, map[string]any{"relationship": "pathway", "due_date": day("2025-09-30")})
	topic3 := wantTopicEnrolment(3, "ann", 3, map[string]any{"relationship": "pathway", "due_date": day("2025-09-30")})
	e.acme.call(t, http.MethodGet, "/papi/topic_assignments/user/ann", "", http.StatusOK, listBody(3, 1, 25, topic1, topic2, topic3))
	e.acme.call(t, http.MethodGet, "/papi/pathway_assignments/1", "", http.StatusOK, pathway)

	// Any topic past Unexplored: the pathway is Exploring.
	e.clock.at(time.Hour)
	topic2 = wantTopicEnrolment(2, "ann", 2, map[string]any{"relationship": "pathway", "status": "Exploring", "updated_at": hour(1),
		"due_date": day("2025-09-30")})
	e.acme.call(t, http.MethodPost, "/papi/topic_assignments/2/progress", `{"status":"exploring","minutes":5}`,
		http.StatusOK, topic2)
	pathway = wantPathwayEnrolment(1, "ann", 1, map[string]any{"due_date": day("2025-09-30"), "status": "Exploring",
		"updated_at": hour(1)})
	e.acme.call(t, http.MethodGet, "/papi/pathway_assignments/1", "", http.StatusOK, pathway)

	// One mandatory topic conquered: still Exploring (the pathway does not move).
	e.clock.at(2 * time.Hour)
	e.assign(t, `{"user_name":"ann","enrolment_code_1":"GO-101 COMPLETE","enrolment_code_1_conquered_date":"2025-05-01"}`,
		http.StatusOK, "")
	e.acme.call(t, http.MethodGet, "/papi/pathway_assignments/1", "", http.StatusOK, pathway)

	// Both mandatory topics conquered (the optional one is not needed):
	// Conquered at the later date, certified for the pathway's 30 days, with
	// the pathway's skill.
	e.clock.at(3 * time.Hour)
	topic2 = wantTopicEnrolment(2, "ann", 2, map[string]any{"relationship": "pathway", "status": "Conquered",
		"completed_topic_at": hour(3), "updated_at": hour(3), "conquered_minutes": 15, "conquered_cpd_minutes": 15,
		"due_date": day("2025-09-30")})
	e.acme.call(t, http.MethodPost, "/papi/topic_assignments/2/progress", `{"status":"Conquered","minutes":10}`,
		http.StatusOK, topic2)
	conquered := wantPathwayEnrolment(1, "ann", 1, map[string]any{"due_date": day("2025-09-30"), "status": "Conquered",
		"updated_at": hour(3), "conquered_at": hour(3), "certified_date": ts(usersStart.Add(3*time.Hour).AddDate(0, 0, 30)),
		"skills_attained": raw(`[{"id":2,"name":"SQL"}]`)})
	e.acme.call(t, http.MethodGet, "/papi/pathway_assignments/1", "", http.StatusOK, conquered)

	// The periodic sweep: nothing before the certified date; recertify after it.
	tdb := e.acmeDB(t)
	ctx := context.Background()
	expiry := usersStart.Add(3*time.Hour).AddDate(0, 0, 30)
	if n, err := store.ApplyRecertification(ctx, tdb, expiry.Add(-time.Second)); err != nil || n != 0 {
		t.Fatalf("recertification before the certified date: %d, %v", n, err)
	}
	e.acme.call(t, http.MethodGet, "/papi/pathway_assignments/1", "", http.StatusOK, conquered)
	if n, err := store.ApplyRecertification(ctx, tdb, expiry); err != nil || n != 1 {
		t.Fatalf("recertification at the certified date: %d, %v", n, err)
	}
	e.acme.call(t, http.MethodGet, "/papi/pathway_assignments/1", "", http.StatusOK,
		wantPathwayEnrolment(1, "ann", 1, map[string]any{"due_date": day("2025-09-30"), "status": "recertify",
			"updated_at": ts(expiry), "conquered_at": hour(3), "certified_date": ts(expiry),
			"skills_attained": raw(`[{"id":2,"name":"SQL"}]`)}))

	// Another tenant sees none of it.
	e.other.call(t, http.MethodGet, "/papi/pathway_assignments/1", "", http.StatusNotFound, `{"error":"cannot find pathway assignment"}`)
	e.other.call(t, http.MethodGet, "/papi/pathway_assignments", "", http.StatusOK, catalogEmptyList)
	e.other.call(t, http.MethodPost, "/papi/topic_assignments/2/progress", `{"status":"Conquered"}`, http.StatusNotFound,
		`{"error":"not found"}`)
	_ = start
}

func TestPathwayCodes(t *testing.T) {
	t.Parallel()
	e := newEnrolEnv(t)
	now := ts(usersStart)

	// COMPLETE: the pathway is Conquered now, certified for 30 days; its
	// topics are enrolled and untouched.
	bobPathway := wantPathwayEnrolment(1, "bob", 1, map[string]any{"status": "Conquered", "conquered_at": now,
		"certified_date": ts(usersStart.AddDate(0, 0, 30)), "skills_attained": raw(`[{"id":2,"name":"SQL"}]`)})
	e.assign(t, `{"user_name":"bob","enrolment_code_1":"PATH-BE COMPLETE"}`, http.StatusOK, assignments(bobPathway))
	e.acme.call(t, http.MethodGet, "/papi/topic_assignments/by_user/2", "", http.StatusOK, listBody(3, 1, 25,
		wantTopicEnrolment(1, "bob", 1, map[string]any{"relationship": "pathway"}),
		wantTopicEnrolment(2, "bob", 2, map[string]any{"relationship": "pathway"}),
		wantTopicEnrolment(3, "bob", 3, map[string]any{"relationship": "pathway"})))

	// UPDATE: due and certified dates, skills given with the code.
	e.clock.advance(time.Hour)
	later := ts(usersStart.Add(time.Hour))
	bobPathway = wantPathwayEnrolment(1, "bob", 1, map[string]any{"status": "Conquered", "conquered_at": now,
		"certified_date": day("2026-01-31"), "due_date": day("2025-12-31"), "updated_at": later,
		"skills_attained": raw(`[{"id":1,"name":"Go"},{"id":2,"name":"SQL"}]`)})
	e.assign(t, `{"user_name":"bob","enrolment_code_1":"PATH-BE UPDATE","enrolment_code_1_due_date":"2025-12-31",
		"enrolment_code_1_certified_date":"31/01/2026","enrolment_code_1_skill_attained":"Go"}`,
		http.StatusOK, assignments(bobPathway))

	// bob starts topic 1; then UNENROL removes the pathway and the topic
	// enrolments it brought that were never started (2 and 3), not topic 1,
	// which holds the due date the pathway's UPDATE gave it.
	e.acme.call(t, http.MethodPost, "/papi/topic_assignments/1/progress", `{"status":"Applying"}`, http.StatusOK, "")
	e.assign(t, `{"user_name":"bob","enrolment_code_1":"PATH-BE UNENROL"}`, http.StatusOK, assignments(bobPathway))
	e.acme.call(t, http.MethodGet, "/papi/pathway_assignments/1", "", http.StatusNotFound, `{"error":"cannot find pathway assignment"}`)
	e.acme.call(t, http.MethodGet, "/papi/topic_assignments/by_user/2", "", http.StatusOK, listBody(1, 1, 25,
		wantTopicEnrolment(1, "bob", 1, map[string]any{"relationship": "pathway", "status": "Applying", "updated_at": later,
			"due_date": day("2025-12-31")})))

	// A pathway without topics is enrolled and stays Unexplored; a topic in
	// two pathways is kept while either holds it.
	e.assign(t, `{"user_name":"ann","enrolment_code_1":"PATH-EMPTY","enrolment_code_2":"PATH-BE"}`, http.StatusOK,
		assignments(wantPathwayEnrolment(2, "ann", 2, map[string]any{"created_at": later, "updated_at": later}),
			wantPathwayEnrolment(3, "ann", 1, map[string]any{"created_at": later, "updated_at": later})))
	e.acme.call(t, http.MethodGet, "/papi/pathway_assignments?user_name=ANN", "", http.StatusOK, listBody(2, 1, 25,
		wantPathwayEnrolment(2, "ann", 2, map[string]any{"created_at": later, "updated_at": later}),
		wantPathwayEnrolment(3, "ann", 1, map[string]any{"created_at": later, "updated_at": later})))
}

func TestProgress(t *testing.T) {
	t.Parallel()
	e := newEnrolEnv(t)
	e.assign(t, `{"user_name":"ann","enrolment_code_1":"GO-101"}`, http.StatusOK, "")
	progress := func(t *testing.T, id, body string, status int, want string) {
		t.Helper()
		e.acme.call(t, http.MethodPost, "/papi/topic_assignments/"+id+"/progress", body, status, want)
	}

	progress(t, "1", `{"status":"Applying","minutes":"20"}`, http.StatusOK,
		wantTopicEnrolment(1, "ann", 1, map[string]any{"status": "Applying"}))
	// The same status only adds minutes; a status behind the current one is refused.
	progress(t, "1", `{"status":"applying","minutes":5}`, http.StatusOK,
		wantTopicEnrolment(1, "ann", 1, map[string]any{"status": "Applying"}))
	before := e.enrolmentSnapshot(t)
	for _, tt := range []struct{ name, id, body, want string }{
		{"backwards", "1", `{"status":"Exploring"}`, `{"error":"Status cannot move back from 'Applying' to 'Exploring'"}`},
		{"Unexplored", "1", `{"status":"Unexplored"}`, `{"error":"Illegal value 'Unexplored' for 'status'"}`},
		{"unknown status", "1", `{"status":"Done"}`, `{"error":"Illegal value 'Done' for 'status'"}`},
		{"no status", "1", `{"minutes":5}`, `{"error":"Missing parameter 'status'"}`},
		{"minutes not a number", "1", `{"status":"Applying","minutes":"lots"}`, `{"error":"Illegal value 'lots' for 'minutes'"}`},
		{"negative minutes", "1", `{"status":"Applying","minutes":-1}`,
			`{"error":"Illegal value '-1' for 'minutes': it must be a whole number from 0 to 10000"}`},
		{"body not an object", "1", `[]`, `{"error":"request body must be a JSON object"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			progress(t, tt.id, tt.body, http.StatusBadRequest, tt.want)
			if after := e.enrolmentSnapshot(t); after != before {
				t.Fatalf("enrolments changed:\n%s\nwant\n%s", after, before)
			}
		})
	}
	for _, id := range []string{"2", "0", "x"} {
		progress(t, id, `{"status":"Applying"}`, http.StatusNotFound, `{"error":"not found"}`)
	}

	// Conquering: completed now, certified for 365 days, minutes added.
	e.clock.advance(time.Hour)
	later := usersStart.Add(time.Hour)
	progress(t, "1", `{"status":"Conquered","minutes":0}`, http.StatusOK, wantTopicEnrolment(1, "ann", 1, map[string]any{
		"status": "Conquered", "completed_topic_at": ts(later), "certified_date": ts(later.AddDate(1, 0, 0)),
		"updated_at": ts(later), "conquered_minutes": 55, "conquered_cpd_minutes": 35,
		"skills_attained": raw(`[{"id":1,"name":"Go"}]`)}))

	// An unenrolled enrolment takes no progress.
	e.assign(t, `{"user_name":"ann","enrolment_code_1":"GO-101 UNENROL"}`, http.StatusOK, "")
	progress(t, "1", `{"status":"Conquered"}`, http.StatusNotFound, `{"error":"not found"}`)
}

func TestEnrolmentChangesOfOneUserRunOneAtATime(t *testing.T) {
	t.Parallel()
	e := newEnrolEnv(t)
	parallel := func(bodies ...[2]string) {
		t.Helper()
		codes := make(chan int, len(bodies))
		for _, b := range bodies {
			go func() { codes <- e.h.papi(http.MethodPost, e.acme.host, b[0], e.acme.key, b[1]).Code }()
		}
		for range bodies {
			if code := <-codes; code != http.StatusOK {
				t.Fatalf("a concurrent request answered %d", code)
			}
		}
	}
	// The same enrolment asked for eight times at once: one enrolment.
	same := [2]string{"/papi/topic_assignments", `{"user_name":"ann","enrolment_code_1":"PATH-BE"}`}
	parallel(same, same, same, same, same, same, same, same)
	e.acme.call(t, http.MethodGet, "/papi/pathway_assignments?user_name=ann", "", http.StatusOK,
		listBody(1, 1, 25, wantPathwayEnrolment(1, "ann", 1, nil)))
	e.acme.call(t, http.MethodGet, "/papi/topic_assignments?user_name=ann&per_page=1", "", http.StatusOK,
		listBody(3, 1, 1, wantTopicEnrolment(1, "ann", 1, map[string]any{"relationship": "pathway"})))

	// Both mandatory topics conquered at once: the pathway sees both.
	parallel([2]string{"/papi/topic_assignments/1/progress", `{"status":"Conquered"}`},
		[2]string{"/papi/topic_assignments/2/progress", `{"status":"Conquered"}`},
		[2]string{"/papi/topic_assignments", `{"user_name":"ann","enrolment_code_1":"DOCKER-1 COMPLETE"}`})
	e.acme.call(t, http.MethodGet, "/papi/pathway_assignments/1", "", http.StatusOK,
		wantPathwayEnrolment(1, "ann", 1, map[string]any{"status": "Conquered", "conquered_at": ts(usersStart),
			"certified_date": ts(usersStart.AddDate(0, 0, 30)), "skills_attained": raw(`[{"id":2,"name":"SQL"}]`)}))
}
