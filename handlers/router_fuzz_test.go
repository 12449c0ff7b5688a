package handlers

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"

	"learngate/handlers/handlertest"
	"learngate/handlers/httpx"
	"learngate/tenant"
)

// Whole-request fuzz targets through the real router and database
// (docs/reliability.md, "Bad input"). Every answer must be a 2xx or a 4xx
// whose body is the one docs/openapi.yaml gives the route (so a 4xx has the
// route's error shape), never a 5xx or a panic; a 4xx must leave the
// tenant's rows as they were.

// fuzzRoute is one route a fuzz target sends requests to.
type fuzzRoute struct{ method, path string }

// bodyRoutes are every POST and PUT route of the public router, with ids
// that exist in the fuzz tenant (fuzzEnv.seed).
var bodyRoutes = []fuzzRoute{
	{http.MethodPost, "/papi/roles"}, {http.MethodPost, "/papi/groups"}, {http.MethodPost, "/papi/goals"},
	{http.MethodPost, "/papi/skills"}, {http.MethodPost, "/papi/categories"}, {http.MethodPost, "/papi/custom_fields"},
	{http.MethodPost, "/papi/topics"}, {http.MethodPut, "/papi/topics/1"},
	{http.MethodPost, "/papi/pathways"}, {http.MethodPut, "/papi/pathways/1"},
	{http.MethodPost, "/papi/users"}, {http.MethodPut, "/papi/users/ann"}, {http.MethodPost, "/papi/users/batch_save"},
	{http.MethodPost, "/papi/external_knowledges"}, {http.MethodPut, "/papi/external_knowledges/1"},
	{http.MethodPost, "/papi/external_knowledges/batch_save"},
	{http.MethodPost, "/papi/topic_assignments"}, {http.MethodPost, "/papi/topic_assignments/1/progress"},
	{http.MethodPost, "/papi/webhooks"}, {http.MethodPut, "/papi/webhooks/1"},
	{http.MethodPost, "/papi/webhooks/1/rotate_secret"}, {http.MethodPost, "/papi/webhooks/1/test"},
	{http.MethodPost, "/papi/webhooks/1/deliveries/1/retry"},
}

// listRoutes are every GET route of the public router that reads query
// parameters (the lists and the certificate request).
var listRoutes = []string{
	"/papi/roles", "/papi/groups", "/papi/goals", "/papi/skills", "/papi/categories", "/papi/custom_fields",
	"/papi/topics", "/papi/pathways", "/papi/users", "/papi/external_knowledges",
	"/papi/topic_assignments", "/papi/topic_assignments/by_topic/1", "/papi/topic_assignments/by_user/1",
	"/papi/topic_assignments/user/ann", "/papi/pathway_assignments", "/papi/pathway_assignments/by_pathway/1",
	"/papi/pathway_assignments/by_user/1", "/papi/webhooks", "/papi/webhooks/1/deliveries", "/papi/certificates",
}

// fuzzEnv is a node with one seeded tenant ("fuzz", no reachable rate limit).
type fuzzEnv struct {
	h      *harness
	raw    http.Handler // the public router without the contract wrapper
	rawOps http.Handler
	ct     catalogTenant
	schema string
}

// newFuzzEnv builds the node and seeds its tenant with one of everything.
func newFuzzEnv(tb testing.TB) *fuzzEnv {
	tb.Helper()
	h := newHarness(tb, harnessOptions{})
	limit := int64(tenant.MaxRateLimit)
	tn, key, err := h.registry.Create(context.Background(), tenant.NewTenantInput{Slug: "fuzz", RateLimitPerMinute: &limit})
	if err != nil {
		tb.Fatal(err)
	}
	raw, err := h.server.PublicRouter()
	if err != nil {
		tb.Fatal(err)
	}
	e := &fuzzEnv{h: h, raw: raw, rawOps: h.server.OpsRouter(), schema: tn.Schema,
		ct: catalogTenant{h: h, host: "fuzz.learngate.localhost", key: key}}
	e.seed(tb)
	return e
}

