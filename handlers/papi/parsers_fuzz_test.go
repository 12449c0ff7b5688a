package papi

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"learngate"
	"learngate/handlers/httpx"
	"learngate/handlers/ops"
	"learngate/records"
)

// Parser-level fuzz targets: each request parser of the handlers package
// alone, without a database, so that they run many times faster than the
// whole-request targets (router_fuzz_test.go). A parser returns a result or
// a *learngate.Error of the codes it documents; never a panic or another
// error.

// parserSeeds are bodies for the parser fuzz targets.
var parserSeeds = []string{
	`{"user_name":"Ann","first_name":"A","last_name":"L","email":"a@example.com","type":"staff","active":"yes",
		"groups":"a;b","goals":["x",1],"role_1":"R","role_6":"x","X-City":"T","timezone":"Pacific/Auckland",
		"deactivate_scheduled_date":"01/01/30","team_leader_report_frequency":"NONE","language":"FR","login":"external"}`,
	`{"user_name":"","email":"bob@","manager_email":"x","first_name":null,"creator":2,"send_invitation":"maybe"}`,
	`{"user_name":"ann","user_id":"1e3","enrolment_code_1":"T-1 complete","enrolment_code_1_conquered_date":"31/02/24",
		"enrolment_code_1_skill_attained":["Go",1],"enrolment_code_6":"x","enrolment_code_2_due_date":"2024-01-01",
		"enrolment_code_007":"P-1 UNENROL","enrolment_code_99999999999999999999":"y"}`,
	`{"title":"T","knowledge_type":"2","certify_days":"99999999999","minutes":1e300,"skills":["Go",1],
		"categories":[null,{"name":{}},{"name":"C","points":"1e400"}],"topics":[{"topic_id":"1e3"},{"topic_id":-1}],
		"enrolment_code":"A\u0000B","ordered":"maybe","show_certificate":"YES"}`,
	`{"status":"conquered","minutes":"-1"}`, `{"status":["Exploring"],"minutes":1.5}`,
	`{"people":[null,1,"x",[],{"user_name":""},{"user_name":"ANN","password":"x"}],"send_invitations":"all"}`,
	`{"external_knowledges":[{"user_name":"ann","knowledge_type":1,"title":"A"},"x",{"user_name":["a"]}]}`,
	`{"name":"x","field_type":"list","options":["a",1]}`, `{"url":"https://x","events":"*","enabled":"yes"}`,
	`{}`, `[]`, `null`, `{`, `{"a":1}{}`,
}

// testSigningKey signs the list cursors of the fuzzed queries (the
// handlers tests' key).
var testSigningKey = []byte("handlers-test-signing-key-012345")

// decodeBody decodes s as the user endpoints do (UseNumber); ok is false
// when s is not one JSON object.
func decodeBody(s string) (map[string]any, bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var body map[string]any
	if dec.Decode(&body) != nil || body == nil {
		return nil, false
	}
	return body, true
}

// checkParseErr fails t unless err is nil or a *learngate.Error of one of codes.
func checkParseErr(t *testing.T, what string, err error, codes ...learngate.Code) {
	t.Helper()
	if err == nil {
		return
	}
	var e *learngate.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: error %#v is not a *learngate.Error", what, err)
	}
	for _, c := range codes {
		if e.Code == c {
			if e.Message == "" {
				t.Fatalf("%s: %s error without a message", what, c)
			}
			return
		}
	}
	t.Fatalf("%s: error code %s (%s), want one of %v", what, e.Code, e.Message, codes)
}

// FuzzParseUserInput feeds the user parser any body, for a create and an
// update: Invalid (400) or Unprocessable (422), never a panic; what it
// accepts holds no text PostgreSQL cannot store.
func FuzzParseUserInput(f *testing.F) {
	for _, s := range parserSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		body, ok := decodeBody(s)
		if !ok {
			return
		}
		if p, ok := body["password"].(string); ok && len(p) >= 8 {
			delete(body, "password") // bcrypt is the slow part and not a parser
		}
		for _, creating := range []bool{true, false} {
			in, err := records.ParseUser(body, creating, "ann", "UTC")
			checkParseErr(t, s, err, learngate.Invalid, learngate.Unprocessable)
			if err != nil {
				continue
			}
			if creating && (in.UserName == nil || *in.UserName == "") {
				t.Fatalf("%s: a create without a user_name: %+v", s, in)
			}
			for _, p := range []*string{in.UserName, in.FirstName, in.LastName, in.Email} {
				if p != nil && (strings.IndexByte(*p, 0) >= 0 || !utf8.ValidString(*p)) {
					t.Fatalf("%s: text PostgreSQL cannot store: %q", s, *p)
				}
			}
		}
	})
}

// FuzzParseEnrolmentBody feeds the enrolment parsers (the field groups of
// POST /topic_assignments and batch rows, the user reference and a
// progress body) any body.
func FuzzParseEnrolmentBody(f *testing.F) {
	for _, s := range parserSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		body, ok := decodeBody(s)
		if !ok {
			return
		}
		reqs := records.EnrolmentFields(body)
		if len(reqs) > len(body) {
			t.Fatalf("%s: %d enrolment requests from %d fields", s, len(reqs), len(body))
		}
		_, err := records.EnrolmentUser(body)
		checkParseErr(t, s, err, learngate.Invalid)
		p, err := parseProgress(body)
		checkParseErr(t, s, err, learngate.Invalid)
		if err == nil && p.Status == "" {
			t.Fatalf("%s: progress without a status", s)
		}
	})
}

