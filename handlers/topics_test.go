package handlers

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// fullTopic sets every topic field.
const fullTopic = `{"title":"  Fire safety  ","knowledge_type":"2","external_id":" EXT-9 ","show_certificate":"YES",
	"recertification_allowed":1,"certify_days":365,"minutes":"90","cpd_minutes":30.0,"skills":"sql; go ;SQL",
	"categories":[{"name":"safety","minutes":"15","points":"1.005"},{"name":"CPD","points":2}],
	"enrolment_code":" Fire-2025 ","id":77,"link":"/elsewhere","created_at":"2000-01-01T00:00:00+00:00"}`

// fullTopicFields are the fields of fullTopic as the API returns them.
var fullTopicFields = map[string]any{
	"title": "Fire safety", "knowledge_type": 2, "external_id": "EXT-9", "show_certificate": true,
	"recertification_allowed": true, "certify_days": 365, "minutes": 90, "cpd_minutes": 30, "skills": "Go;SQL",
	"categories": json.RawMessage(`[{"name":"CPD","minutes":0,"points":2},{"name":"Safety","minutes":15,"points":1.01}]`),
}

func TestTopicCreateShowList(t *testing.T) {
	t.Parallel()
	e := newTopicsEnv(t)

	e.acme.call(t, http.MethodGet, "/papi/topics", "", http.StatusOK, catalogEmptyList)
	id, code := created(t, e.acme, "/papi/topics", `{"title":"Intro"}`)
	if id != 1 || !generatedCode.MatchString(code) || !strings.HasPrefix(code, "TP-1-") {
		t.Fatalf("first topic: id %d, code %q; want 1 and TP-1-nnn", id, code)
	}
	intro := wantTopic(1, code, map[string]any{"title": "Intro"})
	e.acme.call(t, http.MethodGet, "/papi/topics/1", "", http.StatusOK, intro)

	// Every field, in the loose forms the API accepts; read-only fields are ignored.
	full := wantTopic(2, "Fire-2025", fullTopicFields)
	e.acme.call(t, http.MethodPost, "/papi/topics", fullTopic, http.StatusCreated, full)
	e.acme.call(t, http.MethodGet, "/papi/topics/2", "", http.StatusOK, full)

	// Skills as an array; certify_days null and an empty code on create mean none given.
	e.clock.advance(time.Minute)
	id, code = created(t, e.acme, "/papi/topics",
		`{"title":"Article","knowledge_type":2,"skills":["Docker","go"],"certify_days":null,"enrolment_code":"","categories":[]}`)
	if id != 3 || !strings.HasPrefix(code, "TP-3-") || !generatedCode.MatchString(code) {
		t.Fatalf("third topic: id %d, code %q", id, code)
	}
	article := wantTopic(3, code, map[string]any{"title": "Article", "knowledge_type": 2, "skills": "Docker;Go",
		"created_at": ts(usersStart.Add(time.Minute)), "updated_at": ts(usersStart.Add(time.Minute))})
	e.acme.call(t, http.MethodGet, "/papi/topics/3", "", http.StatusOK, article)

	e.acme.call(t, http.MethodGet, "/papi/topics", "", http.StatusOK, listBody(3, 1, 25, intro, full, article))
	e.acme.call(t, http.MethodGet, "/papi/topics?per_page=2&page=2", "", http.StatusOK, listBody(3, 2, 2, article))
	e.acme.call(t, http.MethodGet, "/papi/topics?per_page=2&page=3", "", http.StatusOK, listBody(3, 3, 2))
	e.acme.call(t, http.MethodGet, "/papi/topics?updated_after=2025-06-01T09:30:00", "", http.StatusOK, listBody(1, 1, 25, article))
	e.acme.call(t, http.MethodGet, "/papi/topics?updated_before=2025-06-01T09:31:00", "", http.StatusOK, listBody(2, 1, 25, intro, full))
	e.acme.call(t, http.MethodGet, "/papi/topics?page=x", "", http.StatusBadRequest, `"Bad request: Illegal value 'x' for 'page'"`)
	e.acme.call(t, http.MethodGet, "/papi/topics?updated_after=2025-06-01", "", http.StatusBadRequest,
		`"Bad request: Illegal value '2025-06-01' for 'updated_after'"`)

	// The other tenant sees none of it.
	e.other.call(t, http.MethodGet, "/papi/topics", "", http.StatusOK, catalogEmptyList)
	for _, path := range []string{"/papi/topics/1", "/papi/topics/2"} {
		e.other.call(t, http.MethodGet, path, "", http.StatusNotFound, `{"error":"not found"}`)
		e.other.call(t, http.MethodPut, path, `{"title":"Mine"}`, http.StatusNotFound, `{"error":"not found"}`)
	}
	e.acme.call(t, http.MethodGet, "/papi/topics/2", "", http.StatusOK, full)
	for _, path := range []string{"/abc", "/0", "/-1", "/99999999999999999999", "/4", "/1.0"} {
		e.acme.call(t, http.MethodGet, "/papi/topics"+path, "", http.StatusNotFound, `{"error":"not found"}`)
		e.acme.call(t, http.MethodPut, "/papi/topics"+path, `{"title":"x"}`, http.StatusNotFound, `{"error":"not found"}`)
	}
}

