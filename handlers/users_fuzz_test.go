package handlers

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"learngate/tenant"
)

// FuzzUserBodies sends fuzzed bodies to POST /papi/users, PUT
// /papi/users/{user_name}, POST /papi/users/batch_save, POST
// /papi/topic_assignments and its progress route through the real router
// and database: every answer is a 2xx or a 4xx with a JSON body, never a
// 5xx or a panic.
func FuzzUserBodies(f *testing.F) {
	for _, s := range []string{
		`{"user_name":"ann","first_name":"Ann","last_name":"Lee","email":"ann@example.com","X-Age":"7","X-Skills":["Go"]}`,
		`{"user_name":"ann","active":"maybe","groups":[1,{"a":[]}],"role_1":null,"X-Start":"31/02/2024"}`,
		`{"people":[{"user_name":"bob","first_name":"B","last_name":"B","email":"b@example.com","X-City":7}],"send_invitations":"all"}`,
		`{"people":[null,1,"x",[],{"user_name":""},{"user_name":"ANN","password":"Secret123","login":"external"}]}`,
		`{"people":{"user_name":"ann"}}`, `{"deactivate_scheduled_date":"01/01/00","timezone":"Mars/Olympus"}`,
		`[]`, `null`, `{`, `{"user_name":"a/b","email":"x@y"}`, "{\"user_name\":\"\\u0000\"}", `{"X-":""}`,
		`{"user_name":"ann","enrolment_code_1":"T-1 complete","enrolment_code_1_conquered_date":"01/01/24",
			"enrolment_code_1_skill_attained":["Go",1],"enrolment_code_2":"P-1 UNENROL","enrolment_code_99":"x"}`,
		`{"people":[{"user_name":"ann","enrolment_code_1":"t-1","enrolment_code_1_due_date":"31/02/2024",
			"enrolment_code_3_certified_date":"2024-01-01","enrolment_code_2":"P-1 UPDATE"}]}`,
		`{"user_id":"1e3","status":"conquered","minutes":1e9,"enrolment_code_1":"T-1 COMPLETE COMPLETE"}`,
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
		{"/papi/groups", `{"name":"Sales"}`}, {"/papi/roles", `{"name":"Trainer"}`},
		{"/papi/custom_fields", `{"name":"City","field_type":"string"}`},
		{"/papi/custom_fields", `{"name":"Age","field_type":"number"}`},
		{"/papi/custom_fields", `{"name":"Start","field_type":"date"}`},
		{"/papi/custom_fields", `{"name":"Skills","field_type":"list","options":["Go","SQL"]}`},
		{"/papi/skills", `{"name":"Go"}`}, {"/papi/topics", `{"title":"T","enrolment_code":"T-1","certify_days":30}`},
		{"/papi/pathways", `{"title":"P","enrolment_code":"P-1","topics":[{"topic_id":1}]}`},
	} {
		ct.call(f, http.MethodPost, c.path, c.body, http.StatusCreated, "")
	}
	f.Fuzz(func(t *testing.T, body string) {
		for _, r := range []struct{ method, path string }{
			{http.MethodPost, "/papi/users"}, {http.MethodPut, "/papi/users/ann"}, {http.MethodPost, "/papi/users/batch_save"},
			{http.MethodPost, "/papi/topic_assignments"}, {http.MethodPost, "/papi/topic_assignments/1/progress"},
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
