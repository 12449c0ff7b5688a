package jobs_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"learngate/jobs"
	"learngate/store"
)

func TestWebhookDeliversSignedUserEvents(t *testing.T) {
	db := newDB(t)
	_, acme := newTenant(t, db, "acme", "Acme")
	rc := newReceiver(t, nil)
	hook := newWebhook(t, acme, rc.URL("/hooks?src=learngate"), store.EventUserCreated)
	webhookWorker(t, jobs.Config{DB: db})

	createUser(t, acme, userInput("ann"))
	d := rc.wait(t, 1, 20*time.Second)[0]

	if got := verifySignatures(t, d, hook.Secret); len(got) != 1 {
		t.Fatalf("signature %q does not verify with the endpoint's secret", d.Header.Get("webhook-signature"))
	}
	id := d.Header.Get("webhook-id")
	if !strings.HasPrefix(id, "evt_") || d.field(t, "id") != id || d.field(t, "type") != "user.created" ||
		d.field(t, "organisation") != "acme" || d.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("headers %v, body %s", d.Header, d.Body)
	}
	if _, err := time.Parse("2006-01-02T15:04:05-07:00", d.field(t, "created_at")); err != nil {
		t.Errorf("created_at: %v", err)
	}
	// data is the user exactly as GET /papi/users/{user_name} shows it.
	ann, err := store.GetUser(context.Background(), acme, "ann")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(ann)
	if got := d.event(t)["data"]; string(got) != string(want) {
		t.Fatalf("data = %s\nwant %s", got, want)
	}
	del := waitDelivery(t, acme, hook.ID, store.DeliverySucceeded)
	if del.EventID != id || del.EventType != "user.created" || del.Attempt != 1 || *del.StatusCode != 200 ||
		del.Error != nil || len(del.Attempts) != 1 {
		t.Fatalf("delivery %+v", del)
	}
}