func TestTopicUpdate(t *testing.T) {
	t.Parallel()
	e := newTopicsEnv(t)
	e.acme.call(t, http.MethodPost, "/papi/topics", fullTopic, http.StatusCreated, wantTopic(1, "Fire-2025", fullTopicFields))
	later := usersStart.Add(time.Hour)
	e.clock.at(time.Hour)

	// The same values in other spellings change nothing: updated_at stays.
	e.acme.call(t, http.MethodPut, "/papi/topics/1", `{"title":"Fire safety","knowledge_type":2,"show_certificate":"true",
		"certify_days":"365","skills":["SQL","GO"],"categories":[{"name":"cpd","points":"2.00"},{"name":"Safety","minutes":15,"points":1.01}],
		"enrolment_code":"Fire-2025"}`, http.StatusOK, wantTopic(1, "Fire-2025", fullTopicFields))
	e.acme.call(t, http.MethodPut, "/papi/topics/1", `{}`, http.StatusOK, wantTopic(1, "Fire-2025", fullTopicFields))

	// Only the given fields change.
	changed := with(fullTopicFields, map[string]any{"title": "Fire drill", "minutes": 45, "updated_at": ts(later)})
	e.acme.call(t, http.MethodPut, "/papi/topics/1", `{"title":"Fire drill","minutes":45}`, http.StatusOK,
		wantTopic(1, "Fire-2025", changed))

	// "" clears: external_id, certify_days, skills, categories; minutes back to 0; a new spelling of the code.
	e.clock.at(2 * time.Hour)
	cleared := with(changed, map[string]any{"external_id": "", "certify_days": nil, "skills": "", "minutes": 0,
		"categories": json.RawMessage(`[]`), "knowledge_type": 1, "updated_at": ts(usersStart.Add(2 * time.Hour))})
	e.acme.call(t, http.MethodPut, "/papi/topics/1", `{"external_id":"","certify_days":"","skills":"","minutes":"",
		"categories":"","knowledge_type":null,"enrolment_code":"FIRE-2025"}`, http.StatusOK, wantTopic(1, "FIRE-2025", cleared))
	e.acme.call(t, http.MethodGet, "/papi/topics/1", "", http.StatusOK, wantTopic(1, "FIRE-2025", cleared))

	// null clears too; an empty code generates a new one.
	e.acme.call(t, http.MethodPut, "/papi/topics/1", `{"skills":["go"],"categories":[{"name":"CPD","minutes":5}]}`, http.StatusOK, "")
	w := e.acme.h.papi(http.MethodPut, e.acme.host, "/papi/topics/1", e.acme.key, `{"skills":null,"categories":null,"enrolment_code":""}`)
	var got struct {
		Skills     string
		Categories []any
		Code       string `json:"enrolment_code"`
	}
	assertResponse(t, w, http.StatusOK, "")
	decode(t, w, &got)
	if got.Skills != "" || len(got.Categories) != 0 || !strings.HasPrefix(got.Code, "TP-1-") || !generatedCode.MatchString(got.Code) {
		t.Fatalf("after clearing with null: %+v", got)
	}
	// The old code is free again.
	created(t, e.acme, "/papi/pathways", `{"title":"P","enrolment_code":"fire-2025"}`)
}

