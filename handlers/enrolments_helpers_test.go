package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"learngate/store"
)

// enrolEnv is a topics env (skills Go, SQL, Docker; categories CPD, Safety)
// whose tenant acme holds users ann (id 1) and bob (id 2), four topics and
// two pathways, every one with a fixed enrolment code:
//
//   - topic 1 "Go basics" GO-101: 30 minutes, 10 CPD minutes, certified for
//     365 days, recertification allowed, skill Go, category CPD (60 min, 1.5 pts);
//   - topic 2 "SQL basics" SQL-101; topic 3 "Docker" DOCKER-1 (an article);
//     topic 4 "Safety" SAFE-1;
//   - pathway 1 "Backend" PATH-BE: topics 1, 2 (mandatory) and 3 (optional),
//     certified for 30 days, recertification allowed, skill SQL;
//   - pathway 2 "Empty" PATH-EMPTY: no topics.
//
// Tenant other holds user olga (its id 1), and its own topic 1 with code
// OTHER-1.
type enrolEnv struct {
	*usersEnv
}

func newEnrolEnv(t *testing.T) *enrolEnv {
	t.Helper()
	e := &enrolEnv{newTopicsEnv(t)}
	for _, u := range []string{
		`{"user_name":"ann","first_name":"Ann","last_name":"Lee","email":"ann@example.com"}`,
		`{"user_name":"bob","first_name":"Bob","last_name":"Brown","email":"bob@example.com"}`,
	} {
		e.acme.call(t, http.MethodPost, "/papi/users", u, http.StatusOK, "")
	}
	e.other.call(t, http.MethodPost, "/papi/users",
		`{"user_name":"olga","first_name":"Olga","last_name":"Olsen","email":"olga@example.com"}`, http.StatusOK, "")
	for _, body := range []string{
		`{"title":"Go basics","minutes":30,"cpd_minutes":10,"certify_days":365,"recertification_allowed":true,
			"skills":"Go","categories":[{"name":"CPD","minutes":60,"points":1.5}],"enrolment_code":"GO-101"}`,
		`{"title":"SQL basics","enrolment_code":"SQL-101"}`,
		`{"title":"Docker","knowledge_type":2,"show_certificate":true,"external_id":"ext-3","enrolment_code":"DOCKER-1"}`,
		`{"title":"Safety","enrolment_code":"SAFE-1"}`,
	} {
		created(t, e.acme, "/papi/topics", body)
	}
	created(t, e.acme, "/papi/pathways", `{"title":"Backend","certify_days":30,"recertification_allowed":true,
		"skills":"SQL","enrolment_code":"PATH-BE",
		"topics":[{"topic_id":1,"mandatory":true},{"topic_id":2,"mandatory":true},{"topic_id":3,"mandatory":false}]}`)
	created(t, e.acme, "/papi/pathways", `{"title":"Empty","enrolment_code":"PATH-EMPTY"}`)
	created(t, e.other, "/papi/topics", `{"title":"Other topic","enrolment_code":"OTHER-1"}`)
	return e
}

// assign posts an enrolment request for acme and checks the answer.
func (e *enrolEnv) assign(t *testing.T, body string, status int, want string) {
	t.Helper()
	e.acme.call(t, http.MethodPost, "/papi/topic_assignments", body, status, want)
}

// topicEnrolmentOrder is the topic enrolment object's fields in the spec's order.
var topicEnrolmentOrder = []string{
	"id", "created_at", "updated_at", "completed_topic_at", "status", "due_date", "relationship",
	"conquered_minutes", "conquered_cpd_minutes", "enrolled_by", "certified_date", "recertification_allowed",
	"version", "skills_attained", "categories", "user", "topic",
}

// pathwayEnrolmentOrder is the pathway enrolment object's fields in the spec's order.
var pathwayEnrolmentOrder = []string{
	"id", "created_at", "updated_at", "conquered_at", "status", "due_date", "enrolled_by", "certified_date",
	"recertification_allowed", "skills_attained", "user", "pathway",
}

// acmeUsers are the user objects of acme's enrolments, by user_name.
var acmeUsers = map[string]json.RawMessage{
	"ann": json.RawMessage(`{"id":1,"name":"Ann Lee","user_name":"ann","link":"/users/ann"}`),
	"bob": json.RawMessage(`{"id":2,"name":"Bob Brown","user_name":"bob","link":"/users/bob"}`),
}

