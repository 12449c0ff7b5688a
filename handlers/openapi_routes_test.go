package handlers

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"learngate/docs"
	"learngate/handlers/httpx"
)

// routerRoutes lists the routes of both routers as "METHOD /path/{param}".
func routerRoutes(t *testing.T) []string {
	t.Helper()
	s := &Server{Gate: &httpx.Gate{Metrics: httpx.NewMetrics(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}}
	public, err := s.PublicRouter()
	if err != nil {
		t.Fatalf("public router: %v", err)
	}
	param := regexp.MustCompile(`[:*]([A-Za-z_]+)`)
	var out []string
	for _, r := range append(public.Routes(), s.OpsRouter().Routes()...) {
		out = append(out, r.Method+" "+param.ReplaceAllString(r.Path, "{$1}"))
	}
	slices.Sort(out)
	// A HEAD route answers as the GET of its path does (HTTP's HEAD): the
	// document describes the GET, and the contract check HEAD as that GET.
	var documented []string
	for _, r := range out {
		if path, ok := strings.CutPrefix(r, "HEAD "); ok {
			if !slices.Contains(out, "GET "+path) {
				t.Errorf("route %s has no GET of the same path to answer as", r)
			}
			continue
		}
		documented = append(documented, r)
	}
	return documented
}

// documentedRoutes lists the operations of the OpenAPI document the same way.
func documentedRoutes(t *testing.T) []string {
	t.Helper()
	var out []string
	for path, item := range mustContract(t).doc.Paths.Map() {
		for method := range item.Operations() {
			out = append(out, method+" "+path)
		}
	}
	slices.Sort(out)
	return out
}

// TestOpenAPIDocumentsEveryRoute fails when a route of the public or ops
// router is missing from docs/openapi.yaml, or the document has an
// operation no router serves.
func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	t.Parallel()
	routes, documented := routerRoutes(t), documentedRoutes(t)
	for _, r := range routes {
		if !slices.Contains(documented, r) {
			t.Errorf("route %s is not in docs/openapi.yaml", r)
		}
	}
	for _, d := range documented {
		if !slices.Contains(routes, d) {
			t.Errorf("docs/openapi.yaml documents %s, which no router serves", d)
		}
	}
	if len(routes) < 60 {
		t.Errorf("only %d routes found; the routers were not read", len(routes))
	}
}

// TestOpenAPIOperationsAreDescribed checks what the reference page needs of
// every operation: a unique operationId, a summary, a tag, and responses.
func TestOpenAPIOperationsAreDescribed(t *testing.T) {
	t.Parallel()
	seen := map[string]string{}
	for path, item := range mustContract(t).doc.Paths.Map() {
		for method, op := range item.Operations() {
			where := method + " " + path
			if op.OperationID == "" || op.Summary == "" || len(op.Tags) != 1 {
				t.Errorf("%s: needs an operationId, a summary and one tag", where)
			}
			if other, dup := seen[op.OperationID]; dup {
				t.Errorf("%s: operationId %s is also %s's", where, op.OperationID, other)
			}
			seen[op.OperationID] = where
			if strings.HasPrefix(path, "/papi/") && op.Security == nil && op.Responses.Status(http.StatusUnauthorized) == nil {
				t.Errorf("%s: a keyed operation must document 401", where)
			}
		}
	}
}

// exchange runs one made-up request and response through the contract check.
func exchange(t *testing.T, l listener, method, target, reqBody string, status int, respBody string) error {
	t.Helper()
	req := httptest.NewRequest(method, target, strings.NewReader(reqBody))
	req.Header.Set("Authorization", "lg_test")
	if reqBody != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	rec.Header().Set("Content-Type", "application/json; charset=utf-8")
	for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
		rec.Header().Set(h, "10")
	}
	rec.Header().Set("Link", `<http://acme.learngate.localhost/papi/users?per_page=25>; rel="first"`) // every list's
	rec.WriteHeader(status)
	rec.Body.WriteString(respBody)
	return mustContract(t).check(l, req, []byte(reqBody), rec)
}

