package handlers

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"learngate/handlers/handlertest"
	"learngate/webhook"
	"learngate/webhook/webhooktest"
)

// hooksEnv is a node with a real clock, a running worker and tenants acme
// and other, whose webhook URLs may be local.
type hooksEnv struct {
	h     *harness
	acme  catalogTenant
	other catalogTenant
}

func newHooksEnv(t *testing.T) *hooksEnv {
	t.Helper()
	h := newHarness(t, harnessOptions{})
	users := &usersEnv{h: h}
	e := &hooksEnv{h: h, acme: users.tenant(t, "acme", "UTC"), other: users.tenant(t, "other", "UTC")}
	runWebhookWorker(t, h, nil)
	return e
}

// runWebhookWorker lets h register local webhook URLs and runs a worker
// for h's database, quick to poll and to retry, until the test ends. now is
// the clock of its periodic sweeps (nil: the real one).
func runWebhookWorker(t *testing.T, h *harness, now func() time.Time) {
	t.Helper()
	h.server.Papi.WebhookPolicy = webhook.Policy{AllowPrivate: true}
	handlertest.StartWebhookWorker(t, h.db, h.blobs, now)
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

// get returns the body of a GET the test expects to succeed.
func (ct catalogTenant) get(t *testing.T, path string) string {
	t.Helper()
	w := ct.h.papi(http.MethodGet, ct.host, path, ct.key, "")
	if w.Code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, w.Code, w.Body.String())
	}
	return w.Body.String()
}

// assertEvent checks that r is a signed event of type typ of acme whose data
// is exactly want.
func assertEvent(t *testing.T, r webhooktest.Request, secret, typ, want string) {
	t.Helper()
	webhooktest.AssertEvent(t, r, secret, typ, "acme", want)
}

func TestWebhookUserEventsThroughTheAPI(t *testing.T) {
	e := newHooksEnv(t)
	rc := webhooktest.NewReceiver(t, nil)
	secret := register(t, e.acme, `{"url":"`+rc.URL("/hook")+`","events":["*"]}`)
	e.acme.call(t, http.MethodPost, "/papi/roles", `{"name":"Manager"}`, http.StatusCreated, "")

	ann := `{"user_name":"ann","first_name":"Ann","last_name":"Lee","email":"ann@example.com","role_1":"Manager"}`
	e.acme.call(t, http.MethodPost, "/papi/users", ann, http.StatusOK, "")
	assertEvent(t, rc.Wait(t, 1, 20*time.Second)[0], secret, "user.created", e.acme.get(t, "/papi/users/ann"))

	// Failed changes are rolled back and emit nothing.
	e.acme.call(t, http.MethodPost, "/papi/users", ann, http.StatusUnprocessableEntity, "")
	e.acme.call(t, http.MethodPost, "/papi/users", `{"user_name":"bob","first_name":"B","last_name":"B","email":"bob@example.com","role_1":"Nope"}`,
		http.StatusBadRequest, `"Bad request: Illegal value 'Nope' for 'role_1'"`)
	e.acme.call(t, http.MethodPut, "/papi/users/ann", `{"email":"not-an-email"}`, http.StatusUnprocessableEntity, "")
	// So does a save that changes nothing.
	e.acme.call(t, http.MethodPut, "/papi/users/ann", `{"first_name":"Ann","role_1":"Manager"}`, http.StatusOK, "")

	e.acme.call(t, http.MethodPut, "/papi/users/ann", `{"first_name":"Anna"}`, http.StatusOK, "")
	assertEvent(t, rc.Wait(t, 2, 20*time.Second)[1], secret, "user.updated", e.acme.get(t, "/papi/users/ann"))
	e.acme.call(t, http.MethodPut, "/papi/users/ann", `{"active":false,"last_name":"Lee-Smith"}`, http.StatusOK, "")
	assertEvent(t, rc.Wait(t, 3, 20*time.Second)[2], secret, "user.deactivated", e.acme.get(t, "/papi/users/ann"))
	e.acme.call(t, http.MethodPut, "/papi/users/ann", `{"active":"yes"}`, http.StatusOK, "")
	assertEvent(t, rc.Wait(t, 4, 20*time.Second)[3], secret, "user.reactivated", e.acme.get(t, "/papi/users/ann"))

	// Batch save: one event per saved row; none for a failed or unchanged row.
	e.acme.call(t, http.MethodPost, "/papi/users/batch_save", `{"people":[
		{"user_name":"cat","first_name":"Cat","last_name":"Ng","email":"cat@example.com"},
		{"user_name":"dan","first_name":"Dan","last_name":"Ng","email":"dan@"},
		{"user_name":"ANN","first_name":"Anna"},
		{"user_name":"ann","creator":true}]}`, http.StatusOK, "")
	got := rc.Wait(t, 6, 20*time.Second)
	assertEvent(t, got[4], secret, "user.created", e.acme.get(t, "/papi/users/cat"))
	assertEvent(t, got[5], secret, "user.updated", e.acme.get(t, "/papi/users/ann"))

	// Another tenant's changes never reach acme's endpoint.
	e.other.call(t, http.MethodPost, "/papi/users", `{"user_name":"olga","first_name":"O","last_name":"P","email":"olga@example.com"}`,
		http.StatusOK, "")
	time.Sleep(500 * time.Millisecond)
	if n := len(rc.Requests()); n != 6 {
		t.Fatalf("%d requests, want 6", n)
	}
	ids := map[string]bool{}
	for _, r := range rc.Requests() {
		ids[r.ID()] = true
	}
	if len(ids) != 6 {
		t.Fatalf("event ids are not unique: %v", ids)
	}
}