// acmeTopics are the topic objects of acme's enrolments, by topic id.
var acmeTopics = map[int]json.RawMessage{
	1: json.RawMessage(`{"id":1,"title":"Go basics","link":"/topics/1","knowledge_type":1,"show_certificate":false,"external_id":""}`),
	2: json.RawMessage(`{"id":2,"title":"SQL basics","link":"/topics/2","knowledge_type":1,"show_certificate":false,"external_id":""}`),
	3: json.RawMessage(`{"id":3,"title":"Docker","link":"/topics/3","knowledge_type":2,"show_certificate":true,"external_id":"ext-3"}`),
	4: json.RawMessage(`{"id":4,"title":"Safety","link":"/topics/4","knowledge_type":1,"show_certificate":false,"external_id":""}`),
}

// goCategories are the categories of topic 1's enrolments.
const goCategories = `[{"name":"CPD","minutes":60,"points":1.5}]`

// wantTopicEnrolment is the exact JSON of enrolment id of user in topic:
// a direct, Unexplored enrolment made at usersStart, changed by fields.
func wantTopicEnrolment(id int, user string, topic int, fields map[string]any) string {
	values := map[string]any{
		"id": id, "created_at": ts(usersStart), "updated_at": ts(usersStart), "completed_topic_at": nil,
		"status": "Unexplored", "due_date": nil, "relationship": "direct", "conquered_minutes": 0,
		"conquered_cpd_minutes": 0, "enrolled_by": "api", "certified_date": nil, "recertification_allowed": topic == 1,
		"version": nil, "skills_attained": json.RawMessage(`[]`), "categories": json.RawMessage(`[]`),
		"user": acmeUsers[user], "topic": acmeTopics[topic],
	}
	if topic == 1 {
		values["categories"] = json.RawMessage(goCategories)
	}
	return ordered(topicEnrolmentOrder, values, fields)
}

// wantPathwayEnrolment is the exact JSON of enrolment id of user in pathway
// 1 (Backend) or 2 (Empty): Unexplored, made at usersStart, changed by fields.
func wantPathwayEnrolment(id int, user string, pathway int, fields map[string]any) string {
	title := map[int]string{1: "Backend", 2: "Empty"}[pathway]
	values := map[string]any{
		"id": id, "created_at": ts(usersStart), "updated_at": ts(usersStart), "conquered_at": nil,
		"status": "Unexplored", "due_date": nil, "enrolled_by": "api", "certified_date": nil,
		"recertification_allowed": pathway == 1, "skills_attained": json.RawMessage(`[]`), "user": acmeUsers[user],
		"pathway": json.RawMessage(fmt.Sprintf(`{"id":%d,"title":%q,"link":"/pathways/%d","show_certificate":false,"external_id":""}`,
			pathway, title, pathway)),
	}
	return ordered(pathwayEnrolmentOrder, values, fields)
}

// assignments is the body of a successful POST /topic_assignments.
func assignments(objects ...string) string {
	out := `{"assignments":[`
	for i, o := range objects {
		if i > 0 {
			out += ","
		}
		out += o
	}
	return out + `]}`
}

// enrolErrors is the {"errors": [...]} body of enrolment creation.
func enrolErrors(msgs ...string) string {
	b, _ := json.Marshal(map[string][]string{"errors": msgs})
	return string(b)
}

// day is a date at midnight UTC as the API writes timestamps.
func day(s string) string {
	d, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return ts(d)
}

// raw marks a JSON value to embed as it is.
func raw(s string) json.RawMessage { return json.RawMessage(s) }

// enrolmentTables are the tenant tables enrolments write.
var enrolmentTables = []string{"topic_enrolments", "topic_enrolment_skills", "pathway_enrolments", "pathway_enrolment_skills"}

// enrolmentSnapshot returns every row of acme's enrolment tables as JSON,
// to prove that a refused request changed nothing.
func (e *enrolEnv) enrolmentSnapshot(t *testing.T) string {
	t.Helper()
	var out string
	e.inAcme(t, func(tx *sqlx.Tx) error {
		for _, table := range enrolmentTables {
			var rows string
			if err := tx.Get(&rows, `SELECT coalesce(json_agg(x ORDER BY x::text)::text, '[]') FROM `+table+` x`); err != nil {
				return err
			}
			out += table + ": " + rows + "\n"
		}
		return nil
	})
	return out
}

// inAcme runs fn in a transaction of acme's schema.
func (e *enrolEnv) inAcme(t *testing.T, fn func(tx *sqlx.Tx) error) {
	t.Helper()
	if err := e.acmeDB(t).Tx(context.Background(), fn); err != nil {
		t.Fatalf("acme transaction: %v", err)
	}
}

// acmeDB is acme's tenant handle.
func (e *enrolEnv) acmeDB(t *testing.T) *store.TenantDB {
	t.Helper()
	tdb, err := e.h.db.Tenant(e.schema(t, "acme"))
	if err != nil {
		t.Fatal(err)
	}
	return tdb
}
