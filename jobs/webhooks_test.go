package jobs_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"learngate"
	"learngate/jobs"
	"learngate/store"
)

func TestWebhookDeliversSignedUserEvents(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	_, acme := newTenant(t, db, "acme", "Acme")
	rc := newReceiver(t, nil)
	hook := newWebhook(t, acme, rc.URL("/hooks?src=learngate"), store.EventUserCreated)
	webhookWorker(t, jobs.Config{DB: db})

	createUser(t, acme, userInput("ann"))
	d := rc.Wait(t, 1, 20*time.Second)[0]

	if got := verifySignatures(t, d, hook.Secret); len(got) != 1 {
		t.Fatalf("signature %q does not verify with the endpoint's secret", d.Header.Get("webhook-signature"))
	}
	id := d.Header.Get("webhook-id")
	if !strings.HasPrefix(id, "evt_") || d.Field(t, "id") != id || d.Field(t, "type") != "user.created" ||
		d.Field(t, "organisation") != "acme" || d.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("headers %v, body %s", d.Header, d.Body)
	}
	if _, err := time.Parse("2006-01-02T15:04:05-07:00", d.Field(t, "created_at")); err != nil {
		t.Errorf("created_at: %v", err)
	}
	// data is the user exactly as GET /papi/users/{user_name} shows it.
	ann, err := store.GetUser(context.Background(), acme, "ann")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(ann)
	if got := d.Event(t)["data"]; string(got) != string(want) {
		t.Fatalf("data = %s\nwant %s", got, want)
	}
	del := waitDelivery(t, acme, hook.ID, store.DeliverySucceeded)
	if del.EventID != id || del.EventType != "user.created" || del.Attempt != 1 || *del.StatusCode != 200 ||
		del.Error != nil || len(del.Attempts) != 1 {
		t.Fatalf("delivery %+v", del)
	}
}

func TestWebhookRetriesAFailureWithTheSameID(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	_, acme := newTenant(t, db, "acme", "Acme")
	rc := newReceiver(t, func(n int) answer {
		if n < 2 {
			return answer{Status: 500}
		}
		return answer{Status: 204}
	})
	hook := newWebhook(t, acme, rc.URL("/"), "*")
	webhookWorker(t, jobs.Config{DB: db})

	createUser(t, acme, userInput("ann"))
	got := rc.Wait(t, 3, 20*time.Second)
	id := got[0].Header.Get("webhook-id")
	for i, d := range got {
		if d.Header.Get("webhook-id") != id || string(d.Body) != string(got[0].Body) {
			t.Fatalf("attempt %d: webhook-id %q, body %s; want %q and the first body", i+1, d.Header.Get("webhook-id"), d.Body, id)
		}
		if len(verifySignatures(t, d, hook.Secret)) != 1 {
			t.Fatalf("attempt %d is not signed with the secret", i+1)
		}
	}
	del := waitDelivery(t, acme, hook.ID, store.DeliverySucceeded)
	if del.Attempt != 3 || *del.StatusCode != 204 || len(del.Attempts) != 3 {
		t.Fatalf("delivery %+v", del)
	}
	for i, a := range del.Attempts[:2] {
		if a.Attempt != i+1 || a.StatusCode == nil || *a.StatusCode != 500 || a.Error == nil || *a.Error != "HTTP 500" {
			t.Errorf("attempt %d = %+v, want a failed 500", i+1, a)
		}
	}
	time.Sleep(300 * time.Millisecond)
	if n := len(rc.Requests()); n != 3 {
		t.Fatalf("%d requests after success, want 3", n)
	}
}

func TestWebhookGivesUpAfterEightAttempts(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	_, acme := newTenant(t, db, "acme", "Acme")
	rc := newReceiver(t, func(int) answer { return answer{Status: 503} })
	hook := newWebhook(t, acme, rc.URL("/"), "*")
	webhookWorker(t, jobs.Config{DB: db})

	createUser(t, acme, userInput("ann"))
	del := waitDelivery(t, acme, hook.ID, store.DeliveryFailed)
	if del.Attempt != 8 || len(del.Attempts) != 8 || del.NextAttemptAt != nil || *del.Error != "HTTP 503" {
		t.Fatalf("delivery %+v, want 8 failed attempts", del)
	}
	time.Sleep(300 * time.Millisecond)
	if n := len(rc.Requests()); n != 8 {
		t.Fatalf("%d requests, want 8", n)
	}
	// The endpoint stays enabled: it has not been failing for 5 days.
	if w, _ := store.GetWebhook(context.Background(), acme, hook.ID, time.Now()); !w.Enabled {
		t.Fatal("endpoint disabled")
	}
}

