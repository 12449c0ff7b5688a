package handlers

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// knowledgeEnv is a users environment (tenants acme and other, a still
// clock at usersStart) whose acme has users ann and bob, skills and
// categories; other has a user ann too, so that user names never resolve
// across tenants.
type knowledgeEnv struct {
	*usersEnv
}

// Ids of acme's seeded skills and categories, in creation order.
const (
	skillGo = iota + 1
	skillSQL
	skillDocker
)

func newKnowledgeEnv(t *testing.T) *knowledgeEnv {
	t.Helper()
	e := &knowledgeEnv{newUsersEnv(t)}
	for _, u := range []string{"ann", "bob"} {
		e.acme.call(t, http.MethodPost, "/papi/users",
			fmt.Sprintf(`{"user_name":%q,"first_name":"F","last_name":"L","email":"%s@example.com"}`, u, u), http.StatusOK, "")
	}
	e.other.call(t, http.MethodPost, "/papi/users",
		`{"user_name":"ann","first_name":"F","last_name":"L","email":"ann@example.com"}`, http.StatusOK, "")
	for path, names := range map[string][]string{
		"/papi/skills":     {"Go", "SQL", "Docker"},
		"/papi/categories": {"Safety", "Compliance", "Leadership"},
	} {
		for _, name := range names {
			e.acme.call(t, http.MethodPost, path, fmt.Sprintf(`{"name":%q}`, name), http.StatusCreated, "")
		}
	}
	return e
}

// knowledgeFieldOrder is the record's fields in the order the API writes them.
var knowledgeFieldOrder = []string{
	"id", "knowledge_type", "title", "code", "provider", "date_obtained", "certificate_number", "country_obtained",
	"state_obtained", "expires", "qualification_level", "assessment_score", "total_time", "notes", "klass",
	"created_at", "updated_at", "development_focus", "user_name", "skills_attained", "categories",
}

// wantKnowledge is the exact JSON of record id of ann: a Training titled
// "First aid" obtained on 2025-06-01 (acme's today), created at usersStart,
// changed by fields.
func wantKnowledge(id int, fields map[string]any) string {
	values := map[string]any{
		"id": id, "knowledge_type": 1, "title": "First aid", "code": nil, "provider": "", "date_obtained": "2025-06-01",
		"certificate_number": "", "country_obtained": "", "state_obtained": "", "expires": nil,
		"qualification_level": nil, "assessment_score": 0, "total_time": 0, "notes": "", "klass": "",
		"created_at": ts(usersStart), "updated_at": ts(usersStart), "development_focus": nil, "user_name": "ann",
		"skills_attained": []any{}, "categories": []any{},
	}
	for k, v := range fields {
		values[k] = v
	}
	obj := kv{}
	for _, k := range knowledgeFieldOrder {
		obj = append(obj, struct {
			k string
			v any
		}{k, values[k]})
	}
	return obj.String()
}

// skill is a skills_attained entry.
func skill(id int, name string) map[string]any { return map[string]any{"id": id, "name": name} }

// cat is a categories entry, written by hand: a map would marshal its keys
// sorted (minutes first), not in the API's order (name, minutes, points).
func cat(name string, minutes int, points string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"name":%q,"minutes":%d,"points":%s}`, name, minutes, points))
}

// raws joins raw JSON values into an array.
func raws(items ...json.RawMessage) json.RawMessage {
	parts := make([]string, len(items))
	for i, it := range items {
		parts[i] = string(it)
	}
	return json.RawMessage("[" + strings.Join(parts, ",") + "]")
}

// illegal is the external knowledge routes' 400 text for v and field.
func illegal(v, field string) string {
	return "Bad request: Illegal value '" + v + "' for '" + field + "'"
}

// knowledgeCounts returns the row counts of acme's external_knowledges,
// external_knowledge_skills and external_knowledge_categories.
func (e *knowledgeEnv) knowledgeCounts(t *testing.T) [3]int {
	t.Helper()
	return [3]int(e.acmeRowCounts(t, "external_knowledges", "external_knowledge_skills", "external_knowledge_categories"))
}

// assertKnowledgeCounts checks acme's row counts (see knowledgeCounts).
func (e *knowledgeEnv) assertKnowledgeCounts(t *testing.T, want [3]int) {
	t.Helper()
	if got := e.knowledgeCounts(t); got != want {
		t.Fatalf("rows in external_knowledges, _skills, _categories = %v, want %v", got, want)
	}
}

// assertKnowledgeIsolated checks that tenant other lists no records and
// cannot read or change record id.
func (e *knowledgeEnv) assertKnowledgeIsolated(t *testing.T, id int) {
	t.Helper()
	path := fmt.Sprintf("/papi/external_knowledges/%d", id)
	e.other.call(t, http.MethodGet, "/papi/external_knowledges", "", http.StatusOK, catalogEmptyList)
	e.other.call(t, http.MethodGet, path, "", http.StatusNotFound, `"not found"`)
	e.other.call(t, http.MethodPut, path, `{"title":"Stolen"}`, http.StatusNotFound, `"not found"`)
}
