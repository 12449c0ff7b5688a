package handlers

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// seedTopics gives acme the topics Alpha, Beta and Gamma (ids 1..3, codes A, B, C).
func seedTopics(t *testing.T, e *usersEnv) {
	t.Helper()
	for i, title := range []string{"Alpha", "Beta", "Gamma"} {
		body := fmt.Sprintf(`{"title":%q,"enrolment_code":%q}`, title, title[:1])
		e.acme.call(t, http.MethodPost, "/papi/topics", body, http.StatusCreated, wantTopic(i+1, title[:1], map[string]any{"title": title}))
	}
}

// fullPathway sets every pathway field.
const fullPathway = `{"title":" Onboarding ","external_id":"P-1","show_certificate":"yes","recertification_allowed":"0",
	"certify_days":"30","ordered":true,"topics":[{"topic_id":3},{"topic_id":"1","mandatory":"no"},{"topic_id":2,"mandatory":true}],
	"skills":"go;docker","enrolment_code":"ONBOARD","link":"/x","knowledge_type":"ignored"}`

// fullPathwayFields are the fields of fullPathway as the API returns them.
var fullPathwayFields = map[string]any{
	"title": "Onboarding", "external_id": "P-1", "show_certificate": true, "certify_days": 30, "ordered": true,
	"topics": json.RawMessage(`[{"topic_id":3,"title":"Gamma","mandatory":true,"position":1},` +
		`{"topic_id":1,"title":"Alpha","mandatory":false,"position":2},{"topic_id":2,"title":"Beta","mandatory":true,"position":3}]`),
	"skills": "Docker;Go",
}

func TestPathwayCreateShowUpdateList(t *testing.T) {
	t.Parallel()
	e := newTopicsEnv(t)
	seedTopics(t, e)

	e.acme.call(t, http.MethodGet, "/papi/pathways", "", http.StatusOK, catalogEmptyList)
	id, code := created(t, e.acme, "/papi/pathways", `{"title":"Empty"}`)
	if id != 1 || !strings.HasPrefix(code, "PW-1-") || !generatedCode.MatchString(code) {
		t.Fatalf("first pathway: id %d, code %q; want 1 and PW-1-nnn", id, code)
	}
	empty := wantPathway(1, code, map[string]any{"title": "Empty"})
	e.acme.call(t, http.MethodGet, "/papi/pathways/1", "", http.StatusOK, empty)

	full := wantPathway(2, "ONBOARD", fullPathwayFields)
	e.acme.call(t, http.MethodPost, "/papi/pathways", fullPathway, http.StatusCreated, full)
	e.acme.call(t, http.MethodGet, "/papi/pathways/2", "", http.StatusOK, full)
	e.acme.call(t, http.MethodGet, "/papi/pathways", "", http.StatusOK, listBody(2, 1, 25, empty, full))
	e.acme.call(t, http.MethodGet, "/papi/pathways?per_page=1&page=2", "", http.StatusOK, listBody(2, 2, 1, full))
	e.acme.call(t, http.MethodGet, "/papi/pathways?per_page=abc", "", http.StatusBadRequest, `"Bad request: Illegal value 'abc' for 'per_page'"`)

	// The same values change nothing.
	e.clock.at(time.Hour)
	e.acme.call(t, http.MethodPut, "/papi/pathways/2", `{"title":"Onboarding","ordered":"yes",
		"topics":[{"topic_id":3,"mandatory":null},{"topic_id":1,"mandatory":false},{"topic_id":2}],"skills":["GO","Docker"]}`,
		http.StatusOK, full)
	// A new order and mandatory flags replace the topics; other fields stay.
	reordered := with(fullPathwayFields, map[string]any{"updated_at": ts(usersStart.Add(time.Hour)),
		"topics": json.RawMessage(`[{"topic_id":1,"title":"Alpha","mandatory":true,"position":1},` +
			`{"topic_id":3,"title":"Gamma","mandatory":false,"position":2}]`)})
	e.acme.call(t, http.MethodPut, "/papi/pathways/2", `{"topics":[{"topic_id":1},{"topic_id":3,"mandatory":"NO"}]}`,
		http.StatusOK, wantPathway(2, "ONBOARD", reordered))
	// "" clears; the title changes; the code is respelled.
	e.clock.at(2 * time.Hour)
	cleared := with(reordered, map[string]any{"title": "Day one", "external_id": "", "certify_days": nil,
		"topics": json.RawMessage(`[]`), "skills": "", "updated_at": ts(usersStart.Add(2 * time.Hour))})
	e.acme.call(t, http.MethodPut, "/papi/pathways/2", `{"title":"Day one","external_id":"","certify_days":"","topics":"",
		"skills":[],"enrolment_code":"onboard"}`, http.StatusOK, wantPathway(2, "onboard", cleared))
	e.acme.call(t, http.MethodGet, "/papi/pathways/2", "", http.StatusOK, wantPathway(2, "onboard", cleared))
	e.acme.call(t, http.MethodGet, "/papi/pathways?updated_after=2025-06-01T10:00:00", "", http.StatusOK,
		listBody(1, 1, 25, wantPathway(2, "onboard", cleared)))

	// The other tenant sees none of it.
	e.other.call(t, http.MethodGet, "/papi/pathways", "", http.StatusOK, catalogEmptyList)
	e.other.call(t, http.MethodGet, "/papi/pathways/2", "", http.StatusNotFound, `{"error":"not found"}`)
	e.other.call(t, http.MethodPut, "/papi/pathways/2", `{"title":"Mine"}`, http.StatusNotFound, `{"error":"not found"}`)
	for _, path := range []string{"/abc", "/0", "/-2", "/3", "/99999999999999999999"} {
		e.acme.call(t, http.MethodGet, "/papi/pathways"+path, "", http.StatusNotFound, `{"error":"not found"}`)
		e.acme.call(t, http.MethodPut, "/papi/pathways"+path, `{"title":"x"}`, http.StatusNotFound, `{"error":"not found"}`)
	}
}