// seed gives the tenant a role, group, goal, skill, category, custom field
// of each type, topic 1 (T-1), pathway 1 (P-1), user ann (id 1) enrolled in
// both, external knowledge record 1 and webhook 1.
func (e *fuzzEnv) seed(tb testing.TB) {
	tb.Helper()
	for _, c := range []struct {
		method, path, body string
		status             int
	}{
		{http.MethodPost, "/papi/roles", `{"name":"Trainer"}`, http.StatusCreated},
		{http.MethodPost, "/papi/groups", `{"name":"Sales"}`, http.StatusCreated},
		{http.MethodPost, "/papi/goals", `{"name":"Grow"}`, http.StatusCreated},
		{http.MethodPost, "/papi/skills", `{"name":"Go"}`, http.StatusCreated},
		{http.MethodPost, "/papi/categories", `{"name":"Safety"}`, http.StatusCreated},
		{http.MethodPost, "/papi/custom_fields", `{"name":"City","field_type":"string"}`, http.StatusCreated},
		{http.MethodPost, "/papi/custom_fields", `{"name":"Age","field_type":"number"}`, http.StatusCreated},
		{http.MethodPost, "/papi/custom_fields", `{"name":"Start","field_type":"date"}`, http.StatusCreated},
		{http.MethodPost, "/papi/custom_fields", `{"name":"Langs","field_type":"list","options":["Go","SQL"]}`, http.StatusCreated},
		{http.MethodPost, "/papi/topics", `{"title":"T","enrolment_code":"T-1","certify_days":30,"show_certificate":true}`, http.StatusCreated},
		{http.MethodPost, "/papi/pathways", `{"title":"P","enrolment_code":"P-1","topics":[{"topic_id":1}]}`, http.StatusCreated},
		{http.MethodPost, "/papi/users", `{"user_name":"ann","first_name":"Ann","last_name":"Lee","email":"ann@example.com"}`, http.StatusOK},
		{http.MethodPost, "/papi/topic_assignments", `{"user_name":"ann","enrolment_code_1":"T-1","enrolment_code_2":"P-1"}`, http.StatusOK},
		{http.MethodPost, "/papi/external_knowledges", `{"user_name":"ann","knowledge_type":1,"title":"First aid","date_obtained":"2024-01-01"}`, http.StatusCreated},
		{http.MethodPost, "/papi/webhooks", `{"url":"https://example.com/hook","events":["*"]}`, http.StatusCreated},
	} {
		e.ct.call(tb, c.method, c.path, c.body, c.status, "")
	}
}

// send serves one request through the public router, checking the exchange
// against the OpenAPI document as a failure of t.
func (e *fuzzEnv) send(t *testing.T, req *http.Request) *httptest.ResponseRecorder {
	t.Helper()
	if req.Host == "" || req.Host == "example.com" {
		req.Host = e.ct.host
	}
	if req.RemoteAddr == "" {
		req.RemoteAddr = "192.0.2.1:1234"
	}
	w := httptest.NewRecorder()
	contractHandler{t: t, next: e.raw, listener: publicListener, contract: mustContract(t)}.ServeHTTP(w, req)
	return w
}

// bodyRequest is an authenticated JSON request of r carrying body.
func (e *fuzzEnv) bodyRequest(r fuzzRoute, body string) *http.Request {
	req := httptest.NewRequest(r.method, r.path, strings.NewReader(body))
	req.Host = e.ct.host
	req.Header.Set("Authorization", e.ct.key)
	req.Header.Set("Content-Type", "application/json")
	return req
}

// fingerprint sums up every row of every table of the tenant's schema in
// one statement: equal fingerprints, equal rows.
func (e *fuzzEnv) fingerprint(tb testing.TB) string {
	tb.Helper()
	ctx := context.Background()
	tdb, err := e.h.db.Tenant(e.schema)
	if err != nil {
		tb.Fatal(err)
	}
	var sum string
	err = tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		var tables []string
		if err := tx.SelectContext(ctx, &tables, `SELECT table_name FROM information_schema.tables
			WHERE table_schema = $1 AND table_type = 'BASE TABLE' ORDER BY table_name`, e.schema); err != nil {
			return err
		}
		parts := make([]string, len(tables))
		for i, table := range tables {
			parts[i] = `(SELECT count(*)::text || ':' || coalesce(md5(string_agg(t::text, ',' ORDER BY t::text)), '') FROM ` +
				`"` + table + `" t)`
		}
		return tx.GetContext(ctx, &sum, `SELECT concat_ws('|', `+strings.Join(parts, ", ")+`)`)
	})
	if err != nil {
		tb.Fatalf("fingerprint of %s: %v", e.schema, err)
	}
	return sum
}