// TestContractCheckRefuses proves the contract check fails the exchanges it
// must: a wrong body shape, an undocumented status, an extra property, a
// missing header, a refused request that succeeded, an unknown route that
// succeeded, and a route served by the wrong listener.
func TestContractCheckRefuses(t *testing.T) {
	t.Parallel()
	ping := `{"organisation":"acme"}`
	if err := exchange(t, publicListener, "GET", "/papi/ping", "", 200, ping); err != nil {
		t.Fatalf("a documented exchange was refused: %v", err)
	}
	if err := exchange(t, publicListener, "GET", "/papi/nope", "", 404, `{"error":"not found"}`); err != nil {
		t.Fatalf("the 404 of an unmatched path was refused: %v", err)
	}
	tests := []struct {
		name                 string
		l                    listener
		method, target, body string
		status               int
		respBody             string
	}{
		{"wrong type", publicListener, "GET", "/papi/ping", "", 200, `{"organisation":1}`},
		{"extra property", publicListener, "GET", "/papi/ping", "", 200, `{"organisation":"acme","id":1}`},
		{"undocumented status", publicListener, "GET", "/papi/ping", "", 418, `{"error":"teapot"}`},
		{"user 404 as an object", publicListener, "GET", "/papi/users/ann", "", 404, `{"errors":["not found"]}`},
		{"list 400 as an object", publicListener, "GET", "/papi/users?page=x", "", 400, `{"error":"Bad request"}`},
		{"enrolment 400 as a string", publicListener, "POST", "/papi/topic_assignments", `{"user_name":"ann"}`, 400, `"bad"`},
		{"bad timestamp", publicListener, "GET", "/papi/roles", "", 200,
			`{"total_records":0,"max_per_page":25,"current_page":1,"total_pages":0,"records":[{"id":1}]}`},
		{"extra envelope property", publicListener, "GET", "/papi/roles", "", 200,
			`{"total_records":0,"max_per_page":25,"current_page":1,"total_pages":0,"records":[],"next":2}`},
		{"refused request succeeded", publicListener, "POST", "/papi/roles", `{"name":"x","colour":"red"}`, 201, `{"id":1,"name":"x"}`},
		{"unknown route succeeded", publicListener, "GET", "/papi/nope", "", 200, `{}`},
		{"ops route on the public listener", publicListener, "GET", "/ops/v1/tenants", "", 200, `[]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := exchange(t, tt.l, tt.method, tt.target, tt.body, tt.status, tt.respBody); err == nil {
				t.Errorf("%s %s answered %d %s passed the contract check", tt.method, tt.target, tt.status, tt.respBody)
			}
		})
	}
}

// TestOpenAPIUserFiltersAreAParameter: the x-<custom field> filters of
// GET /papi/users are a form-exploded object parameter (so generated
// clients expose them), and requests carrying them pass the contract check.
func TestOpenAPIUserFiltersAreAParameter(t *testing.T) {
	t.Parallel()
	item := mustContract(t).doc.Paths.Find("/papi/users")
	p := item.Get.Parameters.GetByInAndName("query", "custom_field_filters")
	if p == nil || p.Style != "form" || p.Explode == nil || !*p.Explode || !p.Schema.Value.Type.Is("object") ||
		p.Schema.Value.PatternProperties["^[xX]-.+$"] == nil || p.Schema.Value.AdditionalProperties.Schema == nil {
		t.Fatalf("GET /papi/users has no form-exploded object parameter custom_field_filters with x- properties: %+v", p)
	}
	empty := `{"total_records":0,"max_per_page":25,"current_page":1,"total_pages":0,"records":[]}`
	for _, target := range []string{"/papi/users?x-City=auck", "/papi/users?X-start=2025-06-01&x-Skills=a,b&active=yes&page=1"} {
		if err := exchange(t, publicListener, "GET", target, "", 200, empty); err != nil {
			t.Errorf("GET %s: %v", target, err)
		}
	}
	// The other parameters are still checked beside the filters.
	if err := exchange(t, publicListener, "GET", "/papi/users?x-City=auck&page=abc", "", 200, empty); err == nil {
		t.Error("GET /papi/users?x-City=auck&page=abc succeeded and passed the contract check")
	}
}

// TestContractCheckNeedsRateLimitHeaders: a success without X-RateLimit-*
// is refused, as the document makes them required.
func TestContractCheckNeedsRateLimitHeaders(t *testing.T) {
	t.Parallel()
	req := httptest.NewRequest("GET", "/papi/ping", nil)
	req.Header.Set("Authorization", "lg_test")
	rec := httptest.NewRecorder()
	rec.Header().Set("Content-Type", "application/json")
	rec.WriteHeader(200)
	rec.Body.WriteString(`{"organisation":"acme"}`)
	if err := mustContract(t).check(publicListener, req, nil, rec); err == nil {
		t.Fatal("a success without X-RateLimit-* headers passed the contract check")
	}
}

// TestOpenAPIServed: the document and the reference page are served on any
// host without a key, the JSON is the YAML's conversion, and an unchanged
// asset answers 304.
func TestOpenAPIServed(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	want, err := docs.OpenAPIJSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"nobody.learngate.localhost", "example.org", ""} {
		w := do(h.public, request{host: host, path: "/papi/openapi.json"})
		if w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), want) {
			t.Fatalf("host %q: GET /papi/openapi.json = %d, %d bytes; want the document", host, w.Code, w.Body.Len())
		}
	}
	var doc struct {
		OpenAPI string         `json:"openapi"`
		Paths   map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(want, &doc); err != nil || doc.OpenAPI != "3.1.0" || doc.Paths["/papi/users"] == nil {
		t.Fatalf("document: openapi %q, %d paths, err %v", doc.OpenAPI, len(doc.Paths), err)
	}

	page := do(h.public, request{host: "acme.learngate.localhost", path: "/docs"})
	body := page.Body.String()
	if page.Code != http.StatusOK || page.Header().Get("Content-Type") != "text/html; charset=utf-8" ||
		!strings.Contains(body, `<redoc spec-url="/papi/openapi.json"`) || !strings.Contains(body, `<script src="/docs/redoc.standalone.js">`) {
		t.Fatalf("GET /docs = %d %q: %s", page.Code, page.Header().Get("Content-Type"), body)
	}
	if csp := page.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "connect-src 'self'") {
		t.Errorf("GET /docs Content-Security-Policy = %q", csp)
	}
	script := do(h.public, request{path: "/docs/redoc.standalone.js"})
	if script.Code != http.StatusOK || !strings.Contains(script.Body.String(), "ReDoc") {
		t.Fatalf("GET /docs/redoc.standalone.js = %d, %d bytes", script.Code, script.Body.Len())
	}
	etag := script.Header().Get("ETag")
	again := do(h.public, request{path: "/docs/redoc.standalone.js", headers: map[string]string{"If-None-Match": etag}})
	if etag == "" || again.Code != http.StatusNotModified || again.Body.Len() != 0 {
		t.Fatalf("If-None-Match %q: %d, %d bytes; want 304", etag, again.Code, again.Body.Len())
	}
}
