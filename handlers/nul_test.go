package handlers

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// A NUL character (JSON "\u0000", URL %00) in any string, path parameter
// or query value is bad input (docs/decisions.md, "Bodies and hostile input"): PostgreSQL text
// cannot hold it, and it answered 500 where it reached a query. Bodies
// read by decodeStrict are checked once there (nulString); the input
// primitives refuse it for the user-style bodies; text path parameters go
// through pathText (public) and opsPathParams (ops); query values through
// input.QueryText. In a users batch it is that row's error.

// nulCase is one request carrying a NUL character and its exact answer.
type nulCase struct {
	method, path, body string
	ops                bool
	status             int
	want               string
}

// nulCases cover every route that reads text (docs/reliability.md, "Listener
// timeouts, bounded decoding, quoted values, NUL characters") and one case (at least)
// per remaining POST, PUT and PATCH route that reads text.
var nulCases = []nulCase{
	{http.MethodPost, "/papi/roles", `{"name":"a\u0000b"}`, false, 400, `{"error":"Illegal value 'a\u0000b' for 'name'"}`},
	{http.MethodPost, "/papi/groups", `{"name":"a\u0000b"}`, false, 400, `{"error":"Illegal value 'a\u0000b' for 'name'"}`},
	{http.MethodPost, "/papi/goals", `{"name":"a\u0000b"}`, false, 400, `{"error":"Illegal value 'a\u0000b' for 'name'"}`},
	{http.MethodPost, "/papi/skills", `{"name":"a\u0000b"}`, false, 400, `{"error":"Illegal value 'a\u0000b' for 'name'"}`},
	{http.MethodPost, "/papi/categories", `{"name":"a\u0000b"}`, false, 400, `{"error":"Illegal value 'a\u0000b' for 'name'"}`},
	{http.MethodPost, "/papi/custom_fields", `{"name":"a\u0000b","field_type":"string"}`, false, 400, `{"error":"Illegal value 'a\u0000b' for 'name'"}`},
	{http.MethodPost, "/papi/custom_fields", `{"name":"L","field_type":"list","options":["x","a\u0000b"]}`, false, 400, `{"error":"Illegal value 'a\u0000b' for 'options'"}`},
	{http.MethodDelete, "/papi/roles/a%00b", ``, false, 404, `{"error":"not found"}`},
	{http.MethodPost, "/papi/topics", `{"title":"a\u0000b"}`, false, 400, `{"error":"Bad request: Illegal value 'a\u0000b' for 'title'"}`},
	{http.MethodPost, "/papi/topics", `{"title":"T","enrolment_code":"a\u0000b"}`, false, 400, `{"error":"Bad request: Illegal value 'a\u0000b' for 'enrolment_code'"}`},
	{http.MethodPut, "/papi/topics/1", `{"external_id":"a\u0000b"}`, false, 400, `{"error":"Bad request: Illegal value 'a\u0000b' for 'external_id'"}`},
	{http.MethodGet, "/papi/topics/a%00b", ``, false, 404, `{"error":"not found"}`},
	{http.MethodPost, "/papi/pathways", `{"title":"a\u0000b"}`, false, 400, `{"error":"Bad request: Illegal value 'a\u0000b' for 'title'"}`},
	{http.MethodPut, "/papi/pathways/1", `{"title":"a\u0000b"}`, false, 400, `{"error":"Bad request: Illegal value 'a\u0000b' for 'title'"}`},
	{http.MethodPost, "/papi/users", `{"user_name":"a\u0000b","first_name":"A","last_name":"B","email":"a@example.com"}`, false, 400, `"Bad request: Illegal value 'a\u0000b' for 'user_name'"`},
	{http.MethodPost, "/papi/users", `{"user_name":"zed","first_name":"A\u0000","last_name":"B","email":"a@example.com"}`, false, 400, `"Bad request: Illegal value 'A\u0000' for 'first_name'"`},
	{http.MethodPost, "/papi/users", `{"user_name":"zed","first_name":"A","last_name":"B","email":"a@example.com","X-City":"a\u0000b"}`, false, 400, `"Bad request: Illegal value 'a\u0000b' for 'X-City'"`},
	{http.MethodPost, "/papi/users", `{"user_name":"zed","first_name":"A","last_name":"B","email":"a@example.com","X-Langs":"Go;a\u0000b"}`, false, 400, `"Bad request: Illegal value 'Go;a\u0000b' for 'X-Langs'"`},
	{http.MethodPost, "/papi/users", `{"user_name":"zed","first_name":"A","last_name":"B","email":"a@example.com","role_1":"a\u0000b"}`, false, 400, `"Bad request: Illegal value 'a\u0000b' for 'role_1'"`},
	{http.MethodPost, "/papi/users", `{"user_name":"zed","first_name":"A","last_name":"B","email":"a@example.com","mentor_email":"a\u0000b@example.com"}`, false, 400, `"Bad request: Illegal value 'a\u0000b@example.com' for 'mentor_email'"`},
	{http.MethodPost, "/papi/users", `{"user_name":"zed","first_name":"A","last_name":"B","email":"a@example.com","timezone":"a\u0000b"}`, false, 400, `"Bad request: Illegal value 'a\u0000b' for 'timezone'"`},
	{http.MethodPut, "/papi/users/ann", `{"last_name":"a\u0000b"}`, false, 400, `"Bad request: Illegal value 'a\u0000b' for 'last_name'"`},
	{http.MethodPut, "/papi/users/a%00b", `{"last_name":"b"}`, false, 400, `"Bad request: Illegal value 'a\u0000b' for 'user_name'"`},
	{http.MethodGet, "/papi/users/a%00b", ``, false, 400, `"Bad request: Illegal value 'a\u0000b' for 'user_name'"`},
	{http.MethodGet, "/papi/users?email=a%00b", ``, false, 400, `"Bad request: Illegal value 'a\u0000b' for 'email'"`},
	{http.MethodGet, "/papi/users?x-city=a%00b", ``, false, 400, `"Bad request: Illegal value 'a\u0000b' for 'x-city'"`},
	{http.MethodPost, "/papi/users/batch_save", `{"people":[{"user_name":"good","first_name":"G","last_name":"G","email":"g@example.com"},{"user_name":"a\u0000b","first_name":"B","last_name":"B","email":"b@example.com"}]}`, false, 200, `{"created":1,"updated":0,"unchanged":0,"enrolled":0,"invitations_sent":0,"invitations_failed":0,"errors":1,"error_list":[{"user_name":"a\u0000b","email":"b@example.com","error_reason":"Illegal value 'a\u0000b' for 'user_name'"}]}`},
	{http.MethodPost, "/papi/users/batch_save", `{"people":[{"user_name":"good2","first_name":"G","last_name":"G","email":"g2@example.com"},{"user_name":"bad2","first_name":"B\u0000","last_name":"B","email":"b2@example.com"}]}`, false, 200, `{"created":2,"updated":0,"unchanged":0,"enrolled":0,"invitations_sent":0,"invitations_failed":0,"errors":1,"error_list":[{"user_name":"bad2","email":"b2@example.com","error_reason":"Illegal value 'B\u0000' for 'first_name'"}]}`},
	{http.MethodPost, "/papi/external_knowledges", `{"user_name":"ann","knowledge_type":1,"title":"a\u0000b","date_obtained":"2024-01-01"}`, false, 400, `{"error":"Bad request: Illegal value 'a\u0000b' for 'title'"}`},
	{http.MethodPost, "/papi/external_knowledges", `{"user_name":"a\u0000b","knowledge_type":1,"title":"t","date_obtained":"2024-01-01"}`, false, 400, `{"error":"Bad request: Illegal value 'a\u0000b' for 'user_name'"}`},
	{http.MethodPut, "/papi/external_knowledges/1", `{"title":"a\u0000b"}`, false, 400, `{"error":"Bad request: Illegal value 'a\u0000b' for 'title'"}`},
	{http.MethodPost, "/papi/external_knowledges/batch_save", `{"external_knowledges":[{"user_name":"ann","knowledge_type":1,"title":"a\u0000b","date_obtained":"2024-01-01"}]}`, false, 400, `{"error":"Bad request: Illegal value 'a\u0000b' for 'title'","index":0,"user_name":"ann"}`},
	{http.MethodGet, "/papi/external_knowledges?user_name=a%00b", ``, false, 400, `"Bad request: Illegal value 'a\u0000b' for 'user_name'"`},
	{http.MethodPost, "/papi/topic_assignments", `{"user_name":"a\u0000b","enrolment_code_1":"T-1"}`, false, 400, `{"errors":["Illegal value 'a\u0000b' for 'user_name'"]}`},
	{http.MethodPost, "/papi/topic_assignments", `{"user_name":"ann","enrolment_code_1":"T\u0000-1"}`, false, 400, `{"errors":["Illegal value 'T\u0000-1' for 'enrolment_code_1'"]}`},
	{http.MethodPost, "/papi/topic_assignments/1/progress", `{"status":"a\u0000b"}`, false, 400, `{"error":"Illegal value 'a\u0000b' for 'status'"}`},
	{http.MethodGet, "/papi/topic_assignments?user_name=a%00b", ``, false, 400, `"Bad request: Illegal value 'a\u0000b' for 'user_name'"`},
	{http.MethodGet, "/papi/topic_assignments/user/a%00b", ``, false, 400, `"Bad request: Illegal value 'a\u0000b' for 'user_name'"`},
	{http.MethodGet, "/papi/pathway_assignments?user_name=a%00b", ``, false, 400, `"Bad request: Illegal value 'a\u0000b' for 'user_name'"`},
	{http.MethodPost, "/papi/webhooks", `{"url":"https://example.com/h","events":["*"],"description":"a\u0000b"}`, false, 400, `{"error":"Illegal value 'a\u0000b' for 'description'"}`},
	{http.MethodPost, "/papi/webhooks", `{"url":"https://example.com/h\u0000","events":["*"]}`, false, 400, `{"error":"Illegal value 'https://example.com/h\u0000' for 'url'"}`},
	{http.MethodPost, "/papi/webhooks", `{"url":"https://example.com/h","events":["a\u0000b"]}`, false, 400, `{"error":"Illegal value 'a\u0000b' for 'events'"}`},
	{http.MethodPut, "/papi/webhooks/1", `{"description":"a\u0000b"}`, false, 400, `{"error":"Illegal value 'a\u0000b' for 'description'"}`},
	{http.MethodGet, "/papi/certificates?user_name=a%00b&topic_id=1", ``, false, 400, `{"error":"Missing parameter: give topic_assignment_id or pathway_assignment_id"}`},
	{http.MethodGet, "/papi/certificates/status/a%00b", ``, false, 404, `{"error":"not found"}`},
	{http.MethodPost, "/ops/v1/tenants", `{"slug":"nul-name","name":"a\u0000b"}`, true, 400, `{"error":"Illegal value 'a\u0000b' for 'name'"}`},
	{http.MethodPost, "/ops/v1/tenants", `{"slug":"a\u0000b"}`, true, 400, `{"error":"Illegal value 'a\u0000b' for 'slug'"}`},
	{http.MethodPost, "/ops/v1/tenants", `{"slug":"nul-tz","timezone":"a\u0000b"}`, true, 400, `{"error":"Illegal value 'a\u0000b' for 'timezone'"}`},
	{http.MethodPost, "/ops/v1/tenants", `{"slug":"nul-dom","custom_domains":["a\u0000b.example.com"]}`, true, 400, `{"error":"Illegal value 'a\u0000b.example.com' for 'custom_domains'"}`},
	{http.MethodPatch, "/ops/v1/tenants/fuzz", `{"name":"a\u0000b"}`, true, 400, `{"error":"Illegal value 'a\u0000b' for 'name'"}`},
	{http.MethodGet, "/ops/v1/tenants/a%00b", ``, true, 400, `{"error":"Illegal value 'a\u0000b' for 'slug'"}`},
	{http.MethodPatch, "/ops/v1/tenants/a%00b", `{"name":"x"}`, true, 400, `{"error":"Illegal value 'a\u0000b' for 'slug'"}`},
	{http.MethodPost, "/ops/v1/tenants/fuzz/domains", `{"domain":"a\u0000b.example.com"}`, true, 400, `{"error":"Illegal value 'a\u0000b.example.com' for 'domain'"}`},
	{http.MethodDelete, "/ops/v1/tenants/fuzz/domains/a%00b", ``, true, 400, `{"error":"Illegal value 'a\u0000b' for 'domain'"}`},
	{http.MethodDelete, "/ops/v1/tenants/a%00b?confirm=a%00b", ``, true, 400, `{"error":"Illegal value 'a\u0000b' for 'slug'"}`},
	{http.MethodGet, "/ops/v1/tls/ask?domain=a%00b", ``, true, 404, `{"error":"not found"}`},
}