func TestTopicRefused(t *testing.T) {
	t.Parallel()
	e := newTopicsEnv(t)
	e.acme.call(t, http.MethodPost, "/papi/topics", fullTopic, http.StatusCreated, wantTopic(1, "Fire-2025", fullTopicFields))
	other := wantTopic(2, "OTHER", map[string]any{"title": "Other"})
	e.acme.call(t, http.MethodPost, "/papi/topics", `{"title":"Other","enrolment_code":"OTHER"}`, http.StatusCreated, other)
	created(t, e.acme, "/papi/pathways", `{"title":"Path","enrolment_code":"PATH-1","topics":[{"topic_id":1}]}`)
	before := e.topicCounts(t)
	long := strings.Repeat("é", 256)
	tests := []struct {
		name   string
		body   string
		status int
		want   string
	}{
		{"title missing", `{"minutes":1}`, http.StatusBadRequest, illegalBody("", "title")},
		{"title empty", `{"title":""}`, http.StatusBadRequest, illegalBody("", "title")},
		{"title blank", `{"title":"   "}`, http.StatusBadRequest, illegalBody("   ", "title")},
		{"title null", `{"title":null}`, http.StatusBadRequest, illegalBody("", "title")},
		{"title a number", `{"title":5}`, http.StatusBadRequest, illegalBody("5", "title")},
		{"title too long", `{"title":"` + long + `"}`, http.StatusBadRequest,
			errorBody("Bad request: title is too long (at most 255 characters)")},
		{"title with a NUL", `{"title":"A\u0000B"}`, http.StatusBadRequest, illegalBody("A\x00B", "title")},
		{"knowledge_type 3", `{"title":"T","knowledge_type":3}`, http.StatusBadRequest, illegalBody("3", "knowledge_type")},
		{"knowledge_type 0", `{"title":"T","knowledge_type":"0"}`, http.StatusBadRequest, illegalBody("0", "knowledge_type")},
		{"knowledge_type text", `{"title":"T","knowledge_type":"article"}`, http.StatusBadRequest, illegalBody("article", "knowledge_type")},
		{"knowledge_type 1.5", `{"title":"T","knowledge_type":1.5}`, http.StatusBadRequest, illegalBody("1.5", "knowledge_type")},
		{"external_id a number", `{"title":"T","external_id":12}`, http.StatusBadRequest, illegalBody("12", "external_id")},
		{"external_id too long", `{"title":"T","external_id":"` + long + `"}`, http.StatusBadRequest,
			errorBody("Bad request: external_id is too long (at most 255 characters)")},
		{"show_certificate maybe", `{"title":"T","show_certificate":"maybe"}`, http.StatusBadRequest, illegalBody("maybe", "show_certificate")},
		{"show_certificate empty", `{"title":"T","show_certificate":""}`, http.StatusBadRequest, illegalBody("", "show_certificate")},
		{"recertification_allowed 2", `{"title":"T","recertification_allowed":2}`, http.StatusBadRequest, illegalBody("2", "recertification_allowed")},
		{"certify_days 0", `{"title":"T","certify_days":0}`, http.StatusBadRequest, illegalBody("0", "certify_days")},
		{"certify_days negative", `{"title":"T","certify_days":"-5"}`, http.StatusBadRequest, illegalBody("-5", "certify_days")},
		{"certify_days fraction", `{"title":"T","certify_days":1.5}`, http.StatusBadRequest, illegalBody("1.5", "certify_days")},
		{"certify_days too big", `{"title":"T","certify_days":2147483648}`, http.StatusBadRequest, illegalBody("2147483648", "certify_days")},
		{"certify_days boolean", `{"title":"T","certify_days":true}`, http.StatusBadRequest, illegalBody("true", "certify_days")},
		{"minutes negative", `{"title":"T","minutes":-1}`, http.StatusBadRequest, illegalBody("-1", "minutes")},
		{"minutes text", `{"title":"T","minutes":"ten"}`, http.StatusBadRequest, illegalBody("ten", "minutes")},
		{"cpd_minutes fraction", `{"title":"T","cpd_minutes":"2.5"}`, http.StatusBadRequest, illegalBody("2.5", "cpd_minutes")},
		{"unknown skill", `{"title":"T","skills":"Go;Rust"}`, http.StatusBadRequest, illegalBody("Rust", "skills")},
		{"skill with a NUL", `{"title":"T","skills":"Go;S\u0000"}`, http.StatusBadRequest, illegalBody("Go;S\x00", "skills")},
		{"skills not names", `{"title":"T","skills":[1]}`, http.StatusBadRequest, illegalBody("[1]", "skills")},
		{"skills an object", `{"title":"T","skills":{"name":"Go"}}`, http.StatusBadRequest, illegalBody(`{"name":"Go"}`, "skills")},
		{"categories a string", `{"title":"T","categories":"CPD"}`, http.StatusBadRequest, illegalBody("CPD", "categories")},
		{"category not an object", `{"title":"T","categories":["CPD"]}`, http.StatusBadRequest, illegalBody("CPD", "categories")},
		{"unknown category", `{"title":"T","categories":[{"name":"Nope"}]}`, http.StatusBadRequest, illegalBody("Nope", "categories.name")},
		{"category without name", `{"title":"T","categories":[{"minutes":5}]}`, http.StatusBadRequest, illegalBody("", "categories.name")},
		{"category name a number", `{"title":"T","categories":[{"name":7}]}`, http.StatusBadRequest, illegalBody("7", "categories.name")},
		{"category twice", `{"title":"T","categories":[{"name":"CPD"},{"name":"cpd"}]}`, http.StatusBadRequest,
			errorBody("Bad request: category 'cpd' appears more than once in 'categories'")},
		{"category minutes negative", `{"title":"T","categories":[{"name":"CPD","minutes":-3}]}`, http.StatusBadRequest,
			illegalBody("-3", "categories.minutes")},
		{"category points text", `{"title":"T","categories":[{"name":"CPD","points":"many"}]}`, http.StatusBadRequest,
			illegalBody("many", "categories.points")},
		{"category points negative", `{"title":"T","categories":[{"name":"CPD","points":-1}]}`, http.StatusBadRequest,
			illegalBody("-1", "categories.points")},
		{"category points too big", `{"title":"T","categories":[{"name":"CPD","points":1e10}]}`, http.StatusBadRequest,
			illegalBody("1e10", "categories.points")},
		{"code with a space", `{"title":"T","enrolment_code":"FIRE 1"}`, http.StatusBadRequest,
			errorBody("Bad request: enrolment_code 'FIRE 1' must not contain white space or control characters")},
		{"code with a tab", `{"title":"T","enrolment_code":"FIRE\t1"}`, http.StatusBadRequest,
			errorBody("Bad request: enrolment_code 'FIRE\t1' must not contain white space or control characters")},
		{"code with a no-break space", `{"title":"T","enrolment_code":"FIRE\u00a01"}`, http.StatusBadRequest,
			errorBody("Bad request: enrolment_code 'FIRE\u00a01' must not contain white space or control characters")},
		{"code a number", `{"title":"T","enrolment_code":12}`, http.StatusBadRequest, illegalBody("12", "enrolment_code")},
		{"code too long", `{"title":"T","enrolment_code":"` + strings.Repeat("C", 65) + `"}`, http.StatusBadRequest,
			errorBody("Bad request: enrolment_code is too long (at most 64 characters)")},
		{"code taken by a topic", `{"title":"T","enrolment_code":"fire-2025"}`, http.StatusUnprocessableEntity,
			errorBody("enrolment_code 'fire-2025' is already taken")},
		{"code taken by a pathway", `{"title":"T","enrolment_code":"path-1"}`, http.StatusUnprocessableEntity,
			errorBody("enrolment_code 'path-1' is already taken")},
		{"malformed JSON", `{"title":`, http.StatusBadRequest, errorBody("Bad request: malformed JSON")},
		{"array body", `[{"title":"T"}]`, http.StatusBadRequest, errorBody("Bad request: request body must be a JSON object")},
		{"null body", `null`, http.StatusBadRequest, errorBody("Bad request: request body must be a JSON object")},
		{"two objects", `{"title":"T"}{"title":"U"}`, http.StatusBadRequest, errorBody("Bad request: request body must hold one JSON object")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.acme.call(t, http.MethodPost, "/papi/topics", tt.body, tt.status, tt.want)
			if tt.name != "title missing" { // an update need not name the title
				e.acme.call(t, http.MethodPut, "/papi/topics/2", tt.body, tt.status, tt.want)
			}
		})
	}
	// Nothing refused was saved and the topics are as they were; the next id is 3.
	e.assertTopicCounts(t, before)
	e.acme.call(t, http.MethodGet, "/papi/topics/1", "", http.StatusOK, wantTopic(1, "Fire-2025", fullTopicFields))
	e.acme.call(t, http.MethodGet, "/papi/topics/2", "", http.StatusOK, other)
	if id, _ := created(t, e.acme, "/papi/topics", `{"title":"Next"}`); id != 3 {
		t.Fatalf("next topic id %d, want 3", id)
	}

	for _, method := range []string{http.MethodPost, http.MethodPut} {
		path := map[string]string{http.MethodPost: "/papi/topics", http.MethodPut: "/papi/topics/1"}[method]
		w := do(e.h.public, request{method: method, host: e.acme.host, path: path, body: `{"title":"x"}`,
			headers: map[string]string{"Authorization": e.acme.key, "Content-Type": "text/plain"}})
		assertResponse(t, w, http.StatusNotAcceptable, `{"error":"Content-Type must be application/json"}`)
	}
}