// FuzzParseCatalogInput feeds the topic and pathway parsers any body, for
// a create and an update.
func FuzzParseCatalogInput(f *testing.F) {
	for _, s := range parserSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		body, ok := decodeBody(s)
		if !ok {
			return
		}
		for _, creating := range []bool{true, false} {
			topic, err := records.ParseTopic(body, creating)
			checkParseErr(t, s, err, learngate.Invalid)
			if err == nil && creating && (topic.Title == nil || *topic.Title == "") {
				t.Fatalf("%s: a topic without a title", s)
			}
			pathway, err := records.ParsePathway(body, creating)
			checkParseErr(t, s, err, learngate.Invalid)
			if err == nil && creating && (pathway.Title == nil || *pathway.Title == "") {
				t.Fatalf("%s: a pathway without a title", s)
			}
		}
	})
}

// FuzzBatchRows feeds the batch row converters any people and
// external_knowledges arrays: one row per item, a row's fault in the row.
func FuzzBatchRows(f *testing.F) {
	for _, s := range parserSeeds {
		f.Add(s)
	}
	today := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		body, ok := decodeBody(s)
		if !ok {
			return
		}
		for _, key := range []string{"people", "external_knowledges"} {
			items, _ := body[key].([]any)
			if rows := records.UserBatchRows(items, "UTC"); len(rows) != len(items) {
				t.Fatalf("%s: %d user rows for %d items", s, len(rows), len(items))
			}
			rows := records.KnowledgeBatchRows(items, today)
			if len(rows) != len(items) {
				t.Fatalf("%s: %d knowledge rows for %d items", s, len(rows), len(items))
			}
			for _, r := range rows {
				checkParseErr(t, s, r.Err, learngate.Invalid, learngate.NotFound)
			}
		}
	})
}

// FuzzDecodeStrict feeds decodeStrict and decodeNoBody any body, into each
// struct a route decodes: Invalid with a fixed sentence, never a panic.
func FuzzDecodeStrict(f *testing.F) {
	for _, s := range parserSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		targets := []any{&catalogRequest{}, &customFieldRequest{}, &createWebhookRequest{}, &updateWebhookRequest{},
			&ops.CreateTenantRequest{}, &ops.UpdateTenantRequest{}}
		for _, v := range targets {
			c, _ := gin.CreateTestContext(httptest.NewRecorder())
			c.Request = httptest.NewRequest(http.MethodPost, "/", strings.NewReader(s))
			err := httpx.DecodeStrict(c, v)
			checkParseErr(t, s, err, learngate.Invalid)
		}
		c, _ := gin.CreateTestContext(httptest.NewRecorder())
		c.Request = httptest.NewRequest(http.MethodPost, "/", strings.NewReader(s))
		err := httpx.DecodeNoBody(c)
		checkParseErr(t, s, err, learngate.Invalid)
		if err == nil && strings.TrimSpace(s) != "" {
			if body, ok := decodeBody(s); !ok || len(body) != 0 {
				t.Fatalf("httpx.DecodeNoBody(%q) accepted a body other than {}", s)
			}
		}
	})
}

// FuzzListQuery feeds every query parser of the lists (page, per_page,
// updated_after/_before, the enrolment filters, the user filters, the
// certificate request) any query string: Invalid naming a parameter,
// never a panic.
func FuzzListQuery(f *testing.F) {
	for _, q := range []string{
		"", "page=2&per_page=1", "page=abc", "updated_after=2024-01-01T00:00:00", "topic_ids=1,2,,x",
		"topic_id=-1&user_id=1e3&user_name=%00", "x-city=%ff&email=a", "topic_assignment_id=1&pathway_assignment_id=2",
		"topic_assignment_id=1&topic_assignment_id=1", "pathway_assignment_id=0", "%zz", "active=maybe",
		"cursor=AQ", "cursor=%00", "cursor=&page=x", "cursor=AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyAhIiMkJSYnKCkq",
	} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		c, _ := gin.CreateTestContext(httptest.NewRecorder())
		c.Request = httptest.NewRequest(http.MethodGet, "/", nil)
		c.Request.URL.RawQuery = q
		httpx.SetTenant(c, learngate.Tenant{ID: 1})
		page, _, err := New(&httpx.Gate{}, &Deps{CursorKey: testSigningKey}).parseListQuery(c)
		checkParseErr(t, q, err, learngate.Invalid)
		if err == nil && (page.Number < 1 || page.Size < 1 || page.Size > 100) {
			t.Fatalf("%q: page %+v", q, page)
		}
		for _, ids := range [][2]string{{"topic_ids", "topic_id"}, {"pathway_ids", "pathway_id"}} {
			// A user_name PostgreSQL cannot hold is kept: the store matches
			// nothing with it (store.storable).
			_, err := enrolmentFilter(c, ids[0], ids[1])
			checkParseErr(t, q, err, learngate.Invalid)
		}
		values, _ := url.ParseQuery(q)
		ref, err := parseCertificateRequest(values)
		checkParseErr(t, q, err, learngate.Invalid)
		if err == nil && ref.ID < 1 {
			t.Fatalf("%q: certificate request for id %d", q, ref.ID)
		}
	})
}