// checkAnswer fails t unless w is a 2xx or 4xx with a JSON body (or no body
// for 204).
func checkAnswer(t *testing.T, what string, w *httptest.ResponseRecorder) {
	t.Helper()
	if w.Code < 200 || w.Code >= 500 {
		t.Fatalf("%s: status %d, body %s", what, w.Code, w.Body.String())
	}
	if w.Code != http.StatusNoContent && !json.Valid(w.Body.Bytes()) {
		t.Fatalf("%s: status %d, body is not JSON: %q", what, w.Code, w.Body.String())
	}
}

// routeSeedBodies are valid and nasty bodies for the body fuzz targets.
var routeSeedBodies = []string{
	`{"name":"Auditor"}`, `{"name":"Town","field_type":"list","options":["A","B"]}`,
	`{"title":"T2","knowledge_type":"2","skills":"Go;SQL","categories":[{"name":"Safety","minutes":"15","points":"1.005"}]}`,
	`{"title":"P2","ordered":"yes","topics":[{"topic_id":"1","mandatory":"no"}]}`,
	`{"user_name":"bob","first_name":"B","last_name":"B","email":"bob@example.com","role_1":"Trainer","groups":"Sales","X-City":"x"}`,
	`{"people":[{"user_name":"cat","first_name":"C","last_name":"C","email":"c@example.com","enrolment_code_1":"T-1 COMPLETE"}]}`,
	`{"external_knowledges":[{"user_name":"ann","type":"Training","title":"A","date":"01/02/24","category_1_name":"Safety"}]}`,
	`{"user_name":"ann","enrolment_code_1":"T-1 UPDATE","enrolment_code_1_due_date":"31/12/2030"}`,
	`{"status":"exploring","minutes":5}`, `{"url":"https://example.org/h","events":["user.created"],"description":"d"}`,
	`{"enabled":false}`, `{}`, `[]`, `null`, `"x"`, `1`, `{`, `{"name":"a"}{}`, `{"name":"a"} x`, "\xff\xfe",
	`{"name":"'; DROP TABLE roles; --"}`, `{"title":"x' OR '1'='1","external_id":"\u0000"}`,
	`{"name":"\u0000"}`, "{\"name\":\"\xc3\x28\"}", `{"name":1}`, `{"name":{"a":[]}}`, `{"name":null}`,
	`{"user_name":"ann","people":[null,1,[],{}],"external_knowledges":{}}`,
	`{"name":"` + strings.Repeat("n", 5000) + `"}`, strings.Repeat("[", 20000), `{"a":` + strings.Repeat(`{"a":`, 5000),
	// NUL characters (docs/decisions.md, "Bodies and hostile input"): 400 in the route's shape, a batch row's error.
	`{"name":"L","field_type":"list","options":["x","a\u0000b"]}`, `{"url":"https://example.org/h","events":["*"],"description":"\u0000"}`,
	`{"people":[{"user_name":"ok","first_name":"O","last_name":"K","email":"ok@example.com"},{"user_name":"a\u0000b"}]}`,
	`{"user_name":"ann","enrolment_code_1":"T-1\u0000 COMPLETE"}`, `{"title":"T\u0000","enrolment_code":"\u0000"}`,
	`{"external_knowledges":[{"user_name":"a\u0000","type":"Training","title":"A","date":"01/02/24"}]}`,
	// Past the decoding bounds: 413.
	`{"name":` + strings.Repeat("[", 65) + strings.Repeat("]", 65) + `}`, `{"name":[` + strings.Repeat("1,", 100_000) + `1]}`,
}

