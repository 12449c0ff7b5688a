package handlers

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"learngate/webhook/webhooktest"
)

// nowInTest sets c to the current time (whole seconds) and returns it.
func nowInTest(c *manualClock) time.Time {
	now := time.Now().UTC().Truncate(time.Second)
	c.at(now.Sub(c.start))
	return now
}

// eventStream reads the events a receiver got, in order, a few at a time.
type eventStream struct {
	rc     *webhooktest.Receiver
	secret string
	seen   int
}

// next waits for the next n events and returns them.
func (s *eventStream) next(t *testing.T, n int) []webhooktest.Request {
	t.Helper()
	got := s.rc.Wait(t, s.seen+n, 20*time.Second)[s.seen : s.seen+n]
	s.seen += n
	return got
}

// enrolmentData is what identifies an enrolment in an event's data.
type enrolmentData struct {
	ID   int64 `json:"id"`
	User struct {
		UserName string `json:"user_name"`
	} `json:"user"`
	Topic struct {
		ID int64 `json:"id"`
	} `json:"topic"`
	Pathway struct {
		ID int64 `json:"id"`
	} `json:"pathway"`
}

// enrolmentOf decodes the enrolment of an event's data.
func enrolmentOf(t *testing.T, r webhooktest.Request) enrolmentData {
	t.Helper()
	var d enrolmentData
	if err := json.Unmarshal(r.Event(t)["data"], &d); err != nil {
		t.Fatalf("data of %s: %v", r.Body, err)
	}
	return d
}

// topicRecord returns the record of topic enrolment id in acme's
// GET /papi/topic_assignments/user/{user}, exactly as listed.
func topicRecord(t *testing.T, ct catalogTenant, user string, id int64) string {
	t.Helper()
	var env struct {
		Records []json.RawMessage `json:"records"`
	}
	if err := json.Unmarshal([]byte(ct.get(t, "/papi/topic_assignments/user/"+user+"?per_page=100")), &env); err != nil {
		t.Fatal(err)
	}
	for _, r := range env.Records {
		var rec struct {
			ID int64 `json:"id"`
		}
		if err := json.Unmarshal(r, &rec); err != nil {
			t.Fatal(err)
		}
		if rec.ID == id {
			return string(r)
		}
	}
	t.Fatalf("topic enrolment %d is not listed for %s", id, user)
	return ""
}

// expectTopic checks that the next event is typ for user's enrolment in
// topic, with data equal to its record in GET /papi/topic_assignments/user/{user},
// and returns the enrolment's id.
func (s *eventStream) expectTopic(t *testing.T, ct catalogTenant, typ, user string, topic int64) int64 {
	t.Helper()
	r := s.next(t, 1)[0]
	d := enrolmentOf(t, r)
	if d.User.UserName != user || d.Topic.ID != topic {
		t.Fatalf("%s for %s in topic %d, want %s in topic %d: %s", typ, d.User.UserName, d.Topic.ID, user, topic, r.Body)
	}
	assertEvent(t, r, s.secret, typ, topicRecord(t, ct, user, d.ID))
	return d.ID
}

// expectPathway checks that the next event is typ for enrolment id (a
// pathway enrolment) with data equal to GET /papi/pathway_assignments/{id}.
func (s *eventStream) expectPathway(t *testing.T, ct catalogTenant, typ string, id int64) {
	t.Helper()
	r := s.next(t, 1)[0]
	if d := enrolmentOf(t, r); d.ID != id || d.Pathway.ID == 0 {
		t.Fatalf("%s: %s, want pathway enrolment %d", typ, r.Body, id)
	}
	assertEvent(t, r, s.secret, typ, ct.get(t, fmt.Sprintf("/papi/pathway_assignments/%d", id)))
}

