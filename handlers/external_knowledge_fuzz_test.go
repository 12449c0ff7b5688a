package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"learngate"
	"learngate/records"
	"learngate/store"
	"learngate/tenant"
)

// knowledgeSeeds are bodies for the external knowledge fuzz targets.
var knowledgeSeeds = []string{
	`{"user_name":"ann","knowledge_type":1,"title":"First aid"}`,
	`{"user_name":"ANN","type":"development plan","development_plan_stage":"mid review","development_focus":"At Level","code":"x"}`,
	`{"user_name":"ann","type":"Document","document_type":"Medical","title":"T","date":"31/02/24","expires":"",
		"assessment_score":"1e400","total_time":"-0","skills_attained":["Go",1],"category_1_name":"Safety",
		"category_1_points":"9999999999.995","category_1_minutes":2147483648}`,
	`{"knowledge_type":"6.0","categories":[{"name":"Safety","points":null},{"name":""},null],"category_0_name":"x"}`,
	`{"user_name":"ann","knowledge_type":5,"title":"\u0000","klass":"` + strings.Repeat("k", 300) + `"}`,
	`{"external_knowledges":[{"user_name":"ann","knowledge_type":1,"title":"A"},"x",{"user_name":["a"]}]}`,
	`{"external_knowledges":{}}`, `[]`, `null`, `{`, `{"user_name":"ann","knowledge_type":1e300,"type":"Training"}`,
	`{"user_name":"bob","knowledge_type":2,"title":"T","assessment_score":5e-324,"categories":"Safety;Compliance"}`,
}

// FuzzParseKnowledgeInput feeds the external knowledge parser any JSON
// body, for a create and an update: it returns an input that keeps the
// rules, or an Invalid error with a bare sentence (respondError adds the
// route's "Bad request: "); never a panic.
func FuzzParseKnowledgeInput(f *testing.F) {
	for _, s := range knowledgeSeeds {
		f.Add(s)
	}
	today := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		var body map[string]any
		if dec.Decode(&body) != nil || body == nil {
			return
		}
		for _, creating := range []bool{true, false} {
			in, err := records.ParseKnowledge(body, creating, today)
			if err != nil {
				var e *learngate.Error
				if !errors.As(err, &e) || e.Code != learngate.Invalid || e.Message == "" || strings.HasPrefix(e.Message, "Bad request") {
					t.Fatalf("parse(%s, creating %v) error = %#v, want an Invalid with a bare sentence", s, creating, err)
				}
				continue
			}
			checkKnowledgeInput(t, s, creating, in)
		}
	})
}

// checkKnowledgeInput fails t unless in keeps the rules of the parser.
func checkKnowledgeInput(t *testing.T, s string, creating bool, in learngate.KnowledgeInput) {
	t.Helper()
	fail := func(what string) { t.Fatalf("parse(%s, creating %v): %s: %+v", s, creating, what, in) }
	if creating && (in.UserName == nil || in.KnowledgeType == nil || in.DateObtained == nil) {
		fail("a create without user_name, type or date_obtained")
	}
	if creating && in.Title == nil && *in.KnowledgeType != learngate.KnowledgeDevelopmentPlan {
		fail("a create without a title")
	}
	if in.KnowledgeType != nil && (*in.KnowledgeType < 1 || *in.KnowledgeType > 6) {
		fail("knowledge_type out of range")
	}
	if in.Title != nil && *in.Title == "" {
		fail("an empty title")
	}
	for _, p := range []*string{in.UserName, in.Title, in.Code, in.DocumentType, in.Provider, in.Notes, in.Klass,
		in.CertificateNumber, in.CountryObtained, in.StateObtained, in.QualificationLevel} {
		if p != nil && (strings.IndexByte(*p, 0) >= 0 || !utf8.ValidString(*p)) {
			fail("text PostgreSQL cannot store")
		}
	}
	if in.TotalTime != nil && *in.TotalTime < 0 {
		fail("negative total_time")
	}
	if len(in.Categories) > store.MaxKnowledgeCategories {
		fail("more than 3 categories")
	}
	for _, c := range in.Categories {
		if c.Name == "" || c.Minutes < 0 || c.Points < 0 || c.Points >= records.MaxCategoryPoints {
			fail("a category out of range")
		}
	}
}

// FuzzExternalKnowledgeBodies sends fuzzed bodies to POST
// /papi/external_knowledges, PUT /papi/external_knowledges/1 and POST
// /papi/external_knowledges/batch_save (as sent, and as the one record of a
// batch) through the real router and database: every answer is a 2xx or a
// 4xx with a JSON body, never a 5xx or a panic.
func FuzzExternalKnowledgeBodies(f *testing.F) {
	for _, s := range knowledgeSeeds {
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
		{"/papi/users", `{"user_name":"ann","first_name":"A","last_name":"L","email":"ann@example.com"}`},
		{"/papi/skills", `{"name":"Go"}`}, {"/papi/categories", `{"name":"Safety"}`},
		{"/papi/categories", `{"name":"Compliance"}`},
		{"/papi/external_knowledges", `{"user_name":"ann","knowledge_type":1,"title":"First aid"}`},
	} {
		status := http.StatusCreated
		if c.path == "/papi/users" {
			status = http.StatusOK
		}
		ct.call(f, http.MethodPost, c.path, c.body, status, "")
	}
	f.Fuzz(func(t *testing.T, body string) {
		calls := []struct{ method, path, body string }{
			{http.MethodPost, "/papi/external_knowledges", body},
			{http.MethodPut, "/papi/external_knowledges/1", body},
			{http.MethodPost, "/papi/external_knowledges/batch_save", body},
		}
		if json.Valid([]byte(body)) {
			calls = append(calls, struct{ method, path, body string }{
				http.MethodPost, "/papi/external_knowledges/batch_save", `{"external_knowledges":[` + body + `]}`})
		}
		for _, r := range calls {
			w := h.papi(r.method, ct.host, r.path, ct.key, r.body)
			if w.Code >= 500 || w.Code < 200 {
				t.Fatalf("%s %s with %q: status %d, body %s", r.method, r.path, r.body, w.Code, w.Body.String())
			}
			if !json.Valid(w.Body.Bytes()) {
				t.Fatalf("%s %s with %q: body is not JSON: %q", r.method, r.path, r.body, w.Body.String())
			}
		}
	})
}
