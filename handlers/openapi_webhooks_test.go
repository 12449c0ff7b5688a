package handlers

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"learngate/store"
	"learngate/tenant"
	"learngate/webhook"
	"learngate/webhook/webhooktest"
)

// validateEvent checks one delivery the receiver got against the document's
// webhooks entry for typ: the Standard Webhooks headers and the body.
func (c *contract) validateEvent(typ string, r webhooktest.Request) error {
	item := c.doc.Webhooks[typ]
	if item == nil || item.Post == nil {
		return fmt.Errorf("the document has no webhook %q", typ)
	}
	req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(r.Body))
	for k, v := range r.Header {
		req.Header[k] = v
	}
	return openapi3filter.ValidateRequest(context.Background(), &openapi3filter.RequestValidationInput{
		Request: req,
		Route:   &routers.Route{Spec: c.doc, Path: typ, PathItem: item, Method: http.MethodPost, Operation: item.Post},
	})
}

// TestOpenAPIWebhooksNameEveryEvent: the document's webhooks are exactly
// the event types an endpoint can subscribe to, and ping.
func TestOpenAPIWebhooksNameEveryEvent(t *testing.T) {
	t.Parallel()
	want := append(store.EventTypes(), store.EventPing)
	var got []string
	for name := range mustContract(t).doc.Webhooks {
		got = append(got, name)
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("webhooks %v, want %v", got, want)
	}
}

// TestWebhookEventsMatchTheDocument: a real event of every type, caused
// through the API and delivered by the worker, matches its webhooks entry
// in the document (headers and body), and does not match another type's.
func TestWebhookEventsMatchTheDocument(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	acme := (&usersEnv{h: h}).tenant(t, "acme", "UTC")
	h.server.Papi.WebhookPolicy = webhook.Policy{AllowPrivate: true}
	rc := webhooktest.NewReceiver(t, nil)
	secret := register(t, acme, `{"url":"`+rc.URL("/")+`","events":["*"]}`)

	// Every change is made before the worker starts, so the certificate
	// job of the removed pathway enrolment fails for certain.
	acme.call(t, "POST", "/papi/users", `{"user_name":"ann","first_name":"Ann","last_name":"Lee","email":"ann@example.com"}`, 200, "")
	acme.call(t, "PUT", "/papi/users/ann", `{"first_name":"Anna"}`, 200, "")
	acme.call(t, "PUT", "/papi/users/ann", `{"active":false}`, 200, "")
	acme.call(t, "PUT", "/papi/users/ann", `{"active":true,"password":"Secret123"}`, 200, "")
	// user.signed_in: ann signs in with her password on acme's host.
	on, ssoSecret := true, "s"
	if _, err := h.registry.SetSSO(context.Background(), "acme", tenant.SSOInput{Protocol: "oidc", Issuer: "http://127.0.0.1:1",
		ClientID: "acme", ClientSecret: &ssoSecret, PasswordLogin: &on}); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, newBrowser(t, h.pagesRouter(t)).passwordPost(acme.host, "ann", "Secret123"), http.StatusSeeOther, "/learn")
	acme.call(t, "POST", "/papi/topics", `{"title":"Fire safety","show_certificate":true,"enrolment_code":"FIRE-1"}`, 201, "")
	acme.call(t, "POST", "/papi/topics", `{"title":"First aid","enrolment_code":"AID-1"}`, 201, "")
	acme.call(t, "POST", "/papi/pathways", `{"title":"Induction","show_certificate":true,"enrolment_code":"IND-1","topics":[{"topic_id":1},{"topic_id":2}]}`, 201, "")
	enrol := func(fields string) {
		acme.call(t, "POST", "/papi/topic_assignments", `{"user_name":"ann",`+fields+`}`, 200, "")
	}
	enrol(`"enrolment_code_1":"FIRE-1"`)
	enrol(`"enrolment_code_1":"IND-1"`)
	enrol(`"enrolment_code_1":"FIRE-1 UPDATE","enrolment_code_1_due_date":"2030-01-31"`)
	enrol(`"enrolment_code_1":"FIRE-1 COMPLETE","enrolment_code_2":"AID-1 COMPLETE"`)
	acme.call(t, "POST", "/papi/external_knowledges", `{"user_name":"ann","knowledge_type":1,"title":"CPR"}`, 201, "")
	acme.call(t, "PUT", "/papi/external_knowledges/1", `{"title":"CPR refresher"}`, 200, "")
	fire := acme.getJSON(t, "/papi/topic_assignments?topic_id=1", 200)["records"].([]any)[0].(map[string]any)["id"]
	induction := acme.getJSON(t, "/papi/pathway_assignments", 200)["records"].([]any)[0].(map[string]any)["id"]
	acme.getJSON(t, fmt.Sprintf("/papi/certificates?topic_assignment_id=%v", fire), 202)
	acme.getJSON(t, fmt.Sprintf("/papi/certificates?pathway_assignment_id=%v", induction), 202)
	enrol(`"enrolment_code_1":"IND-1 UNENROL"`)
	if w := bodylessPost(acme, "/papi/webhooks/1/test"); w.Code != http.StatusAccepted {
		t.Fatalf("test: %d %s", w.Code, w.Body.String())
	}
	runWebhookWorker(t, h, nil)

	want := append(store.EventTypes(), store.EventPing)
	seen := map[string]webhooktest.Request{}
	for deadline := time.Now().Add(30 * time.Second); len(seen) < len(want); time.Sleep(50 * time.Millisecond) {
		for _, r := range rc.Requests() {
			seen[r.Field(t, "type")] = r
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s the receiver has events of types %v, want all of %v", slices.Sorted(maps.Keys(seen)), want)
		}
	}
	c := mustContract(t)
	for _, typ := range want {
		r := seen[typ]
		if len(webhooktest.VerifySignatures(t, r, secret)) != 1 {
			t.Errorf("%s: the signature does not verify", typ)
		}
		if err := c.validateEvent(typ, r); err != nil {
			t.Errorf("%s %s does not match the document: %v", typ, r.Body, err)
		}
		// The check can fail: another type's entry refuses this body.
		other := store.EventPing
		if typ == store.EventPing {
			other = store.EventUserCreated
		}
		if err := c.validateEvent(other, r); err == nil {
			t.Errorf("the %s event %s passed as a %s event", typ, r.Body, other)
		}
	}
}
