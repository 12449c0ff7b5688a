package handlers

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"
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

// nested is depth opening brackets, then as many closing ones when closed.
func nested(depth int, closed bool) string {
	s := strings.Repeat("[", depth)
	if closed {
		s += strings.Repeat("]", depth)
	}
	return s
}

// chunkedBody is a request body of unknown length (no Content-Length).
type chunkedBody struct{ io.Reader }

func (chunkedBody) Close() error { return nil }

func TestBadInputBodies(t *testing.T) {
	t.Parallel()
	e := newFuzzEnv(t)
	const (
		notObject = "request body must be a JSON object"
		malformed = "malformed JSON"
		notOne    = "request body must hold one JSON object"
	)
	huge := `{"name":"` + strings.Repeat("a", MaxBodyBytes) + `"}`
	cases := []struct {
		name, body, msg string
	}{
		{"empty", "", notObject},
		{"white space only", " \r\n\t ", notObject},
		{"truncated object", `{"name":`, malformed},
		{"one brace", `{`, malformed},
		{"unclosed string", `{"name":"abc`, malformed},
		{"single quotes", `{'name':'x'}`, malformed},
		{"trailing comma", `{"name":"x",}`, malformed},
		{"comment", `{"name":"x" /* c */}`, malformed},
		{"bare word", `name`, malformed},
		{"raw NUL byte", "{\"name\":\"a\x00b\"}", malformed},
		{"raw control character", "{\"name\":\"a\x01b\"}", malformed},
		{"invalid UTF-8 outside a string", "{\"name\":\"x\"\xff}", malformed},
		{"array", `[{"name":"x"}]`, notObject},
		{"string", `"x"`, notObject},
		{"number", `1`, notObject},
		{"boolean", `true`, notObject},
		{"null", `null`, notObject},
		{"two objects", `{} {}`, notOne},
		{"object then garbage", `{} garbage`, notOne},
		// Past the decoding bounds (docs/decisions.md, "Bodies and hostile input"): 413.
		{"100k open brackets", nested(100_000, false), ""},
		{"100k nested arrays", nested(100_000, true), ""},
		{"100k nested arrays in an object", `{"name":` + nested(100_000, true) + `}`, ""},
		{"10k nested objects", strings.Repeat(`{"a":`, 10_001) + "1" + strings.Repeat("}", 10_001), ""},
		{"65 nested arrays", `{"name":` + nested(64, true) + `}`, ""},
		{"100,001 values", `{"name":[` + strings.Repeat("1,", 99_998) + `1]}`, ""},
	}
	for _, r := range badRoutes() {
		t.Run(r.method+" "+r.path, func(t *testing.T) {
			before := e.fingerprint(t)
			for _, tt := range cases {
				if r.noBody && strings.TrimSpace(tt.body) == "" {
					continue
				}
				w := e.send(t, e.bodyRequest(r.fuzzRoute, tt.body))
				if tt.msg == "" {
					assertCase(t, tt.name, w, http.StatusRequestEntityTooLarge, `{"error":"request body too large"}`)
					continue
				}
				assertCase(t, tt.name, w, http.StatusBadRequest, r.body(tt.msg))
			}
			// Over MaxBodyBytes, with its length declared and not.
			w := e.send(t, e.bodyRequest(r.fuzzRoute, huge))
			assertCase(t, "huge body, length declared", w, http.StatusRequestEntityTooLarge, `{"error":"request body too large"}`)
			req := e.bodyRequest(r.fuzzRoute, "")
			req.Body, req.ContentLength = chunkedBody{strings.NewReader(huge)}, -1
			w = e.send(t, req)
			assertCase(t, "huge body, length not declared", w, http.StatusRequestEntityTooLarge, `{"error":"request body too large"}`)
			if !r.noBody {
				if after := e.fingerprint(t); after != before {
					t.Fatalf("refused bodies changed the tenant's rows")
				}
			}
		})
	}
}

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

