package jobs_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"learngate/jobs"
	"learngate/store"
	"learngate/webhook"
)

func TestWebhookSurvivesAWorkerStoppedMidDelivery(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	_, acme := newTenant(t, db, "acme", "Acme")
	rc := newReceiver(t, func(n int) answer { return answer{Status: 200, Block: n == 0} })
	hook := newWebhook(t, acme, rc.URL("/"), "*")
	first := webhookWorker(t, jobs.Config{DB: db, StopTimeout: 200 * time.Millisecond})

	createUser(t, acme, userInput("ann"))
	select {
	case <-rc.Entered:
	case <-time.After(20 * time.Second):
		t.Fatal("the delivery did not start")
	}
	first.Stop(t) // the receiver still holds the request: the worker gives up on it

	webhookWorker(t, jobs.Config{DB: db})
	got := rc.Wait(t, 2, 20*time.Second)
	if got[1].Header.Get("webhook-id") != got[0].Header.Get("webhook-id") {
		t.Fatalf("redelivered %q, want the same event %q", got[1].Header.Get("webhook-id"), got[0].Header.Get("webhook-id"))
	}
	del := waitDelivery(t, acme, hook.ID, store.DeliverySucceeded)
	// The interrupted attempt is not the receiver's failure: it is not counted.
	if del.Attempt != 1 || len(del.Attempts) != 1 {
		t.Fatalf("delivery %+v, want one recorded attempt", del)
	}
}

func TestWebhookRefusesPrivateAddressesAtSendTime(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	_, acme := newTenant(t, db, "acme", "Acme")
	rc := newReceiver(t, nil)
	tlsRc := httptest.NewTLSServer(nil)
	t.Cleanup(tlsRc.Close)
	port := tlsRc.URL[strings.LastIndex(tlsRc.URL, ":")+1:]
	// Registered while private addresses were allowed (the metadata ones
	// are refused even then: they are written to the table directly);
	// delivered by a worker that does not allow them.
	// The tenant reads a fixed reason that names no address (docs/decisions.md,
	// "Webhooks"); the log has the detail.
	cases := map[string]string{
		rc.URL("/"):                            "url must use https",
		"https://localhost:" + port + "/":      "refused address",
		"https://127.0.0.1:" + port + "/":      "refused address",
		"https://10.0.0.1/":                    "refused address",
		"https://[fd00:ec2::254]/":             "refused address",
		"https://169.254.169.254/latest/meta/": "refused address",
		"https://192.88.99.1/":                 "refused address",
		"https://[64:ff9b:1::a00:1]/":          "refused address",
		"https://[2001::1]/":                   "refused address",
	}
	hooks := map[int64]string{}
	for url, want := range cases {
		id := newWebhook(t, acme, rc.URL("/"), "*").ID
		if _, err := db.Pool().Exec(`UPDATE `+acme.Schema()+`.webhook_endpoints SET url = $1 WHERE id = $2`, url, id); err != nil {
			t.Fatal(err)
		}
		hooks[id] = want
	}
	startWorker(t, jobs.Config{DB: db, WebhookPolicy: webhook.Policy{}, WebhookRetries: []time.Duration{}})

	createUser(t, acme, userInput("ann"))
	for id, want := range hooks {
		del := waitDelivery(t, acme, id, store.DeliveryFailed)
		if del.StatusCode != nil || del.Error == nil || *del.Error != want {
			t.Errorf("webhook %d: delivery %+v, error %v; want refused with %q", id, del, deref(del.Error), want)
		}
	}
	if n := len(rc.Requests()); n != 0 {
		t.Fatalf("the receiver got %d requests", n)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

func TestWebhookSignsWithBothSecretsAfterRotation(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	ctx := context.Background()
	_, acme := newTenant(t, db, "acme", "Acme")
	rc := newReceiver(t, nil)
	hook := newWebhook(t, acme, rc.URL("/"), "*")
	rotated, err := store.RotateWebhookSecret(ctx, acme, hook.ID, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if rotated.Secret == hook.Secret || !strings.HasPrefix(rotated.Secret, "whsec_") || rotated.PreviousSecretExpiresAt == nil ||
		rotated.PreviousSecretExpiresAt.Sub(time.Now()) < 23*time.Hour {
		t.Fatalf("rotated %+v", rotated)
	}
	webhookWorker(t, jobs.Config{DB: db})

	createUser(t, acme, userInput("ann"))
	d := rc.Wait(t, 1, 20*time.Second)[0]
	got := verifySignatures(t, d, rotated.Secret, hook.Secret)
	if len(got) != 2 || got[0] != rotated.Secret || got[1] != hook.Secret {
		t.Fatalf("signatures %q verify with %d secrets, want the new one then the old one", d.Header.Get("webhook-signature"), len(got))
	}

	// Once the overlap is over, the old secret no longer signs.
	if _, err := db.Pool().Exec(`UPDATE ` + acme.Schema() + `.webhook_endpoints SET previous_secret_expires_at = now() - interval '1 second'`); err != nil {
		t.Fatal(err)
	}
	createUser(t, acme, userInput("bob"))
	d = rc.Wait(t, 2, 20*time.Second)[1]
	if got := verifySignatures(t, d, rotated.Secret, hook.Secret); len(got) != 1 || got[0] != rotated.Secret ||
		strings.Contains(d.Header.Get("webhook-signature"), " ") {
		t.Fatalf("after the overlap: signature %q", d.Header.Get("webhook-signature"))
	}
}

func TestWebhookFailingForFiveDaysIsDisabled(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	_, acme := newTenant(t, db, "acme", "Acme")
	rc := newReceiver(t, func(int) answer { return answer{Status: 500} })
	hook := newWebhook(t, acme, rc.URL("/"), "*")
	if _, err := db.Pool().Exec(`UPDATE ` + acme.Schema() + `.webhook_endpoints SET failing_since = now() - interval '5 days 1 minute'`); err != nil {
		t.Fatal(err)
	}
	webhookWorker(t, jobs.Config{DB: db})

	createUser(t, acme, userInput("ann"))
	del := waitDelivery(t, acme, hook.ID, store.DeliveryFailed)
	w, err := store.GetWebhook(context.Background(), acme, hook.ID, time.Now())
	if err != nil || w.Enabled || *w.DisabledReason != "failing for 5 days" || del.Attempt != 1 {
		t.Fatalf("endpoint %+v, delivery %+v", w, del)
	}
}

func TestWebhookSuccessClearsFailures(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	_, acme := newTenant(t, db, "acme", "Acme")
	rc := newReceiver(t, func(n int) answer {
		if n == 0 {
			return answer{Status: 500}
		}
		return answer{Status: 200}
	})
	hook := newWebhook(t, acme, rc.URL("/"), "*")
	webhookWorker(t, jobs.Config{DB: db})
	createUser(t, acme, userInput("ann"))
	waitDelivery(t, acme, hook.ID, store.DeliverySucceeded)
	var failing *time.Time
	if err := db.Pool().Get(&failing, `SELECT failing_since FROM `+acme.Schema()+`.webhook_endpoints`); err != nil || failing != nil {
		t.Fatalf("failing_since = %v, %v; want cleared by the success", failing, err)
	}
}
