package handlers

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"learngate/handlers/handlertest"
)

// The bad-input corpus (docs/reliability.md, "Bad input"): malformed
// bodies of every kind sent to every POST and PUT route through the real
// router, each answered with the route's documented 400 or 413 and exact
// body, the tenant's rows unchanged.

// badRoute is a POST or PUT route and the 400 body it gives a message, in
// its own style (handlers/errors.go; docs/decisions.md).
type badRoute struct {
	fuzzRoute
	// body is the route's 400 body for msg (decodeStrict's wording, without
	// the user endpoints' "Bad request: " prefix).
	body func(msg string) string
	// noBody: the route takes no body, so an empty one is right.
	noBody bool
}

func plainError(msg string) string      { return jsonText(map[string]string{"error": msg}) }
func prefixedError(msg string) string   { return plainError("Bad request: " + msg) }
func prefixedMessage(msg string) string { return jsonText("Bad request: " + msg) }
func errorList(msg string) string       { return jsonText(map[string][]string{"errors": {msg}}) }
func knowledgeBatchError400(msg string) string {
	return jsonText(map[string]any{"error": "Bad request: " + msg, "index": nil, "user_name": nil})
}

// jsonText is v as compact JSON.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// badRoutes are every route of bodyRoutes with its 400 style.
func badRoutes() []badRoute {
	styles := map[string]func(string) string{
		"/papi/topics": prefixedError, "/papi/topics/1": prefixedError, "/papi/pathways": prefixedError,
		"/papi/pathways/1": prefixedError, "/papi/external_knowledges": prefixedError,
		"/papi/external_knowledges/1": prefixedError, "/papi/users": prefixedMessage, "/papi/users/ann": prefixedMessage,
		"/papi/users/batch_save": prefixedMessage, "/papi/external_knowledges/batch_save": knowledgeBatchError400,
		"/papi/topic_assignments": errorList,
	}
	out := make([]badRoute, 0, len(bodyRoutes))
	for _, r := range bodyRoutes {
		style := styles[r.path]
		if style == nil {
			style = plainError
		}
		noBody := strings.HasSuffix(r.path, "/rotate_secret") || strings.HasSuffix(r.path, "/test") || strings.HasSuffix(r.path, "/retry")
		out = append(out, badRoute{fuzzRoute: r, body: style, noBody: noBody})
	}
	return out
}

// chunkedBody is a request body of unknown length (no Content-Length).
type chunkedBody struct{ io.Reader }

func (chunkedBody) Close() error { return nil }

// assertCase is assertResponse naming the case.
func assertCase(t *testing.T, name string, w *httptest.ResponseRecorder, status int, body string) {
	t.Helper()
	t.Run(name, func(t *testing.T) { assertResponse(t, w, status, body) })
}

// fieldRoute is a route with a valid body whose fields the field tests
// replace one at a time; n makes its unique values unique.
type fieldRoute struct {
	fuzzRoute
	valid func(n int) map[string]any
}