// deliveryRecord is a record of GET /papi/webhooks/{id}/deliveries.
type deliveryRecord struct {
	ID         int64   `json:"id"`
	EventID    string  `json:"event_id"`
	EventType  string  `json:"event_type"`
	Status     string  `json:"status"`
	Attempt    int     `json:"attempt"`
	StatusCode *int    `json:"status_code"`
	DurationMS *int    `json:"duration_ms"`
	Error      *string `json:"error"`
	Attempts   []struct {
		Attempt    int     `json:"attempt"`
		StatusCode *int    `json:"status_code"`
		Error      *string `json:"error"`
	} `json:"attempts"`
}

// deliveries lists webhook 1's deliveries of ct.
func deliveries(t *testing.T, ct catalogTenant) []deliveryRecord {
	t.Helper()
	var env struct {
		TotalRecords int              `json:"total_records"`
		Records      []deliveryRecord `json:"records"`
	}
	if err := json.Unmarshal([]byte(ct.get(t, "/papi/webhooks/1/deliveries")), &env); err != nil {
		t.Fatal(err)
	}
	return env.Records
}

// waitStatus waits until webhook 1's newest delivery has status.
func waitStatus(t *testing.T, ct catalogTenant, status string) deliveryRecord {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if ds := deliveries(t, ct); len(ds) > 0 && ds[0].Status == status {
			return ds[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s delivery: %+v", status, deliveries(t, ct))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestWebhookTestPingAndRetryThroughTheAPI(t *testing.T) {
	e := newHooksEnv(t)
	rc := webhooktest.NewReceiver(t, func(n int) webhooktest.Answer {
		if n == 0 {
			return webhooktest.Answer{Status: 500}
		}
		return webhooktest.Answer{Status: 200}
	})
	secret := register(t, e.acme, `{"url":"`+rc.URL("/")+`","events":["user.created"]}`)
	hook := e.acme.get(t, "/papi/webhooks/1")

	w := e.acme.h.papi(http.MethodPost, e.acme.host, "/papi/webhooks/1/test", e.acme.key, "{}")
	var queued deliveryRecord
	decode(t, w, &queued)
	if w.Code != http.StatusAccepted || queued.ID != 1 || queued.EventType != "ping" || queued.Status != "pending" ||
		queued.Attempt != 0 || queued.StatusCode != nil || len(queued.Attempts) != 0 {
		t.Fatalf("test: %d %s", w.Code, w.Body.String())
	}
	ping := rc.Wait(t, 1, 20*time.Second)[0]
	assertEvent(t, ping, secret, "ping", hook)
	if ping.ID() != queued.EventID {
		t.Fatalf("ping %s, queued %s", ping.ID(), queued.EventID)
	}
	// A test ping is one attempt: no retries.
	failed := waitStatus(t, e.acme, "failed")
	if failed.Attempt != 1 || *failed.StatusCode != 500 || *failed.Error != "HTTP 500" || len(failed.Attempts) != 1 {
		t.Fatalf("failed delivery %+v", failed)
	}

	e.other.call(t, http.MethodPost, "/papi/webhooks/1/deliveries/1/retry", "{}", http.StatusNotFound, `{"error":"not found"}`)
	w = e.acme.h.papi(http.MethodPost, e.acme.host, "/papi/webhooks/1/deliveries/1/retry", e.acme.key, "{}")
	var retried deliveryRecord
	decode(t, w, &retried)
	if w.Code != http.StatusAccepted || retried.Status != "pending" || retried.Attempt != 1 {
		t.Fatalf("retry: %d %s", w.Code, w.Body.String())
	}
	again := rc.Wait(t, 2, 20*time.Second)[1]
	if again.ID() != ping.ID() || string(again.Body) != string(ping.Body) {
		t.Fatalf("retried %s %s, want the same event as %s", again.ID(), again.Body, ping.ID())
	}
	ok := waitStatus(t, e.acme, "succeeded")
	if ok.Attempt != 2 || *ok.StatusCode != 200 || ok.Error != nil || len(ok.Attempts) != 2 ||
		*ok.Attempts[0].StatusCode != 500 || *ok.Attempts[1].StatusCode != 200 {
		t.Fatalf("delivery after retry %+v", ok)
	}
	e.other.call(t, http.MethodGet, "/papi/webhooks/1/deliveries", "", http.StatusNotFound, `{"error":"not found"}`)
}