func TestBadInputWrongTypes(t *testing.T) {
	t.Parallel()
	e := newFuzzEnv(t)
	n := 0
	for _, r := range fieldRoutes() {
		t.Run(r.method+" "+r.path, func(t *testing.T) {
			n++
			if w := e.sendFields(t, r.fuzzRoute, r.valid(n)); w.Code >= 300 {
				t.Fatalf("valid body answered %d %s", w.Code, w.Body.String())
			}
			for field := range r.valid(0) {
				for _, wrong := range []any{map[string]any{"a": 1}, json.RawMessage(`1e999`), []any{[]any{}}} {
					n++
					body := r.valid(n)
					body[field] = wrong
					before := e.fingerprint(t)
					w := e.sendFields(t, r.fuzzRoute, body)
					if w.Code < 400 || w.Code >= 500 {
						t.Errorf("%s = %s: status %d, want a 4xx; body %s", field, jsonText(wrong), w.Code, w.Body.String())
						continue
					}
					if !strings.Contains(w.Body.String(), field) && !strings.Contains(strings.ToLower(w.Body.String()), strings.ToLower(field)) {
						t.Errorf("%s = %s: %d %s does not name the field", field, jsonText(wrong), w.Code, w.Body.String())
					}
					if e.fingerprint(t) != before {
						t.Errorf("%s = %s: refused but the tenant's rows changed", field, jsonText(wrong))
					}
				}
			}
		})
	}
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

func TestBadInputSQLInjection(t *testing.T) {
	t.Parallel()
	e := newFuzzEnv(t)
	tables := e.tableCount(t)
	n := 0
	for _, r := range fieldRoutes() {
		t.Run(r.method+" "+r.path, func(t *testing.T) {
			for field, v := range r.valid(0) {
				if _, ok := v.(string); !ok {
					continue
				}
				for _, inj := range sqlInjections {
					n++
					body := r.valid(n)
					body[field] = inj + fmt.Sprint(n)
					w := e.sendFields(t, r.fuzzRoute, body)
					if w.Code >= 500 {
						t.Errorf("%s = %q: status %d %s", field, inj, w.Code, w.Body.String())
					}
				}
			}
		})
	}
	if got := e.tableCount(t); got != tables {
		t.Fatalf("tables: %d, want %d", got, tables)
	}
	// Free text is stored as sent, quotes and all.
	for _, inj := range sqlInjections {
		w := e.ct.h.papi(http.MethodPost, e.ct.host, "/papi/roles", e.ct.key, jsonText(map[string]string{"name": inj}))
		var got struct{ Name string }
		decode(t, w, &got)
		if w.Code != http.StatusCreated || got.Name != inj {
			t.Fatalf("role %q: %d %s", inj, w.Code, w.Body.String())
		}
	}
	assertResponse(t, e.ct.h.papi(http.MethodGet, e.ct.host, "/papi/users/ann", e.ct.key, ""), http.StatusOK, "")
}

func TestBadInputOverlong(t *testing.T) {
	t.Parallel()
	e := newFuzzEnv(t)
	long := strings.Repeat("é", 1<<19) // 1 MiB of UTF-8
	n := 0
	for _, r := range fieldRoutes() {
		t.Run(r.method+" "+r.path, func(t *testing.T) {
			for field, v := range r.valid(0) {
				var over any
				switch v := v.(type) {
				case string:
					over = long
				case []any:
					items := make([]any, 10_000)
					for i := range items {
						items[i] = v[0]
						if name, ok := v[0].(string); ok {
							items[i] = fmt.Sprint(name, i) // duplicates would collapse into one
						}
					}
					over = items
				default:
					continue
				}
				if r.path == "/papi/external_knowledges" && field == "skills_attained" {
					continue // unknown skills are ignored (docs/api.md, "External knowledge"), however long
				}
				n++
				body := r.valid(n)
				body[field] = over
				before := e.fingerprint(t)
				w := e.sendFields(t, r.fuzzRoute, body)
				if w.Code < 400 || w.Code >= 500 {
					t.Errorf("%s overlong: status %d, want a 4xx; body %s", field, w.Code, truncate(w.Body.String(), 300))
					continue
				}
				if e.fingerprint(t) != before {
					t.Errorf("%s overlong: refused but the tenant's rows changed", field)
				}
				if msg := longestMessage(t, w); utf8.RuneCountInString(msg) > maxMessageLength {
					t.Errorf("%s overlong: a %d-character message %q", field, utf8.RuneCountInString(msg), truncate(msg, 300))
				}
			}
		})
	}
}

func TestBadInputQueries(t *testing.T) {
	t.Parallel()
	e := newFuzzEnv(t)
	get := func(t *testing.T, path, query string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.URL.RawQuery = query
		req.Header.Set("Authorization", e.ct.key)
		return e.send(t, req)
	}
	// Every list refuses a bad page, per_page or time bound with the bare
	// string of docs/decisions.md, "Lists and paging", and takes the rest
	// without a 5xx.
	for _, path := range listRoutes {
		if path == "/papi/certificates" {
			continue
		}
		t.Run(path, func(t *testing.T) {
			before := e.fingerprint(t)
			for _, tt := range []struct{ query, param, value string }{
				{"page=abc", "page", "abc"},
				{"per_page=1%27%20OR%201=1", "per_page", "1' OR 1=1"},
				{"page=1e3", "page", "1e3"},
				{"per_page=%00", "per_page", "\x00"},
				{"updated_after=2024-01-01T00:00:00Z", "updated_after", "2024-01-01T00:00:00Z"},
				{"updated_before=%27%3BDROP%20TABLE%20users%3B--", "updated_before", "';DROP TABLE users;--"},
			} {
				if strings.HasPrefix(tt.param, "updated_") && !listHasUpdatedFilter(path) {
					continue
				}
				w := get(t, path, tt.query)
				assertCase(t, tt.query, w, http.StatusBadRequest,
					jsonText(fmt.Sprintf("Bad request: Illegal value '%s' for '%s'", tt.value, tt.param)))
			}
			for _, q := range []string{
				"user_name=%27%20OR%20%271%27=%271", "email=x%27%20OR%201=1--", "x-city=%25%27--", "active=",
				"user_name=" + strings.Repeat("a", 100_000), "email=" + strings.Repeat("%27", 10_000),
				"page=99999999999999", "per_page=99999999999999", "page=1&page=x", "%zz=1", "api_key=%00",
			} {
				w := get(t, path, q)
				if w.Code >= 500 || (w.Code != http.StatusOK && w.Code != http.StatusBadRequest) {
					t.Errorf("%s?%s: status %d %s", path, truncate(q, 60), w.Code, w.Body.String())
				}
			}
			if e.fingerprint(t) != before {
				t.Fatalf("reads changed the tenant's rows")
			}
		})
	}
	// Text filters holding what PostgreSQL text cannot (B6).
	for _, tt := range []struct{ path, query, param, value string }{
		{"/papi/users", "email=a%00b", "email", "a\x00b"},
		{"/papi/users", "email=%ff", "email", "\xff"},
		{"/papi/users", "x-city=%00", "x-city", "\x00"},
		{"/papi/users", "X-City=ok%c3", "X-City", "ok\xc3"},
		{"/papi/users", "x-%00=1", "x-\x00", "x-\x00"},
		{"/papi/external_knowledges", "user_name=%00", "user_name", "\x00"},
	} {
		t.Run(tt.path+"?"+tt.query, func(t *testing.T) {
			assertResponse(t, get(t, tt.path, tt.query), http.StatusBadRequest,
				jsonText(fmt.Sprintf("Bad request: Illegal value '%s' for '%s'", tt.value, tt.param)))
		})
	}
	// The enrolment lists' user_name too (it named nothing before, 200:
	// docs/decisions.md, "Bodies and hostile input" makes it bad input).
	for _, tt := range []struct{ path, value string }{
		{"/papi/topic_assignments?user_name=%ff%fe", "\xff\xfe"},
		{"/papi/pathway_assignments/by_pathway/1?user_name=a%00", "a\x00"},
	} {
		t.Run(tt.path, func(t *testing.T) {
			p, q, _ := strings.Cut(tt.path, "?")
			assertResponse(t, get(t, p, q), http.StatusBadRequest,
				jsonText(fmt.Sprintf("Bad request: Illegal value '%s' for 'user_name'", tt.value)))
		})
	}
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
			t.Fatalf("255 characters: %d %s", w.Code, truncate(w.Body.String(), 200))
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
			t.Fatalf("200 options: %d %s", w.Code, truncate(w.Body.String(), 200))
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
		t.Run(fmt.Sprintf("%q", truncate(tt.host, 40)), func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "/papi/ping", nil)
			req.Header.Set("Authorization", e.ct.key)
			req.Host = tt.host
			assertResponse(t, e.send(t, req), tt.status, tt.body)
		})
	}
}