func TestPathwayRefused(t *testing.T) {
	t.Parallel()
	e := newTopicsEnv(t)
	seedTopics(t, e)
	e.acme.call(t, http.MethodPost, "/papi/pathways", fullPathway, http.StatusCreated, wantPathway(1, "ONBOARD", fullPathwayFields))
	other := wantPathway(2, "OTHER", map[string]any{"title": "Other"})
	e.acme.call(t, http.MethodPost, "/papi/pathways", `{"title":"Other","enrolment_code":"OTHER"}`, http.StatusCreated, other)
	// Topic 4 exists only in the other tenant.
	e.other.call(t, http.MethodPost, "/papi/topics", `{"title":"Theirs"}`, http.StatusCreated, "")
	before := e.topicCounts(t)
	tests := []struct {
		name   string
		body   string
		status int
		want   string
	}{
		{"title missing", `{"ordered":true}`, http.StatusBadRequest, illegalBody("", "title")},
		{"title blank", `{"title":" "}`, http.StatusBadRequest, illegalBody(" ", "title")},
		{"title an array", `{"title":["a"]}`, http.StatusBadRequest, illegalBody(`["a"]`, "title")},
		{"ordered maybe", `{"title":"P","ordered":"maybe"}`, http.StatusBadRequest, illegalBody("maybe", "ordered")},
		{"show_certificate null", `{"title":"P","show_certificate":null}`, http.StatusBadRequest, illegalBody("", "show_certificate")},
		{"certify_days 0", `{"title":"P","certify_days":"0"}`, http.StatusBadRequest, illegalBody("0", "certify_days")},
		{"topics an object", `{"title":"P","topics":{"topic_id":1}}`, http.StatusBadRequest, illegalBody(`{"topic_id":1}`, "topics")},
		{"topics a number", `{"title":"P","topics":1}`, http.StatusBadRequest, illegalBody("1", "topics")},
		{"topic not an object", `{"title":"P","topics":[1]}`, http.StatusBadRequest, illegalBody("1", "topics")},
		{"topic_id missing", `{"title":"P","topics":[{"mandatory":true}]}`, http.StatusBadRequest, illegalBody("", "topics.topic_id")},
		{"topic_id text", `{"title":"P","topics":[{"topic_id":"one"}]}`, http.StatusBadRequest, illegalBody("one", "topics.topic_id")},
		{"topic_id fraction", `{"title":"P","topics":[{"topic_id":1.5}]}`, http.StatusBadRequest, illegalBody("1.5", "topics.topic_id")},
		{"unknown topic", `{"title":"P","topics":[{"topic_id":1},{"topic_id":99}]}`, http.StatusBadRequest, illegalBody("99", "topics.topic_id")},
		{"other tenant's topic", `{"title":"P","topics":[{"topic_id":4}]}`, http.StatusBadRequest, illegalBody("4", "topics.topic_id")},
		{"topic_id 0", `{"title":"P","topics":[{"topic_id":0}]}`, http.StatusBadRequest, illegalBody("0", "topics.topic_id")},
		{"topic twice", `{"title":"P","topics":[{"topic_id":2},{"topic_id":"2","mandatory":false}]}`, http.StatusBadRequest,
			errorBody("Bad request: topic_id '2' appears more than once in 'topics'")},
		{"mandatory maybe", `{"title":"P","topics":[{"topic_id":1,"mandatory":"maybe"}]}`, http.StatusBadRequest,
			illegalBody("maybe", "topics.mandatory")},
		{"unknown skill", `{"title":"P","skills":["Go","Cobol"]}`, http.StatusBadRequest, illegalBody("Cobol", "skills")},
		{"code with a space", `{"title":"P","enrolment_code":"ON BOARD"}`, http.StatusBadRequest,
			errorBody("Bad request: enrolment_code 'ON BOARD' must not contain white space or control characters")},
		{"code taken by a pathway", `{"title":"P","enrolment_code":"Onboard"}`, http.StatusUnprocessableEntity,
			errorBody("enrolment_code 'Onboard' is already taken")},
		{"code taken by a topic", `{"title":"P","enrolment_code":"a"}`, http.StatusUnprocessableEntity,
			errorBody("enrolment_code 'a' is already taken")},
		{"malformed JSON", `{"title":"P",}`, http.StatusBadRequest, errorBody("Bad request: malformed JSON")},
		{"string body", `"P"`, http.StatusBadRequest, errorBody("Bad request: request body must be a JSON object")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.acme.call(t, http.MethodPost, "/papi/pathways", tt.body, tt.status, tt.want)
			if tt.name != "title missing" {
				e.acme.call(t, http.MethodPut, "/papi/pathways/2", tt.body, tt.status, tt.want)
			}
		})
	}
	e.assertTopicCounts(t, before)
	e.acme.call(t, http.MethodGet, "/papi/pathways/1", "", http.StatusOK, wantPathway(1, "ONBOARD", fullPathwayFields))
	e.acme.call(t, http.MethodGet, "/papi/pathways/2", "", http.StatusOK, other)
	if id, _ := created(t, e.acme, "/papi/pathways", `{"title":"Next"}`); id != 3 {
		t.Fatalf("next pathway id %d, want 3", id)
	}
}