// FuzzPublicBodies sends a fuzzed body to one POST or PUT route of the
// public router (route picks it from bodyRoutes).
func FuzzPublicBodies(f *testing.F) {
	for i, s := range routeSeedBodies {
		f.Add(uint8(i), s)
	}
	e := newFuzzEnv(f)
	f.Fuzz(func(t *testing.T, route uint8, body string) {
		r := bodyRoutes[int(route)%len(bodyRoutes)]
		before := e.fingerprint(t)
		w := e.send(t, e.bodyRequest(r, body))
		what := r.method + " " + r.path + " with " + handlertest.Truncate(body, 500)
		checkAnswer(t, what, w)
		if w.Code >= 400 && e.fingerprint(t) != before {
			t.Fatalf("%s: answered %d %s but changed the tenant's rows", what, w.Code, w.Body.String())
		}
	})
}

// FuzzListQueries sends a fuzzed query string to one list route (route
// picks it from listRoutes).
func FuzzListQueries(f *testing.F) {
	for i, q := range []string{
		"", "page=2&per_page=1", "page=abc", "per_page=-1", "per_page=99999999999999999999", "page=0",
		"updated_after=2024-01-01T00:00:00&updated_before=2030-01-01T00:00:00", "updated_after=2024-13-01T00:00:00",
		"updated_after=2024-01-01T00:00:00Z", "active=maybe", "active=", "email=%27%20OR%201%3D1--",
		"x-city=%25&x-age=1e3&x-start=2024-02-30&x-langs=go,%00", "topic_ids=1,2,,x", "topic_id=-1&user_id=1e3",
		"user_name=ANN&pathway_ids=9223372036854775808", "topic_assignment_id=1", "pathway_assignment_id=1&topic_assignment_id=1",
		"topic_assignment_id=1&topic_assignment_id=2", "%zz=1&page=%", "page=1;per_page=2", "user_name=%00%ff",
		"email=" + strings.Repeat("a", 10000), "topic_ids=" + strings.Repeat("1,", 5000),
		"user_name=a%00b", "x-city=a%00b&email=%00", "user_name=%00&topic_ids=1",
	} {
		f.Add(uint8(i), q)
	}
	e := newFuzzEnv(f)
	f.Fuzz(func(t *testing.T, route uint8, query string) {
		path := listRoutes[int(route)%len(listRoutes)]
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.URL.RawQuery = query
		req.Header.Set("Authorization", e.ct.key)
		before := e.fingerprint(t)
		w := e.send(t, req)
		what := "GET " + path + "?" + handlertest.Truncate(query, 500)
		checkAnswer(t, what, w)
		if w.Code >= 400 && e.fingerprint(t) != before {
			t.Fatalf("%s: answered %d but changed the tenant's rows", what, w.Code)
		}
	})
}

// FuzzRequestHeaders sends POST /papi/roles with fuzzed Host, X-Request-Id,
// Authorization and Content-Type headers, set as they come (no net/http
// checks): the answer is never a 5xx, the echoed request id is sane, no
// response header carries a control character, and a refused request
// saves nothing.
func FuzzRequestHeaders(f *testing.F) {
	for _, s := range [][4]string{
		{"fuzz.learngate.localhost", "req-1", "", "application/json"},
		{"FUZZ.Learngate.Localhost.:8080", "a\r\nX-Evil: 1", "Bearer ", "application/json; charset=utf-8"},
		{"fuzz.learngate.localhost\r\nX-Evil: 1", "\x00", "bearer  x", "text/plain"},
		{"", strings.Repeat("a", 65), "\x7f", "application/json; charset"},
		{"[::1]:80", "é", "lg_" + strings.Repeat("A", 43), "application/json;;"},
		{"fuzz.learngate.localhost:99999", "id", "Basic dXNlcjpwYXNz", "APPLICATION/JSON"},
		{"x.fuzz.learngate.localhost", "ok", "key key", "multipart/form-data; boundary=x"},
		{"fuzz.learngate.localhost/evil", "ok", "\r\n", ""},
		{"evil.example\x00", "ok", "x", "application/json"}, // B12
	} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	e := newFuzzEnv(f)
	f.Fuzz(func(t *testing.T, host, requestID, auth, contentType string) {
		req := httptest.NewRequest(http.MethodPost, "/papi/roles", strings.NewReader(`{"name":"Fuzzed"}`))
		req.Host = host
		if host == "" || host == "example.com" {
			req.Host = "unknown.invalid" // send would put the tenant's host
		}
		req.Header["X-Request-Id"] = []string{requestID}
		if auth != "" {
			req.Header["Authorization"] = []string{auth, e.ct.key}
		}
		req.Header["Content-Type"] = []string{contentType}
		before := e.fingerprint(t)
		w := e.send(t, req)
		checkAnswer(t, "POST /papi/roles with headers", w)
		if id := w.Header().Get("X-Request-Id"); !httpx.ValidRequestID(id) {
			t.Fatalf("X-Request-Id echoed as %q", id)
		}
		for name, values := range w.Header() {
			for _, v := range values {
				if strings.ContainsAny(v, "\r\n\x00") {
					t.Fatalf("response header %s = %q carries a control character", name, v)
				}
			}
		}
		if w.Code >= 400 && e.fingerprint(t) != before {
			t.Fatalf("answered %d but changed the tenant's rows", w.Code)
		}
		if w.Code == http.StatusCreated { // let the same name pass next time
			del := httptest.NewRequest(http.MethodDelete, "/papi/roles/"+jsonID(t, w), nil)
			del.Header.Set("Authorization", e.ct.key)
			assertResponse(t, e.send(t, del), http.StatusNoContent, "")
		}
	})
}