// answer returns the body of a request the test expects to answer status.
func answer(t *testing.T, ct catalogTenant, method, path, body string, status int) string {
	t.Helper()
	w := ct.h.papi(method, ct.host, path, ct.key, body)
	if w.Code != status {
		t.Fatalf("%s %s: %d %s, want %d", method, path, w.Code, w.Body.String(), status)
	}
	return w.Body.String()
}

// TestWebhookEnrolmentEventsThroughTheAPI follows acme's enrolments through
// POST /topic_assignments, progress and batch save: every change arrives as
// one signed event whose data is the enrolment exactly as GET returns it;
// no-ops and refused requests send nothing; other's endpoint gets only
// other's events.
func TestWebhookEnrolmentEventsThroughTheAPI(t *testing.T) {
	e := newEnrolEnv(t)
	// Events take their change's time: webhook maintenance would purge
	// events of usersStart (over 30 days ago) before their delivery.
	start := nowInTest(e.clock)
	runWebhookWorker(t, e.h, e.clock.Now)
	rc, rcOther := webhooktest.NewReceiver(t, nil), webhooktest.NewReceiver(t, nil)
	s := &eventStream{rc: rc, secret: register(t, e.acme, `{"url":"`+rc.URL("/acme")+`","events":["*"]}`)}
	otherSecret := register(t, e.other, `{"url":"`+rcOther.URL("/other")+`","events":["topic_enrolment.created"]}`)
	post := func(body string, status int) string {
		t.Helper()
		return answer(t, e.acme, http.MethodPost, "/papi/topic_assignments", body, status)
	}

	post(`{"user_name":"ann","enrolment_code_1":"GO-101"}`, http.StatusOK)
	annGo := s.expectTopic(t, e.acme, "topic_enrolment.created", "ann", 1)
	// Nothing for an enrol that changes nothing, a refused request (all or
	// nothing: its good code is not applied either) or an unknown user.
	post(`{"user_name":"ann","enrolment_code_1":"go-101"}`, http.StatusOK)
	post(`{"user_name":"ann","enrolment_code_1":"SAFE-1","enrolment_code_2":"NOPE"}`, http.StatusBadRequest)
	post(`{"user_name":"zed","enrolment_code_1":"SAFE-1"}`, http.StatusNotFound)

	// A pathway enrol: the pathway, then the topics it brings (topic 1 is
	// enrolled already).
	var created struct {
		Assignments []enrolmentData `json:"assignments"`
	}
	if err := json.Unmarshal([]byte(post(`{"user_name":"ann","enrolment_code_1":"PATH-BE"}`, http.StatusOK)), &created); err != nil {
		t.Fatal(err)
	}
	path := created.Assignments[0].ID
	s.expectPathway(t, e.acme, "pathway_enrolment.created", path)
	annSQL := s.expectTopic(t, e.acme, "topic_enrolment.created", "ann", 2)
	annDocker := s.expectTopic(t, e.acme, "topic_enrolment.created", "ann", 3)

	// Progress: the topic, then the pathway it moves.
	progress := func(id int64, body string, status int) {
		t.Helper()
		answer(t, e.acme, http.MethodPost, fmt.Sprintf("/papi/topic_assignments/%d/progress", id), body, status)
	}
	progress(annGo, `{"status":"Exploring","minutes":5}`, http.StatusOK)
	s.expectTopic(t, e.acme, "topic_enrolment.updated", "ann", 1)
	s.expectPathway(t, e.acme, "pathway_enrolment.updated", path)
	progress(annGo, `{"status":"exploring"}`, http.StatusOK) // the same status, no minutes
	progress(annGo, `{"status":"Done"}`, http.StatusBadRequest)
	progress(annGo, `{"status":"Conquered"}`, http.StatusOK)
	s.expectTopic(t, e.acme, "topic_enrolment.conquered", "ann", 1)
	// Its last mandatory topic conquers the pathway.
	post(`{"user_name":"ann","enrolment_code_1":"SQL-101 COMPLETE"}`, http.StatusOK)
	s.expectTopic(t, e.acme, "topic_enrolment.conquered", "ann", 2)
	s.expectPathway(t, e.acme, "pathway_enrolment.conquered", path)

	// Batch save: each row's user, then its enrolments; nothing for an
	// unchanged user or a failed code.
	answer(t, e.acme, http.MethodPost, "/papi/users/batch_save", `{"people":[
		{"user_name":"BOB","enrolment_code_1":"GO-101 COMPLETE","enrolment_code_2":"PATH-EMPTY COMPLETE"},
		{"user_name":"cat","first_name":"Cat","last_name":"Ng","email":"cat@example.com","enrolment_code_1":"SAFE-1"},
		{"user_name":"ann","enrolment_code_1":"NOPE","enrolment_code_2":"GO-101 UPDATE","enrolment_code_2_due_date":"2025-12-31"}]}`,
		http.StatusOK)
	s.expectTopic(t, e.acme, "topic_enrolment.conquered", "bob", 1)
	var bobEmpty struct {
		Records []enrolmentData `json:"records"`
	}
	if err := json.Unmarshal([]byte(e.acme.get(t, "/papi/pathway_assignments/by_pathway/2")), &bobEmpty); err != nil ||
		len(bobEmpty.Records) != 1 {
		t.Fatalf("bob's pathway enrolments: %+v, %v", bobEmpty, err)
	}
	s.expectPathway(t, e.acme, "pathway_enrolment.conquered", bobEmpty.Records[0].ID)
	assertEvent(t, s.next(t, 1)[0], s.secret, "user.created", e.acme.get(t, "/papi/users/cat"))
	s.expectTopic(t, e.acme, "topic_enrolment.created", "cat", 4)
	if id := s.expectTopic(t, e.acme, "topic_enrolment.updated", "ann", 1); id != annGo {
		t.Fatalf("ann's topic 1 enrolment is %d, then %d", annGo, id)
	}

	// UNENROL: the removed pathway enrolment as the request answers it, then
	// the untouched topic enrolment it brought, removed at the same time;
	// the started ones stay.
	docker := topicRecord(t, e.acme, "ann", annDocker)
	e.clock.advance(time.Hour)
	var removed struct {
		Assignments []json.RawMessage `json:"assignments"`
	}
	if err := json.Unmarshal([]byte(post(`{"user_name":"ann","enrolment_code_1":"PATH-BE UNENROL"}`, http.StatusOK)), &removed); err != nil {
		t.Fatal(err)
	}
	assertEvent(t, s.next(t, 1)[0], s.secret, "pathway_enrolment.updated", string(removed.Assignments[0]))
	e.acme.call(t, http.MethodGet, fmt.Sprintf("/papi/pathway_assignments/%d", path), "", http.StatusNotFound, "")
	removedAt := ts(start.Add(time.Hour))
	wantDocker := strings.Replace(docker, `"updated_at":"`+ts(start)+`"`, `"updated_at":"`+removedAt+`"`, 1)
	if wantDocker == docker {
		t.Fatalf("ann's Docker enrolment was updated before: %s", docker)
	}
	assertEvent(t, s.next(t, 1)[0], s.secret, "topic_enrolment.updated", wantDocker)
	topicRecord(t, e.acme, "ann", annSQL) // still listed

	// Other's changes reach other's endpoint only; acme's never do.
	answer(t, e.other, http.MethodPost, "/papi/topic_assignments", `{"user_name":"olga","enrolment_code_1":"OTHER-1"}`, http.StatusOK)
	got := rcOther.Wait(t, 1, 20*time.Second)[0]
	if len(webhooktest.VerifySignatures(t, got, otherSecret)) != 1 || got.Field(t, "organisation") != "other" ||
		got.Field(t, "type") != "topic_enrolment.created" {
		t.Fatalf("other's event %s", got.Body)
	}
	time.Sleep(500 * time.Millisecond)
	if n, m := len(rc.Requests()), len(rcOther.Requests()); n != s.seen || m != 1 {
		t.Fatalf("acme's endpoint got %d events, want %d; other's %d, want 1", n, s.seen, m)
	}
}