func TestEnrolmentCodesUnique(t *testing.T) {
	t.Parallel()
	e := newTopicsEnv(t)
	taken := func(code string) string { return errorBody("enrolment_code '" + code + "' is already taken") }

	e.acme.call(t, http.MethodPost, "/papi/topics", `{"title":"T1","enrolment_code":"Safety-101"}`, http.StatusCreated, "")
	e.acme.call(t, http.MethodPost, "/papi/pathways", `{"title":"P1","enrolment_code":"Path-7"}`, http.StatusCreated, "")
	before := e.topicCounts(t)
	for _, code := range []string{"Safety-101", "SAFETY-101", "safety-101", " safety-101 "} {
		want := taken(strings.TrimSpace(code))
		e.acme.call(t, http.MethodPost, "/papi/topics", `{"title":"T","enrolment_code":"`+code+`"}`, http.StatusUnprocessableEntity, want)
		e.acme.call(t, http.MethodPost, "/papi/pathways", `{"title":"P","enrolment_code":"`+code+`"}`, http.StatusUnprocessableEntity, want)
		e.acme.call(t, http.MethodPut, "/papi/pathways/1", `{"enrolment_code":"`+code+`"}`, http.StatusUnprocessableEntity, want)
	}
	e.acme.call(t, http.MethodPut, "/papi/topics/1", `{"title":"Renamed","enrolment_code":"PATH-7"}`, http.StatusUnprocessableEntity, taken("PATH-7"))
	e.assertTopicCounts(t, before)
	if code := codeOf(t, e.acme, "/papi/topics/1"); code != "Safety-101" {
		t.Fatalf("topic 1 code %q after refused updates", code)
	}

	// The other tenant may use the same codes, and acme's do not collide with its own.
	e.other.call(t, http.MethodPost, "/papi/topics", `{"title":"Theirs","enrolment_code":"safety-101"}`, http.StatusCreated,
		wantTopic(1, "safety-101", map[string]any{"title": "Theirs"}))
	e.other.call(t, http.MethodPost, "/papi/pathways", `{"title":"Theirs","enrolment_code":"PATH-7"}`, http.StatusCreated,
		wantPathway(1, "PATH-7", map[string]any{"title": "Theirs"}))
	e.acme.call(t, http.MethodPost, "/papi/topics", `{"title":"T2","enrolment_code":"OTHER-ONLY"}`, http.StatusCreated, "")
	e.other.call(t, http.MethodPost, "/papi/topics", `{"title":"T2","enrolment_code":"other-only"}`, http.StatusCreated, "")

	// A code can move: freed by one record, taken by another.
	e.acme.call(t, http.MethodPut, "/papi/topics/1", `{"enrolment_code":"Safety-102"}`, http.StatusOK, "")
	e.acme.call(t, http.MethodPut, "/papi/pathways/1", `{"enrolment_code":"SAFETY-101"}`, http.StatusOK, "")
	if code := codeOf(t, e.acme, "/papi/pathways/1"); code != "SAFETY-101" {
		t.Fatalf("pathway 1 code %q, want SAFETY-101", code)
	}

	// Generated codes name their own record (store tests prove they avoid taken ones).
	seen := map[string]bool{}
	for i := 0; i < 5; i++ {
		id, code := created(t, e.acme, "/papi/topics", `{"title":"Generated"}`)
		m := generatedCode.FindStringSubmatch(code)
		if m == nil || m[1] != "TP" || m[2] != fmt.Sprint(id) || seen[strings.ToLower(code)] {
			t.Fatalf("topic %d got code %q", id, code)
		}
		seen[strings.ToLower(code)] = true
	}
}