func fieldRoutes() []fieldRoute {
	return []fieldRoute{
		{fuzzRoute{http.MethodPost, "/papi/roles"}, func(n int) map[string]any { return map[string]any{"name": fmt.Sprint("r", n)} }},
		{fuzzRoute{http.MethodPost, "/papi/custom_fields"}, func(n int) map[string]any {
			return map[string]any{"name": fmt.Sprint("f", n), "field_type": "list", "options": []any{"A", "B"}}
		}},
		{fuzzRoute{http.MethodPost, "/papi/topics"}, func(n int) map[string]any {
			return map[string]any{"title": "T", "knowledge_type": 1, "external_id": "E", "show_certificate": true,
				"recertification_allowed": false, "certify_days": 30, "minutes": 5, "cpd_minutes": 5, "skills": "Go",
				"categories": []any{map[string]any{"name": "Safety", "minutes": 1, "points": 1}}, "enrolment_code": fmt.Sprint("TC-", n)}
		}},
		{fuzzRoute{http.MethodPut, "/papi/topics/1"}, func(n int) map[string]any { return map[string]any{"title": "T", "minutes": 5} }},
		{fuzzRoute{http.MethodPost, "/papi/pathways"}, func(n int) map[string]any {
			return map[string]any{"title": "P", "external_id": "E", "ordered": true, "certify_days": 3,
				"topics": []any{map[string]any{"topic_id": 1, "mandatory": true}}, "skills": "Go", "enrolment_code": fmt.Sprint("PC-", n)}
		}},
		{fuzzRoute{http.MethodPost, "/papi/users"}, func(n int) map[string]any {
			return map[string]any{"user_name": fmt.Sprint("u", n), "first_name": "F", "last_name": "L",
				"email": fmt.Sprintf("u%d@example.com", n), "type": "Staff", "login": "internal", "active": true,
				"role_1": "Trainer", "groups": "Sales", "goals": []any{"Grow"}, "X-City": "Town", "X-Age": 3,
				"password": "Secret123", "team_leader_report_frequency": "every_day", "manager_email": "m@example.com"}
		}},
		{fuzzRoute{http.MethodPut, "/papi/users/ann"}, func(n int) map[string]any { return map[string]any{"first_name": "Ann"} }},
		{fuzzRoute{http.MethodPost, "/papi/external_knowledges"}, func(n int) map[string]any {
			return map[string]any{"user_name": "ann", "knowledge_type": 1, "title": "T", "provider": "P",
				"date_obtained": "2024-01-01", "notes": "N", "assessment_score": 1.5, "total_time": 3,
				"skills_attained": "Go", "category_1_name": "Safety", "category_1_points": 1}
		}},
		{fuzzRoute{http.MethodPut, "/papi/external_knowledges/1"}, func(n int) map[string]any { return map[string]any{"title": "T"} }},
		{fuzzRoute{http.MethodPost, "/papi/topic_assignments"}, func(n int) map[string]any {
			return map[string]any{"user_name": "ann", "enrolment_code_1": "T-1", "enrolment_code_1_due_date": "2030-01-01"}
		}},
		{fuzzRoute{http.MethodPost, "/papi/topic_assignments/1/progress"}, func(n int) map[string]any {
			return map[string]any{"status": "Exploring", "minutes": 1}
		}},
		{fuzzRoute{http.MethodPost, "/papi/webhooks"}, func(n int) map[string]any {
			return map[string]any{"url": "https://example.com/h", "events": []any{"user.created"}, "description": "d"}
		}},
		{fuzzRoute{http.MethodPut, "/papi/webhooks/1"}, func(n int) map[string]any {
			return map[string]any{"description": "d", "enabled": true}
		}},
	}
}

// sendFields sends body to r as JSON.
func (e *fuzzEnv) sendFields(t *testing.T, r fuzzRoute, body map[string]any) *httptest.ResponseRecorder {
	t.Helper()
	return e.send(t, e.bodyRequest(r, jsonText(body)))
}

// sqlInjections are strings that would change a statement built by string
// formatting; parameters store them as text.
var sqlInjections = []string{
	`x'); DROP TABLE users; --`, `' OR '1'='1`, `"; DROP SCHEMA public CASCADE; --`, `$1`, `\'; SELECT pg_sleep(10); --`,
}

