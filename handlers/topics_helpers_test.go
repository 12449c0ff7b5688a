package handlers

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"testing"
)

// newTopicsEnv is newUsersEnv whose tenants both hold the skills Go, SQL
// and Docker (ids 1..3) and the categories CPD and Safety (ids 1, 2).
func newTopicsEnv(t *testing.T) *usersEnv {
	t.Helper()
	e := newUsersEnv(t)
	for _, tn := range []catalogTenant{e.acme, e.other} {
		for _, name := range []string{"Go", "SQL", "Docker"} {
			tn.call(t, http.MethodPost, "/papi/skills", fmt.Sprintf(`{"name":%q}`, name), http.StatusCreated, "")
		}
		for _, name := range []string{"CPD", "Safety"} {
			tn.call(t, http.MethodPost, "/papi/categories", fmt.Sprintf(`{"name":%q}`, name), http.StatusCreated, "")
		}
	}
	return e
}

// topicFieldOrder is the topic object's fields in the order the API writes them.
var topicFieldOrder = []string{
	"id", "title", "link", "knowledge_type", "external_id", "show_certificate", "recertification_allowed",
	"certify_days", "minutes", "cpd_minutes", "skills", "categories", "enrolment_code", "created_at", "updated_at",
}

// pathwayFieldOrder is the pathway object's fields in the order the API writes them.
var pathwayFieldOrder = []string{
	"id", "title", "link", "external_id", "show_certificate", "recertification_allowed", "certify_days",
	"ordered", "topics", "skills", "enrolment_code", "created_at", "updated_at",
}

// wantTopic is the exact JSON of topic id created at usersStart with
// enrolment code code: the defaults changed by fields.
func wantTopic(id int, code string, fields map[string]any) string {
	values := map[string]any{
		"id": id, "link": fmt.Sprintf("/topics/%d", id), "knowledge_type": 1, "external_id": "",
		"show_certificate": false, "recertification_allowed": false, "certify_days": nil, "minutes": 0,
		"cpd_minutes": 0, "skills": "", "categories": json.RawMessage(`[]`), "enrolment_code": code,
		"created_at": ts(usersStart), "updated_at": ts(usersStart),
	}
	return ordered(topicFieldOrder, values, fields)
}

// wantPathway is wantTopic for pathways.
func wantPathway(id int, code string, fields map[string]any) string {
	values := map[string]any{
		"id": id, "link": fmt.Sprintf("/pathways/%d", id), "external_id": "", "show_certificate": false,
		"recertification_allowed": false, "certify_days": nil, "ordered": false, "topics": json.RawMessage(`[]`),
		"skills": "", "enrolment_code": code, "created_at": ts(usersStart), "updated_at": ts(usersStart),
	}
	return ordered(pathwayFieldOrder, values, fields)
}

// ordered writes values changed by fields as a JSON object in order.
func ordered(order []string, values, fields map[string]any) string {
	for k, v := range fields {
		values[k] = v
	}
	obj := kv{}
	for _, k := range order {
		obj = append(obj, struct {
			k string
			v any
		}{k, values[k]})
	}
	return obj.String()
}

// generatedCode matches the codes made for topics (TP) and pathways (PW).
var generatedCode = regexp.MustCompile(`^(TP|PW)-([0-9]+)-[0-9]{3}$`)

// created posts body to path, expects 201 and returns the new record's id
// and enrolment code.
func created(t *testing.T, tn catalogTenant, path, body string) (int, string) {
	t.Helper()
	w := tn.h.papi(http.MethodPost, tn.host, path, tn.key, body)
	assertResponse(t, w, http.StatusCreated, "")
	var rec struct {
		ID   int    `json:"id"`
		Code string `json:"enrolment_code"`
	}
	decode(t, w, &rec)
	return rec.ID, rec.Code
}

// codeOf returns the enrolment code of the topic or pathway at path.
func codeOf(t *testing.T, tn catalogTenant, path string) string {
	t.Helper()
	w := tn.h.papi(http.MethodGet, tn.host, path, tn.key, "")
	assertResponse(t, w, http.StatusOK, "")
	var rec struct {
		Code string `json:"enrolment_code"`
	}
	decode(t, w, &rec)
	return rec.Code
}

// topicTables are the tenant tables topics and pathways write.
var topicTables = []string{
	"topics", "topic_skills", "topic_categories", "pathways", "pathway_topics", "pathway_skills", "enrolment_codes",
}

// topicCounts returns the row counts of acme's topicTables.
func (e *usersEnv) topicCounts(t *testing.T) map[string]int {
	t.Helper()
	counts := e.acmeRowCounts(t, topicTables...)
	n := make(map[string]int, len(topicTables))
	for i, table := range topicTables {
		n[table] = counts[i]
	}
	return n
}

// assertTopicCounts checks that acme's topic tables hold as many rows as before.
func (e *usersEnv) assertTopicCounts(t *testing.T, before map[string]int) {
	t.Helper()
	after := e.topicCounts(t)
	for _, table := range topicTables {
		if after[table] != before[table] {
			t.Fatalf("%s holds %d rows, want %d (all counts %v, before %v)", table, after[table], before[table], after, before)
		}
	}
}

// errorBody is the {"error": msg} body.
func errorBody(msg string) string {
	b, _ := json.Marshal(map[string]string{"error": msg})
	return string(b)
}

// illegalBody is the 400 body for value v of field on the topic and pathway routes.
func illegalBody(v, field string) string {
	return errorBody(illegal(v, field))
}
