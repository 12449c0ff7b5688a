package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"learngate/store"
	"learngate/store/storetest"
)

// TestWebhookDeliveryLagAndJobCounts: a delivery due 10 minutes ago is 10
// minutes late in its tenant and in no other; paused or disabled endpoints
// are not late; JobCounts sees the drain job the event queued.
func TestWebhookDeliveryLagAndJobCounts(t *testing.T) {
	t.Parallel()
	db, _ := storetest.NewDB(t)
	ctx := context.Background()
	acme, _ := hookTenant(t, db, "acme", store.EventTopicEnrolmentCreated)
	globex, _ := hookTenant(t, db, "globex", store.EventTopicEnrolmentCreated)
	at := time.Now().UTC().Add(-time.Hour).Truncate(time.Microsecond)
	err := acme.Tx(ctx, func(tx *sqlx.Tx) error {
		return acme.RecordEvent(ctx, tx, store.EventTopicEnrolmentCreated, map[string]any{"id": 1}, at)
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool().Exec(`UPDATE `+acme.Schema()+`.webhook_deliveries SET next_attempt_at = $1`, at); err != nil {
		t.Fatal(err)
	}
	now := at.Add(10 * time.Minute)
	lag := func(tdb *store.TenantDB) time.Duration {
		t.Helper()
		d, err := store.WebhookDeliveryLag(ctx, tdb, now)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if got := lag(acme); got != 10*time.Minute {
		t.Fatalf("acme lag %s, want 10m", got)
	}
	if got := lag(globex); got != 0 {
		t.Fatalf("globex lag %s, want 0 (acme's delivery is not globex's)", got)
	}
	if got, err := store.WebhookDeliveryLag(ctx, acme, at.Add(-time.Second)); err != nil || got != 0 {
		t.Fatalf("before it is due: %s, %v", got, err)
	}
	for _, c := range []struct {
		set string
		arg any
	}{{"paused_until = $1", now.Add(time.Hour)}, {"enabled = $1", false}} {
		set := c.set
		if _, err := db.Pool().Exec(`UPDATE `+acme.Schema()+`.webhook_endpoints SET `+set, c.arg); err != nil {
			t.Fatal(err)
		}
		if got := lag(acme); got != 0 {
			t.Fatalf("after %s: lag %s, want 0", set, got)
		}
		if _, err := db.Pool().Exec(`UPDATE ` + acme.Schema() + `.webhook_endpoints SET paused_until = NULL, enabled = true`); err != nil {
			t.Fatal(err)
		}
	}

	counts, err := db.JobCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var drains int64
	for _, c := range counts {
		if c.Kind == store.KindDeliverWebhooks && c.State == "available" {
			drains = c.Count
			if c.OldestWait <= 0 || c.OldestWait > time.Minute {
				t.Errorf("oldest available drain waited %s, want (0, 1m]", c.OldestWait)
			}
		}
	}
	if drains != 1 {
		t.Fatalf("JobCounts %+v: want 1 available deliver_webhooks job", counts)
	}
}
