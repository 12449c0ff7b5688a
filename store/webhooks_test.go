package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"learngate"
	"learngate/secrets"
	"learngate/store"
	"learngate/store/list"
	"learngate/store/storetest"
	"learngate/webhook"
)

// hookTenant is a tenant of a webhook test with one endpoint for events.
func hookTenant(t *testing.T, db *store.DB, slug string, events ...string) (*store.TenantDB, learngate.Webhook) {
	t.Helper()
	tn, _, _ := createTenant(t, db, slug)
	tdb, err := db.Tenant(tn.Schema)
	if err != nil {
		t.Fatal(err)
	}
	url := "https://" + slug + ".example.com/hooks"
	w, err := store.CreateWebhook(context.Background(), tdb, learngate.WebhookInput{URL: &url, Events: events}, webhook.Policy{}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return tdb, w
}

// rowsOf counts a tenant's events and deliveries and the drain jobs of its schema.
func rowsOf(t *testing.T, db *store.DB, tdb *store.TenantDB) [3]int {
	t.Helper()
	var n [3]int
	for i, q := range []string{`SELECT count(*) FROM ` + tdb.Schema() + `.webhook_events`,
		`SELECT count(*) FROM ` + tdb.Schema() + `.webhook_deliveries`} {
		n[i] = count(t, db, q)
	}
	n[2] = count(t, db, `SELECT count(*) FROM public.river_job WHERE kind = $1 AND args->>'schema' = $2`,
		store.KindDeliverWebhooks, tdb.Schema())
	return n
}

func TestRecordEventBelongsToTheChangesTransaction(t *testing.T) {
	t.Parallel()
	db, _ := storetest.NewDB(t)
	ctx := context.Background()
	tdb, hook := hookTenant(t, db, "acme", store.EventTopicEnrolmentCreated)
	data := map[string]any{"id": 7, "status": "Unexplored"}
	at := time.Date(2025, 6, 1, 9, 30, 0, 0, time.UTC)

	failed := errors.New("the change failed")
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		if err := tdb.RecordEvent(ctx, tx, store.EventTopicEnrolmentCreated, data, at); err != nil {
			return err
		}
		return failed
	})
	if !errors.Is(err, failed) {
		t.Fatalf("Tx = %v", err)
	}
	if got := rowsOf(t, db, tdb); got != [3]int{} {
		t.Fatalf("after a rollback: events, deliveries, jobs = %v, want none", got)
	}

	err = tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		// Types nobody subscribes to are not stored.
		if err := tdb.RecordEvent(ctx, tx, store.EventUserCreated, data, at); err != nil {
			return err
		}
		return tdb.RecordEvent(ctx, tx, store.EventTopicEnrolmentCreated, data, at)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := rowsOf(t, db, tdb); got != [3]int{1, 1, 1} {
		t.Fatalf("after a commit: events, deliveries, jobs = %v, want 1 each", got)
	}
	ds, total, err := store.ListWebhookDeliveries(ctx, tdb, hook.ID, list.Page{Number: 1, Size: 25})
	if err != nil || total != 1 || ds[0].EventType != store.EventTopicEnrolmentCreated || ds[0].Status != store.DeliveryPending ||
		ds[0].Attempt != 0 || !ds[0].CreatedAt.Equal(at) {
		t.Fatalf("deliveries %+v (%d), %v", ds, total, err)
	}
	var stored string
	if err := db.Pool().Get(&stored, `SELECT data::text FROM `+tdb.Schema()+`.webhook_events`); err != nil || stored != `{"id":7,"status":"Unexplored"}` {
		t.Fatalf("data %q, %v", stored, err)
	}
}

