package web

import (
	"context"
	"net/http"
	"testing"
	"time"

	"learngate/handlers/handlertest"
	"learngate/tenant"
	"learngate/webhook"
	"learngate/webhook/webhooktest"
)

// What the learner pages' tests need of the Public API, the jobs worker
// and the browser screenshots, as package handlers' tests have it.

// catalogTenant is a tenant with an API key: its host and key.
type catalogTenant struct {
	h    *harness
	host string
	key  string
}

// call sends a Public API call of ct and checks its answer.
func (ct catalogTenant) call(t testing.TB, method, path, body string, status int, want string) {
	t.Helper()
	assertResponse(t, ct.h.papi(method, ct.host, path, ct.key, body), status, want)
}

// get returns the body of a GET the test expects to succeed.
func (ct catalogTenant) get(t *testing.T, path string) string {
	t.Helper()
	w := ct.h.papi(http.MethodGet, ct.host, path, ct.key, "")
	if w.Code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, w.Code, w.Body.String())
	}
	return w.Body.String()
}

// getJSON returns the JSON object of a GET the test expects to answer status.
func (ct catalogTenant) getJSON(t *testing.T, path string, status int) map[string]any {
	t.Helper()
	w := ct.h.papi("GET", ct.host, path, ct.key, "")
	if w.Code != status {
		t.Fatalf("GET %s = %d %s, want %d", path, w.Code, w.Body.String(), status)
	}
	var out map[string]any
	decode(t, w, &out)
	return out
}

// usersEnv makes tenants on h whose rate limit is the highest.
type usersEnv struct {
	h *harness
}

// tenant onboards slug in time zone tz with the highest rate limit.
func (e *usersEnv) tenant(t *testing.T, slug, tz string) catalogTenant {
	t.Helper()
	limit := int64(tenant.MaxRateLimit)
	_, key, err := e.h.registry.Create(context.Background(), tenant.NewTenantInput{Slug: slug, Timezone: tz, RateLimitPerMinute: &limit})
	if err != nil {
		t.Fatalf("create tenant %s: %v", slug, err)
	}
	return catalogTenant{h: e.h, host: slug + ".learngate.localhost", key: key}
}

// runWebhookWorker lets h register local webhook URLs and runs a worker
// for h's database, quick to poll and to retry, until the test ends. now is
// the clock of its periodic sweeps (nil: the real one).
func runWebhookWorker(t *testing.T, h *harness, now func() time.Time) {
	t.Helper()
	h.papiDeps.WebhookPolicy = webhook.Policy{AllowPrivate: true}
	handlertest.StartWebhookWorker(t, h.db, h.blobs, now)
}

// startCertificateWorker runs the real jobs worker (poll interval 50 ms)
// over h's database and blob store until the test ends.
func startCertificateWorker(t *testing.T, h *harness, now func() time.Time) {
	t.Helper()
	handlertest.StartCertificateWorker(t, h.db, h.web.Blobs, now)
}

// register creates a webhook of ct through the API and returns its secret.
func register(t *testing.T, ct catalogTenant, body string) string {
	t.Helper()
	w := ct.h.papi(http.MethodPost, ct.host, "/papi/webhooks", ct.key, body)
	if w.Code != http.StatusCreated {
		t.Fatalf("register webhook: %d %s", w.Code, w.Body.String())
	}
	var hook struct {
		Secret string `json:"secret"`
	}
	decode(t, w, &hook)
	return hook.Secret
}

// assertEvent checks that r is a signed event of type typ of acme whose data
// is exactly want.
func assertEvent(t *testing.T, r webhooktest.Request, secret, typ, want string) {
	t.Helper()
	webhooktest.AssertEvent(t, r, secret, typ, "acme", want)
}
