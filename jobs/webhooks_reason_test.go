package jobs_test

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"learngate"
	"learngate/jobs"
	"learngate/store"
	"learngate/store/list"
	"learngate/webhook"
	"learngate/webhook/webhooktest"
)

// ipLike matches anything that looks like an IPv4 or IPv6 address.
var ipLike = regexp.MustCompile(`\d+\.\d+\.\d+\.\d+|[0-9a-fA-F]*:[0-9a-fA-F]*:[0-9a-fA-F:]*`)

// The error a tenant reads in its delivery list is a fixed reason that
// names no address of the service's network (docs/decisions.md, "Webhooks"); the
// operators' log has the detail, with the tenant and the endpoint.
// The delivery timeout is 2 s, so that a TLS handshake slowed by a busy
// machine (this test runs beside others) still fails as a TLS error.
func TestWebhookDeliveryErrorsAreFixedReasons(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	_, acme := newTenant(t, db, "acme", "Acme")
	_, other := newTenant(t, db, "other", "Other")
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
	t.Cleanup(slow.Close)
	t.Cleanup(func() { close(release) })
	badCert := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(badCert.Close)
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()

	cases := map[string]string{
		"https://hooks.does-not-exist.example/h": "could not resolve host",
		"http://" + closed + "/h":                "connection refused",
		badCert.URL + "/h":                       "TLS error",
		slow.URL + "/h":                          "timed out",
		"http://169.254.169.254/h":               "refused address",
	}
	hooks := map[int64]string{}
	for url, want := range cases {
		id := newWebhook(t, acme, "http://127.0.0.1:1/", "*").ID
		// Written directly: the metadata address is refused at registration.
		if _, err := db.Pool().Exec(`UPDATE `+acme.Schema()+`.webhook_endpoints SET url = $1 WHERE id = $2`, url, id); err != nil {
			t.Fatal(err)
		}
		hooks[id] = want
	}
	logs := &lockedBuffer{}
	startWorker(t, jobs.Config{DB: db, WebhookRetries: []time.Duration{}, WebhookTimeout: 2 * time.Second,
		WebhookPolicy: webhook.Policy{AllowPrivate: true, Resolver: webhooktest.NXDomainResolver(t)},
		Logger:        slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})

	createUser(t, acme, userInput("ann"))
	for id, want := range hooks {
		del := waitDelivery(t, acme, id, store.DeliveryFailed)
		if del.Error == nil || *del.Error != want || len(del.Attempts) != 1 || del.Attempts[0].Error == nil || *del.Attempts[0].Error != want {
			t.Errorf("webhook %d: delivery %+v, error %q; want %q", id, del, deref(del.Error), want)
		}
		if ipLike.MatchString(deref(del.Error)) {
			t.Errorf("webhook %d: error %q names an address", id, deref(del.Error))
		}
		// The other tenant cannot read acme's deliveries.
		if _, _, err := store.ListWebhookDeliveries(context.Background(), other, id, list.Page{Number: 1, Size: 100}); !learngate.IsCode(err, learngate.NotFound) {
			t.Errorf("webhook %d from the other tenant: %v, want not found", id, err)
		}
	}
	// The log has the detail once per attempt, with tenant and endpoint.
	out := logs.String()
	if !strings.Contains(out, "no such host") || !strings.Contains(out, "connection refused") ||
		!strings.Contains(out, "tenant=acme") || strings.Count(out, "msg=\"webhook attempt\"") != len(hooks) {
		t.Errorf("log:\n%s", out)
	}
}