// TestWebhookKnowledgeEventsThroughTheAPI checks external_knowledge.created
// (POST and each record of batch_save) and external_knowledge.updated (a
// PUT that changes something), with data equal to GET
// /papi/external_knowledges/{id}; nothing for refused or unchanged saves.
func TestWebhookKnowledgeEventsThroughTheAPI(t *testing.T) {
	e := newKnowledgeEnv(t)
	nowInTest(e.clock)
	runWebhookWorker(t, e.h, e.clock.Now)
	rc := webhooktest.NewReceiver(t, nil)
	secret := register(t, e.acme, `{"url":"`+rc.URL("/")+`","events":["external_knowledge.created","external_knowledge.updated"]}`)
	s := &eventStream{rc: rc, secret: secret}
	expect := func(typ string, id int) {
		t.Helper()
		assertEvent(t, s.next(t, 1)[0], secret, typ, e.acme.get(t, fmt.Sprintf("/papi/external_knowledges/%d", id)))
	}
	first := `{"user_name":"ann","knowledge_type":1,"title":"First aid","skills_attained":"Go;SQL","category_1_name":"Safety"}`
	answer(t, e.acme, http.MethodPost, "/papi/external_knowledges", first, http.StatusCreated)
	expect("external_knowledge.created", 1)
	answer(t, e.acme, http.MethodPost, "/papi/external_knowledges", `{"user_name":"zed","knowledge_type":1,"title":"X"}`,
		http.StatusNotFound)
	answer(t, e.acme, http.MethodPost, "/papi/external_knowledges", `{"user_name":"ann","knowledge_type":9,"title":"X"}`,
		http.StatusBadRequest)
	// The same values in other spellings change nothing.
	answer(t, e.acme, http.MethodPut, "/papi/external_knowledges/1",
		`{"title":" First aid ","skills_attained":["sql","GO"],"categories":[{"name":"safety"}]}`, http.StatusOK)
	answer(t, e.acme, http.MethodPut, "/papi/external_knowledges/1", `{"document_type":"Passport"}`, http.StatusBadRequest)
	answer(t, e.acme, http.MethodPut, "/papi/external_knowledges/1", `{"title":"CPR","skills_attained":""}`, http.StatusOK)
	expect("external_knowledge.updated", 1)

	batch := `{"external_knowledges":[{"user_name":"bob","knowledge_type":2,"title":"Masters"},
		{"user_name":"ANN","type":"Document","title":"Passport","document_type":"ID"}]}`
	answer(t, e.acme, http.MethodPost, "/papi/external_knowledges/batch_save", batch, http.StatusOK)
	expect("external_knowledge.created", 2)
	expect("external_knowledge.created", 3)
	answer(t, e.acme, http.MethodPost, "/papi/external_knowledges/batch_save", `{"external_knowledges":[
		{"user_name":"bob","knowledge_type":2,"title":"Degree"},{"user_name":"zed","knowledge_type":2,"title":"X"}]}`,
		http.StatusBadRequest)
	answer(t, e.acme, http.MethodPut, "/papi/external_knowledges/3", `{"title":"Passport"}`, http.StatusOK)
	answer(t, e.acme, http.MethodPut, "/papi/external_knowledges/2", `{"notes":"With honours"}`, http.StatusOK)
	expect("external_knowledge.updated", 2)

	// Other's records never reach acme's endpoint.
	answer(t, e.other, http.MethodPost, "/papi/external_knowledges", `{"user_name":"ann","knowledge_type":1,"title":"Y"}`,
		http.StatusCreated)
	time.Sleep(500 * time.Millisecond)
	if n := len(rc.Requests()); n != s.seen {
		t.Fatalf("%d events, want %d", n, s.seen)
	}
}
