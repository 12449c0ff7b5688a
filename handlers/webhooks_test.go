package handlers

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"learngate/webhook"
)

// hookJSON is the exact JSON of a webhook of a users test (clock at
// usersStart): id, url, events (JSON) and the rest as given.
func hookJSON(id int, url, events, rest string) string {
	if rest == "" {
		rest = `"description":"","events":` + events + `,"enabled":true,"disabled_reason":null,"previous_secret_expires_at":null`
	}
	return fmt.Sprintf(`{"id":%d,"url":%q,%s,"created_at":"2025-06-01T09:30:00+00:00","updated_at":"2025-06-01T09:30:00+00:00"}`,
		id, url, rest)
}

// takeSecret checks that w's body has a secret of the form whsec_<base64 of
// 32 bytes>, and returns the body without it and the secret.
func takeSecret(t *testing.T, w *httptest.ResponseRecorder) (string, string) {
	t.Helper()
	var body map[string]json.RawMessage
	decode(t, w, &body)
	var secret string
	if err := json.Unmarshal(body["secret"], &secret); err != nil {
		t.Fatalf("no secret in %s", w.Body.String())
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if !strings.HasPrefix(secret, "whsec_") || err != nil || len(key) != 32 {
		t.Fatalf("secret %q is not whsec_ and the base64 of 32 bytes", secret)
	}
	i := strings.Index(w.Body.String(), `,"secret":`)
	return w.Body.String()[:i] + "}", secret
}

func TestWebhookManagement(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	acme := e.acme
	created := acme.h.papi(http.MethodPost, acme.host, "/papi/webhooks", acme.key,
		`{"url":"https://hooks.example.com/learngate","events":["user.created","user.updated","user.created"],"description":" CRM sync "}`)
	if created.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", created.Code, created.Body.String())
	}
	body, secret := takeSecret(t, created)
	one := hookJSON(1, "https://hooks.example.com/learngate", "", `"description":"CRM sync","events":["user.created","user.updated"],`+
		`"enabled":true,"disabled_reason":null,"previous_secret_expires_at":null`)
	if body != one {
		t.Fatalf("create body\n%s\nwant\n%s", body, one)
	}
	_, secret2 := takeSecret(t, acme.h.papi(http.MethodPost, acme.host, "/papi/webhooks", acme.key,
		`{"url":"https://other.example.com/h?x=1","events":["*"]}`))
	if secret2 == secret {
		t.Fatal("two endpoints share a secret")
	}
	two := hookJSON(2, "https://other.example.com/h?x=1", `["*"]`, "")

	// The secret is never shown again.
	acme.call(t, http.MethodGet, "/papi/webhooks", "", http.StatusOK, listBody(2, 1, 25, one, two))
	acme.call(t, http.MethodGet, "/papi/webhooks?per_page=1&page=2", "", http.StatusOK, listBody(2, 2, 1, two))
	acme.call(t, http.MethodGet, "/papi/webhooks/1", "", http.StatusOK, one)

	// Only the given fields change.
	e.clock.advance(60_000_000_000)
	acme.call(t, http.MethodPut, "/papi/webhooks/2", `{"events":["user.deactivated"],"description":"ops"}`, http.StatusOK,
		`{"id":2,"url":"https://other.example.com/h?x=1","description":"ops","events":["user.deactivated"],"enabled":true,`+
			`"disabled_reason":null,"previous_secret_expires_at":null,"created_at":"2025-06-01T09:30:00+00:00","updated_at":"2025-06-01T09:31:00+00:00"}`)
	acme.call(t, http.MethodPut, "/papi/webhooks/2", `{"enabled":false}`, http.StatusOK,
		`{"id":2,"url":"https://other.example.com/h?x=1","description":"ops","events":["user.deactivated"],"enabled":false,`+
			`"disabled_reason":"disabled through the API","previous_secret_expires_at":null,"created_at":"2025-06-01T09:30:00+00:00","updated_at":"2025-06-01T09:31:00+00:00"}`)
	acme.call(t, http.MethodPost, "/papi/webhooks/2/test", `{}`, http.StatusConflict, `{"error":"webhook 2 is disabled; enable it first"}`)
	acme.call(t, http.MethodPut, "/papi/webhooks/2", `{"enabled":true}`, http.StatusOK,
		`{"id":2,"url":"https://other.example.com/h?x=1","description":"ops","events":["user.deactivated"],"enabled":true,`+
			`"disabled_reason":null,"previous_secret_expires_at":null,"created_at":"2025-06-01T09:30:00+00:00","updated_at":"2025-06-01T09:31:00+00:00"}`)

	// Rotation: a new secret, shown once; the old one signs for 24 hours more.
	rotated := acme.h.papi(http.MethodPost, acme.host, "/papi/webhooks/1/rotate_secret", acme.key, "{}")
	if rotated.Code != http.StatusOK {
		t.Fatalf("rotate: %d %s", rotated.Code, rotated.Body.String())
	}
	body, newSecret := takeSecret(t, rotated)
	if newSecret == secret {
		t.Fatal("rotation kept the secret")
	}
	wantRotated := `{"id":1,"url":"https://hooks.example.com/learngate","description":"CRM sync","events":["user.created","user.updated"],` +
		`"enabled":true,"disabled_reason":null,"previous_secret_expires_at":"2025-06-02T09:31:00+00:00",` +
		`"created_at":"2025-06-01T09:30:00+00:00","updated_at":"2025-06-01T09:31:00+00:00"}`
	if body != wantRotated {
		t.Fatalf("rotate body\n%s\nwant\n%s", body, wantRotated)
	}
	acme.call(t, http.MethodGet, "/papi/webhooks/1", "", http.StatusOK, wantRotated)

	acme.call(t, http.MethodGet, "/papi/webhooks/1/deliveries", "", http.StatusOK, listBody(0, 1, 25))
	acme.call(t, http.MethodDelete, "/papi/webhooks/1", "", http.StatusNoContent, "")
	acme.call(t, http.MethodGet, "/papi/webhooks/1", "", http.StatusNotFound, `{"error":"not found"}`)
	acme.call(t, http.MethodDelete, "/papi/webhooks/1", "", http.StatusNotFound, `{"error":"not found"}`)
	acme.call(t, http.MethodGet, "/papi/webhooks/1/deliveries", "", http.StatusNotFound, `{"error":"not found"}`)
}