func TestWebhooksOfAnotherTenantAreNotFound(t *testing.T) {
	t.Parallel()
	db, _ := storetest.NewDB(t)
	ctx := context.Background()
	now := time.Now()
	acme, hook := hookTenant(t, db, "acme", "*")
	other, otherHook := hookTenant(t, db, "other", "*")
	if hook.ID != 1 || otherHook.ID != 1 {
		t.Fatalf("ids %d and %d: both tenants should have an endpoint 1", hook.ID, otherHook.ID)
	}
	in := learngate.UserInput{UserName: ptr("ann"), FirstName: ptr("Ann"), LastName: ptr("Lee"), Email: ptr("ann@example.com"), Timezone: ptr("UTC")}
	if _, err := store.CreateUser(ctx, acme, in, now); err != nil {
		t.Fatal(err)
	}
	// acme's event reaches acme's endpoint only.
	if got := rowsOf(t, db, acme); got != [3]int{1, 1, 1} {
		t.Fatalf("acme: %v", got)
	}
	if got := rowsOf(t, db, other); got != [3]int{} {
		t.Fatalf("other: %v", got)
	}

	// Tenant other addresses its own endpoint 1; delivery 1 is acme's.
	notFound := func(what string, err error) {
		t.Helper()
		if !learngate.IsCode(err, learngate.NotFound) {
			t.Errorf("%s: %v, want not found", what, err)
		}
	}
	_, err := store.RetryWebhookDelivery(ctx, other, otherHook.ID, 1, now)
	notFound("retry acme's delivery", err)
	_, err = store.GetWebhook(ctx, other, 2, now)
	notFound("get", err)
	_, err = store.UpdateWebhook(ctx, other, 2, learngate.WebhookInput{Description: ptr("x")}, webhook.Policy{}, now)
	notFound("update", err)
	_, err = store.RotateWebhookSecret(ctx, other, 2, now)
	notFound("rotate", err)
	_, err = store.TestWebhook(ctx, other, 2, now)
	notFound("test", err)
	_, _, err = store.ListWebhookDeliveries(ctx, other, 2, list.Page{Number: 1, Size: 25})
	notFound("deliveries", err)
	notFound("delete", store.DeleteWebhook(ctx, other, 2))
	if ds, total, err := store.ListWebhookDeliveries(ctx, other, otherHook.ID, list.Page{Number: 1, Size: 25}); err != nil || total != 0 || len(ds) != 0 {
		t.Fatalf("other's deliveries: %v %d %v", ds, total, err)
	}
}

func TestRotationKeepsOneOldSecret(t *testing.T) {
	t.Parallel()
	db, _ := storetest.NewDB(t)
	ctx := context.Background()
	tdb, hook := hookTenant(t, db, "acme", "*")
	now := time.Now()
	first, err := store.RotateWebhookSecret(ctx, tdb, hook.ID, now)
	if err != nil {
		t.Fatal(err)
	}
	second, err := store.RotateWebhookSecret(ctx, tdb, hook.ID, now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var secret, previous string
	if err := db.Pool().QueryRow(`SELECT secret, previous_secret FROM `+tdb.Schema()+`.webhook_endpoints`).Scan(&secret, &previous); err != nil {
		t.Fatal(err)
	}
	dev := secrets.DevKeyring() // the test store's keyring
	secret, _ = dev.Decrypt(secret)
	previous, _ = dev.Decrypt(previous)
	if secret != second.Secret || previous != first.Secret || previous == hook.Secret {
		t.Fatal("after two rotations the secrets are not the newest and the one before")
	}
	if !second.PreviousSecretExpiresAt.Equal(now.Add(25 * time.Hour).UTC().Truncate(time.Microsecond)) {
		t.Fatalf("previous secret expires at %v", second.PreviousSecretExpiresAt)
	}
	// Maintenance drops it once it expired.
	if _, _, err := store.WebhookMaintenance(ctx, tdb, now.Add(26*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, `SELECT count(*) FROM `+tdb.Schema()+`.webhook_endpoints WHERE previous_secret IS NOT NULL`); n != 0 {
		t.Fatal("the expired secret was kept")
	}
}