func TestWebhookGoneDisablesTheEndpoint(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	_, acme := newTenant(t, db, "acme", "Acme")
	rc := newReceiver(t, func(int) answer { return answer{Status: 410} })
	hook := newWebhook(t, acme, rc.URL("/"), "*")
	other := newReceiver(t, nil)
	otherHook := newWebhook(t, acme, other.URL("/"), "*")
	webhookWorker(t, jobs.Config{DB: db})

	createUser(t, acme, userInput("ann"))
	del := waitDelivery(t, acme, hook.ID, store.DeliveryFailed)
	if del.Attempt != 1 || *del.StatusCode != 410 || *del.Error != "HTTP 410" {
		t.Fatalf("delivery %+v, want one 410 attempt", del)
	}
	w, err := store.GetWebhook(context.Background(), acme, hook.ID, time.Now())
	if err != nil || w.Enabled || w.DisabledReason == nil || *w.DisabledReason != "the endpoint answered 410 Gone" {
		t.Fatalf("endpoint %+v, %v; want disabled for 410", w, err)
	}
	// Later events go to the other endpoint only.
	createUser(t, acme, userInput("bob"))
	other.Wait(t, 2, 20*time.Second)
	waitFor(t, 10*time.Second, "bob's delivery to the other endpoint", func() bool {
		ds := listDeliveries(t, acme, otherHook.ID)
		return len(ds) == 2 && ds[0].Status == store.DeliverySucceeded
	})
	if n := len(rc.Requests()); n != 1 || len(listDeliveries(t, acme, hook.ID)) != 1 {
		t.Fatalf("the disabled endpoint got %d requests", n)
	}
}

func TestWebhookHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	_, acme := newTenant(t, db, "acme", "Acme")
	rc := newReceiver(t, func(n int) answer {
		if n == 0 {
			return answer{Status: 429, Header: map[string]string{"Retry-After": "2"}}
		}
		return answer{Status: 200}
	})
	hook := newWebhook(t, acme, rc.URL("/"), "*")
	webhookWorker(t, jobs.Config{DB: db})

	createUser(t, acme, userInput("ann"))
	rc.Wait(t, 1, 20*time.Second)
	// The pause holds every delivery to the endpoint, not only the one refused.
	createUser(t, acme, userInput("bob"))
	got := rc.Wait(t, 3, 20*time.Second)
	if wait := got[1].At.Sub(got[0].At); wait < 2*time.Second {
		t.Fatalf("retried after %s, want at least the 2 s of Retry-After", wait)
	}
	if got[2].At.Sub(got[0].At) < 2*time.Second {
		t.Fatalf("another event was sent %s into the pause", got[2].At.Sub(got[0].At))
	}
	// Still in order: ann's retry, then bob.
	if got[1].Header.Get("webhook-id") != got[0].Header.Get("webhook-id") || got[2].Header.Get("webhook-id") == got[0].Header.Get("webhook-id") {
		t.Fatalf("order after the pause: %s, %s, %s", got[0].Header.Get("webhook-id"), got[1].Header.Get("webhook-id"), got[2].Header.Get("webhook-id"))
	}
	// Successes are recorded after the batch they were sent in: wait for them.
	var ds []learngate.Delivery
	waitFor(t, 5*time.Second, "both deliveries to be recorded as succeeded", func() bool {
		ds = listDeliveries(t, acme, hook.ID)
		return len(ds) == 2 && ds[0].Status == store.DeliverySucceeded && ds[1].Status == store.DeliverySucceeded
	})
	if ds[1].Attempt != 2 || *ds[1].Attempts[0].StatusCode != 429 {
		t.Fatalf("deliveries %+v", ds)
	}
}

func TestWebhookDoesNotFollowRedirects(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	_, acme := newTenant(t, db, "acme", "Acme")
	target := newReceiver(t, nil)
	rc := newReceiver(t, func(int) answer {
		return answer{Status: 302, Header: map[string]string{"Location": target.URL("/elsewhere")}}
	})
	hook := newWebhook(t, acme, rc.URL("/"), "*")
	webhookWorker(t, jobs.Config{DB: db, WebhookRetries: []time.Duration{50 * time.Millisecond}})

	createUser(t, acme, userInput("ann"))
	del := waitDelivery(t, acme, hook.ID, store.DeliveryFailed)
	if del.Attempt != 2 || *del.StatusCode != 302 || *del.Error != "HTTP 302: redirects are not followed" {
		t.Fatalf("delivery %+v", del)
	}
	if n := len(target.Requests()); n != 0 {
		t.Fatalf("the redirect target got %d requests", n)
	}
}