func TestCatalogDeleteRemovesFromTopicsAndPathways(t *testing.T) {
	t.Parallel()
	e := newTopicsEnv(t)
	e.acme.call(t, http.MethodPost, "/papi/topics", fullTopic, http.StatusCreated, wantTopic(1, "Fire-2025", fullTopicFields))
	e.acme.call(t, http.MethodPost, "/papi/pathways",
		`{"title":"Path","enrolment_code":"P","skills":"Go;SQL;Docker","topics":[{"topic_id":1}]}`, http.StatusCreated, "")
	// The other tenant's catalog has the same names and ids; deleting acme's leaves them alone.
	e.other.call(t, http.MethodPost, "/papi/topics", `{"title":"Theirs","enrolment_code":"T","skills":"Go;SQL",
		"categories":[{"name":"Safety","minutes":1}]}`, http.StatusCreated, "")

	e.clock.at(time.Hour)
	e.acme.call(t, http.MethodDelete, "/papi/skills/2", "", http.StatusNoContent, "")     // SQL
	e.acme.call(t, http.MethodDelete, "/papi/categories/2", "", http.StatusNoContent, "") // Safety

	// Removed everywhere; updated_at does not move (as for users).
	e.acme.call(t, http.MethodGet, "/papi/topics/1", "", http.StatusOK, wantTopic(1, "Fire-2025", with(fullTopicFields, map[string]any{
		"skills": "Go", "categories": json.RawMessage(`[{"name":"CPD","minutes":0,"points":2}]`)})))
	e.acme.call(t, http.MethodGet, "/papi/pathways/1", "", http.StatusOK, wantPathway(1, "P", map[string]any{
		"title": "Path", "skills": "Docker;Go",
		"topics": json.RawMessage(`[{"topic_id":1,"title":"Fire safety","mandatory":true,"position":1}]`)}))
	e.other.call(t, http.MethodGet, "/papi/topics/1", "", http.StatusOK, wantTopic(1, "T", map[string]any{
		"title": "Theirs", "skills": "Go;SQL", "categories": json.RawMessage(`[{"name":"Safety","minutes":1,"points":0}]`)}))

	// The deleted names are unknown now.
	e.acme.call(t, http.MethodPut, "/papi/topics/1", `{"skills":"SQL"}`, http.StatusBadRequest, illegalBody("SQL", "skills"))
	e.acme.call(t, http.MethodPut, "/papi/topics/1", `{"categories":[{"name":"Safety"}]}`, http.StatusBadRequest,
		illegalBody("Safety", "categories.name"))
	e.acme.call(t, http.MethodPut, "/papi/pathways/1", `{"skills":["sql"]}`, http.StatusBadRequest, illegalBody("sql", "skills"))
}