func TestWebhookManagementRefusesBadInput(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	acme := e.acme
	const valid = `"url":"https://hooks.example.com/h","events":["user.created"]`
	for _, c := range []struct {
		name, body string
		status     int
		want       string
	}{
		{"no url", `{"events":["user.created"]}`, 400, `{"error":"url is required"}`},
		{"empty url", `{"url":"","events":["user.created"]}`, 400, `{"error":"url is required"}`},
		{"no events", `{"url":"https://hooks.example.com/h"}`, 400, `{"error":"events is required"}`},
		{"empty events", `{"url":"https://hooks.example.com/h","events":[]}`, 400, `{"error":"events must name at least one event type, or \"*\""}`},
		{"unknown event", `{"url":"https://hooks.example.com/h","events":["user.created","user.deleted"]}`, 400, `{"error":"unknown event type 'user.deleted'"}`},
		{"ping", `{"url":"https://hooks.example.com/h","events":["ping"]}`, 400, `{"error":"unknown event type 'ping'"}`},
		{"events not a list", `{"url":"https://hooks.example.com/h","events":"user.created"}`, 400, `{"error":"invalid value for \"events\": expected []string"}`},
		{"relative url", `{"url":"/hooks","events":["*"]}`, 400, `{"error":"url must be an absolute URL such as https://example.com/webhooks"}`},
		{"http", `{"url":"http://hooks.example.com/h","events":["*"]}`, 400, `{"error":"url must use https"}`},
		{"ftp", `{"url":"ftp://hooks.example.com/h","events":["*"]}`, 400, `{"error":"url must use https"}`},
		{"credentials", `{"url":"https://a:b@hooks.example.com/h","events":["*"]}`, 400, `{"error":"url must not contain a user name or password"}`},
		{"localhost", `{"url":"https://localhost:8443/h","events":["*"]}`, 400, `{"error":"url must not point to localhost"}`},
		{"loopback", `{"url":"https://127.0.0.1/h","events":["*"]}`, 400, `{"error":"url must not point to a loopback address (127.0.0.1)"}`},
		{"private", `{"url":"https://192.168.1.20/h","events":["*"]}`, 400, `{"error":"url must not point to a private address (192.168.1.20)"}`},
		{"link-local", `{"url":"https://[fe80::1]/h","events":["*"]}`, 400, `{"error":"url must not point to a link-local address (fe80::1)"}`},
		{"unique-local", `{"url":"https://[fd12::1]/h","events":["*"]}`, 400, `{"error":"url must not point to a unique-local address (fd12::1)"}`},
		{"cgnat", `{"url":"https://100.64.1.1/h","events":["*"]}`, 400, `{"error":"url must not point to a carrier-grade NAT address (100.64.1.1)"}`},
		{"metadata", `{"url":"https://169.254.169.254/latest","events":["*"]}`, 400, `{"error":"url must not point to a cloud metadata address (169.254.169.254)"}`},
		{"long description", `{` + valid + `,"description":"` + strings.Repeat("d", 501) + `"}`, 400, `{"error":"description must be at most 500 characters"}`},
		{"unknown field", `{` + valid + `,"secret":"whsec_mine"}`, 400, `{"error":"unknown field \"secret\""}`},
		{"enabled on create", `{` + valid + `,"enabled":false}`, 400, `{"error":"unknown field \"enabled\""}`},
		{"malformed", `{"url":`, 400, `{"error":"malformed JSON"}`},
		{"array", `[]`, 400, `{"error":"request body must be a JSON object"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			acme.call(t, http.MethodPost, "/papi/webhooks", c.body, c.status, c.want)
		})
	}
	// Nothing was created.
	acme.call(t, http.MethodGet, "/papi/webhooks", "", http.StatusOK, catalogEmptyList)

	w := do(acme.h.public, request{method: http.MethodPost, host: acme.host, path: "/papi/webhooks",
		body: `{` + valid + `}`, headers: map[string]string{"Authorization": acme.key, "Content-Type": "text/plain"}})
	assertResponse(t, w, http.StatusNotAcceptable, `{"error":"Content-Type must be application/json"}`)
	w = do(acme.h.public, request{method: http.MethodPost, host: acme.host, path: "/papi/webhooks",
		headers: map[string]string{"Authorization": acme.key, "Content-Type": "application/json"}})
	assertResponse(t, w, http.StatusBadRequest, `{"error":"request body must be a JSON object"}`)
	acme.call(t, http.MethodGet, "/papi/webhooks?page=x", "", http.StatusBadRequest, `"Bad request: Illegal value 'x' for 'page'"`)
	acme.call(t, http.MethodGet, "/papi/webhooks/1/deliveries?per_page=y", "", http.StatusBadRequest, `"Bad request: Illegal value 'y' for 'per_page'"`)
	acme.call(t, http.MethodGet, "/papi/webhooks/abc", "", http.StatusNotFound, `{"error":"not found"}`)
	acme.call(t, http.MethodGet, "/papi/webhooks/99", "", http.StatusNotFound, `{"error":"not found"}`)

	// Updates check the same rules.
	acme.call(t, http.MethodPost, "/papi/webhooks", `{`+valid+`}`, http.StatusCreated, "")
	for body, want := range map[string]string{
		`{"url":"http://hooks.example.com/h"}`: `{"error":"url must use https"}`,
		`{"events":[]}`:                        `{"error":"events must name at least one event type, or \"*\""}`,
		`{"events":["nope"]}`:                  `{"error":"unknown event type 'nope'"}`,
		`{"enabled":"yes"}`:                    `{"error":"invalid value for \"enabled\": expected bool"}`,
		`{"url":""}`:                           `{"error":"url is required"}`,
	} {
		acme.call(t, http.MethodPut, "/papi/webhooks/1", body, http.StatusBadRequest, want)
	}
	acme.call(t, http.MethodPut, "/papi/webhooks/99", `{"description":"x"}`, http.StatusNotFound, `{"error":"not found"}`)
	acme.call(t, http.MethodPost, "/papi/webhooks/99/test", `{}`, http.StatusNotFound, `{"error":"not found"}`)
	acme.call(t, http.MethodPost, "/papi/webhooks/99/rotate_secret", `{}`, http.StatusNotFound, `{"error":"not found"}`)
	acme.call(t, http.MethodPost, "/papi/webhooks/1/deliveries/99/retry", `{}`, http.StatusNotFound, `{"error":"not found"}`)
	acme.call(t, http.MethodPost, "/papi/webhooks/1/deliveries/x/retry", `{}`, http.StatusNotFound, `{"error":"not found"}`)

	// At most 20 endpoints.
	for range 19 {
		acme.call(t, http.MethodPost, "/papi/webhooks", `{`+valid+`}`, http.StatusCreated, "")
	}
	acme.call(t, http.MethodPost, "/papi/webhooks", `{`+valid+`}`, http.StatusUnprocessableEntity, `{"error":"a tenant may have at most 20 webhooks"}`)
}

func TestWebhookPrivateURLsWithAllowPrivate(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	e.h.server.Papi.WebhookPolicy = webhook.Policy{AllowPrivate: true}
	e.acme.call(t, http.MethodPost, "/papi/webhooks", `{"url":"http://127.0.0.1:9000/h","events":["*"]}`, http.StatusCreated, "")
	e.acme.call(t, http.MethodPost, "/papi/webhooks", `{"url":"http://localhost/h","events":["*"]}`, http.StatusCreated, "")
	e.acme.call(t, http.MethodPost, "/papi/webhooks", `{"url":"http://169.254.169.254/h","events":["*"]}`, http.StatusBadRequest,
		`{"error":"url must not point to a cloud metadata address (169.254.169.254)"}`)
}

func TestWebhooksAreTenantIsolated(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	e.acme.call(t, http.MethodPost, "/papi/webhooks", `{"url":"https://hooks.example.com/h","events":["*"]}`, http.StatusCreated, "")
	acmeHook := hookJSON(1, "https://hooks.example.com/h", `["*"]`, "")
	other := e.other
	other.call(t, http.MethodGet, "/papi/webhooks", "", http.StatusOK, catalogEmptyList)
	for _, c := range []struct{ method, path, body string }{
		{http.MethodGet, "/papi/webhooks/1", ""},
		{http.MethodPut, "/papi/webhooks/1", `{"url":"https://evil.example.com/"}`},
		{http.MethodPost, "/papi/webhooks/1/rotate_secret", `{}`},
		{http.MethodPost, "/papi/webhooks/1/test", `{}`},
		{http.MethodGet, "/papi/webhooks/1/deliveries", ""},
		{http.MethodPost, "/papi/webhooks/1/deliveries/1/retry", `{}`},
		{http.MethodDelete, "/papi/webhooks/1", ""},
	} {
		other.call(t, c.method, c.path, c.body, http.StatusNotFound, `{"error":"not found"}`)
	}
	e.acme.call(t, http.MethodGet, "/papi/webhooks/1", "", http.StatusOK, acmeHook)
	// The other tenant's own endpoint 1 is its own.
	other.call(t, http.MethodPost, "/papi/webhooks", `{"url":"https://other.example.com/h","events":["user.created"]}`, http.StatusCreated, "")
	e.acme.call(t, http.MethodGet, "/papi/webhooks", "", http.StatusOK, listBody(1, 1, 25, acmeHook))
}