func TestNulCharacters(t *testing.T) {
	t.Parallel()
	e := newFuzzEnv(t)
	otherKey := e.h.createTenant("other")
	before := e.fingerprint(t)
	for _, c := range nulCases {
		t.Run(c.method+" "+c.path+" "+c.body, func(t *testing.T) {
			var w *httptest.ResponseRecorder
			if c.ops {
				w = e.h.opsCall(c.method, c.path, c.body)
			} else {
				w = e.send(t, e.bodyRequest(fuzzRoute{c.method, c.path}, c.body))
			}
			assertResponse(t, w, c.status, c.want)
		})
	}
	// The batches saved their good rows, and nothing else: the tenant's
	// rows differ from before by those two users only.
	for _, name := range []string{"good", "good2"} {
		if w := e.ct.h.papi(http.MethodGet, e.ct.host, "/papi/users/"+name, e.ct.key, ""); w.Code != http.StatusOK {
			t.Fatalf("good row %s: %d %s", name, w.Code, w.Body.String())
		}
		// Another tenant cannot see them.
		assertResponse(t, e.h.papi(http.MethodGet, "other.learngate.localhost", "/papi/users/"+name, otherKey, ""),
			http.StatusNotFound, `"not found"`)
	}
	assertResponse(t, e.ct.h.papi(http.MethodGet, e.ct.host, "/papi/users/bad2", e.ct.key, ""), http.StatusNotFound, `"not found"`)
	for _, name := range []string{"good", "good2"} {
		req := httptest.NewRequest(http.MethodGet, "/papi/users/"+name, nil)
		req.Header.Set("Authorization", e.ct.key)
		if w := e.send(t, req); w.Code != http.StatusOK {
			t.Fatalf("GET %s: %d", name, w.Code)
		}
	}
	if e.fingerprint(t) == before {
		t.Fatal("the batches saved nothing")
	}
	// No tenant was created or renamed on the ops API.
	assertResponse(t, e.h.opsCall(http.MethodGet, "/ops/v1/tenants/nul-name", ""), http.StatusNotFound, "")
}