// jsonID returns the "id" of a JSON object response as path text.
func jsonID(t *testing.T, w *httptest.ResponseRecorder) string {
	t.Helper()
	var v struct {
		ID json.Number `json:"id"`
	}
	decode(t, w, &v)
	return v.ID.String()
}

// opsBodyRoutes are every POST and PATCH route of the ops router; "target"
// is a tenant the fuzz target may change freely.
var opsBodyRoutes = []fuzzRoute{
	{http.MethodPost, "/ops/v1/tenants"}, {http.MethodPatch, "/ops/v1/tenants/target"},
	{http.MethodPost, "/ops/v1/tenants/target/domains"}, {http.MethodPost, "/ops/v1/tenants/target/api_keys"},
}

// FuzzOpsBodies sends a fuzzed body to one POST or PATCH route of the ops
// router.
func FuzzOpsBodies(f *testing.F) {
	for i, s := range []string{
		`{"slug":"a1-x","name":"A","timezone":"Pacific/Auckland","api_enabled":true,"rate_limit_per_minute":10,"custom_domains":["a.example.org"]}`,
		`{"name":"N","timezone":"Mars/Olympus","status":"suspended","rate_limit_per_minute":-1}`,
		`{"domain":"Target.Example.COM."}`, `{}`, `[]`, `null`, `{`, `{"slug":"www"}`, `{"slug":"` + strings.Repeat("a", 70) + `"}`,
		`{"custom_domains":["x.learngate.localhost","\u0000",""]}`, `{"domain":"a b\r\nc"}`, `{"status":1}`,
		`{"slug":"'; DROP SCHEMA public CASCADE; --"}`, `{"rate_limit_per_minute":1e400}`,
		`{"name":"a\u0000b"}`, `{"slug":"nul-x","name":"\u0000","timezone":"UTC"}`, `{"domain":"a\u0000b.example.com"}`,
	} {
		f.Add(uint8(i), s)
	}
	h := newHarness(f, harnessOptions{})
	h.createTenant("target")
	raw := h.server.OpsRouter()
	f.Fuzz(func(t *testing.T, route uint8, body string) {
		r := opsBodyRoutes[int(route)%len(opsBodyRoutes)]
		if r.path == "/ops/v1/tenants" && json.Valid([]byte(body)) && strings.Contains(body, "slug") {
			// A valid slug creates a schema (slow): keep it to the seeds'
			// few and refused ones while fuzzing.
			var v struct{ Slug any }
			if json.Unmarshal([]byte(body), &v) == nil && tenant.ValidateSlug(toString(v.Slug)) == nil {
				r = opsBodyRoutes[1]
			}
		}
		req := httptest.NewRequest(r.method, r.path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+testOpsToken)
		req.Header.Set("Content-Type", "application/json")
		req.RemoteAddr = "127.0.0.1:1234"
		w := httptest.NewRecorder()
		contractHandler{t: t, next: raw, listener: opsListener, contract: mustContract(t)}.ServeHTTP(w, req)
		checkAnswer(t, r.method+" "+r.path+" with "+handlertest.Truncate(body, 500), w)
	})
}

func toString(v any) string {
	s, _ := v.(string)
	return s
}
