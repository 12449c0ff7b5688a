package handlers

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"learngate/tenant"
)

// FuzzTopicBodies sends fuzzed bodies to POST and PUT of topics and
// pathways through the real router and database: every answer is a 2xx or
// a 4xx with a JSON body, never a 5xx or a panic.
func FuzzTopicBodies(f *testing.F) {
	for _, s := range []string{
		fullTopic, fullPathway, `{"title":"T","skills":["Go",1],"categories":[{"name":"CPD","points":"1e400"}]}`,
		`{"title":"T","categories":[null,{"name":{}}],"topics":[{"topic_id":"1e3"},{"topic_id":-1}]}`,
		`{"title":"T","certify_days":"99999999999","minutes":1e300,"knowledge_type":[2]}`,
		`{"title":"T","enrolment_code":"A\u0000B","external_id":"\u0000"}`, "{\"title\":\"\\u0000\"}",
		`{"title":"T","topics":[{"topic_id":9223372036854775807},{"topic_id":"9223372036854775808"}]}`,
		`{"title":"T","categories":[{"name":"CPD","points":9999999999.994},{"name":"Safety","points":-0.004}]}`,
		`[]`, `null`, `{`, `{"title":"x"}{}`, `{"title":"T","enrolment_code":"\u200b"}`,
	} {
		f.Add(s)
	}
	h := newHarness(f, harnessOptions{})
	limit := int64(tenant.MaxRateLimit)
	_, key, err := h.registry.Create(context.Background(), tenant.NewTenantInput{Slug: "fuzz", RateLimitPerMinute: &limit})
	if err != nil {
		f.Fatal(err)
	}
	ct := catalogTenant{h: h, host: "fuzz.learngate.localhost", key: key}
	for _, c := range []struct{ path, body string }{
		{"/papi/skills", `{"name":"Go"}`}, {"/papi/categories", `{"name":"CPD"}`}, {"/papi/categories", `{"name":"Safety"}`},
		{"/papi/topics", `{"title":"First"}`}, {"/papi/pathways", `{"title":"First"}`},
	} {
		ct.call(f, http.MethodPost, c.path, c.body, http.StatusCreated, "")
	}
	f.Fuzz(func(t *testing.T, body string) {
		for _, r := range []struct{ method, path string }{
			{http.MethodPost, "/papi/topics"}, {http.MethodPut, "/papi/topics/1"},
			{http.MethodPost, "/papi/pathways"}, {http.MethodPut, "/papi/pathways/1"},
		} {
			w := h.papi(r.method, ct.host, r.path, ct.key, body)
			if w.Code >= 500 || w.Code < 200 {
				t.Fatalf("%s %s with %q: status %d, body %s", r.method, r.path, body, w.Code, w.Body.String())
			}
			if !json.Valid(w.Body.Bytes()) {
				t.Fatalf("%s %s with %q: body is not JSON: %q", r.method, r.path, body, w.Body.String())
			}
		}
	})
}