// tableCount is how many tables the tenant's schema and public hold.
func (e *fuzzEnv) tableCount(t *testing.T) int {
	t.Helper()
	var n int
	err := e.h.db.Pool().GetContext(t.Context(), &n, `SELECT count(*) FROM information_schema.tables
		WHERE table_schema IN ($1, 'public') AND table_type = 'BASE TABLE'`, e.schema)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// listHasUpdatedFilter reports whether the list at path reads
// updated_after and updated_before.
func listHasUpdatedFilter(path string) bool {
	for _, p := range []string{"/papi/roles", "/papi/groups", "/papi/goals", "/papi/skills", "/papi/categories",
		"/papi/custom_fields", "/papi/webhooks", "/papi/webhooks/1/deliveries", "/papi/topics", "/papi/pathways"} {
		if p == path {
			return false
		}
	}
	return true
}

func TestBadInputLimits(t *testing.T) {
	t.Parallel()
	e := newFuzzEnv(t)
	user := func(name, city string) string {
		return jsonText(map[string]string{"user_name": name, "first_name": "F", "last_name": "L",
			"email": name + "@example.com", "X-City": city})
	}
	t.Run("string custom value of 256 characters (B4)", func(t *testing.T) {
		assertResponse(t, e.ct.h.papi(http.MethodPost, e.ct.host, "/papi/users", e.ct.key, user("long", strings.Repeat("é", 256))),
			http.StatusBadRequest, `"Bad request: X-City is too long (at most 255 characters)"`)
		assertResponse(t, e.ct.h.papi(http.MethodPut, e.ct.host, "/papi/users/ann", e.ct.key, `{"X-City":"`+strings.Repeat("a", 256)+`"}`),
			http.StatusBadRequest, `"Bad request: X-City is too long (at most 255 characters)"`)
		w := e.ct.h.papi(http.MethodPost, e.ct.host, "/papi/users", e.ct.key, user("fits", strings.Repeat("é", 255)))
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), strings.Repeat("é", 255)) {
			t.Fatalf("255 characters: %d %s", w.Code, handlertest.Truncate(w.Body.String(), 200))
		}
	})
	t.Run("list field of 201 options (B5)", func(t *testing.T) {
		options := make([]string, 201)
		for i := range options {
			options[i] = fmt.Sprint("o", i)
		}
		body := map[string]any{"name": "Many", "field_type": "list", "options": options}
		assertResponse(t, e.ct.h.papi(http.MethodPost, e.ct.host, "/papi/custom_fields", e.ct.key, jsonText(body)),
			http.StatusBadRequest, `{"error":"a list field may have at most 200 options"}`)
		body["options"] = options[:200]
		if w := e.ct.h.papi(http.MethodPost, e.ct.host, "/papi/custom_fields", e.ct.key, jsonText(body)); w.Code != http.StatusCreated {
			t.Fatalf("200 options: %d %s", w.Code, handlertest.Truncate(w.Body.String(), 200))
		}
	})
}

func TestBadInputHosts(t *testing.T) {
	t.Parallel()
	e := newFuzzEnv(t)
	unknown := `{"error":"unknown organisation"}`
	for _, tt := range []struct {
		host   string
		status int
		body   string
	}{
		{"FUZZ.Learngate.Localhost.:8080", http.StatusOK, `{"organisation":"fuzz"}`},
		{"fuzz.learngate.localhost\r\nX-Evil: 1", http.StatusNotFound, unknown},
		{"fuzz.learngate.localhost\x00", http.StatusNotFound, unknown},
		{"fuzz.learngate.localhost@evil.example", http.StatusNotFound, unknown},
		{"evil.example/fuzz.learngate.localhost", http.StatusNotFound, unknown},
		{"x.fuzz.learngate.localhost", http.StatusNotFound, unknown},
		{"[::1]:80", http.StatusNotFound, unknown},
		{"unknown.invalid", http.StatusNotFound, unknown},
		{strings.Repeat("a", 10_000) + ".learngate.localhost", http.StatusNotFound, unknown},
		{"%66uzz.learngate.localhost", http.StatusNotFound, unknown},
	} {
		t.Run(fmt.Sprintf("%q", handlertest.Truncate(tt.host, 40)), func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "/papi/ping", nil)
			req.Header.Set("Authorization", e.ct.key)
			req.Host = tt.host
			assertResponse(t, e.send(t, req), tt.status, tt.body)
		})
	}
}
