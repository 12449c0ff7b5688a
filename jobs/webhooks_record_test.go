package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"learngate/jobs"
	"learngate/store"
)

// failAttemptRecords makes every insert into tdb's webhook_attempts fail
// until the returned func is called: the drain's record of its attempts
// fails, as on a database that refuses the statement.
func failAttemptRecords(t *testing.T, tdb *store.TenantDB) func() {
	t.Helper()
	exec := func(q string) {
		// On Citus a trigger on a distributed table needs this setting (as
		// the tenant migrations' triggers do).
		if err := tdb.Tx(context.Background(), func(tx *sqlx.Tx) error {
			if _, err := tx.Exec(`SELECT set_config('citus.enable_unsafe_triggers', 'on', true)`); err != nil {
				return err
			}
			_, err := tx.Exec(q)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	exec(`CREATE FUNCTION refuse_attempts() RETURNS trigger LANGUAGE plpgsql AS
		$$ BEGIN RAISE EXCEPTION 'attempts refused by the test'; END $$`)
	exec(`CREATE TRIGGER refuse_attempts BEFORE INSERT ON webhook_attempts FOR EACH ROW EXECUTE FUNCTION refuse_attempts()`)
	return func() {
		exec(`DROP TRIGGER refuse_attempts ON webhook_attempts`)
		exec(`DROP FUNCTION refuse_attempts()`)
	}
}

// TestWebhookDrainNeverResendsBecauseARecordFailed (DECISIONS section 20):
// while the database refuses the attempts' record, the drain stops sending
// and retries the record; each event reaches the receiver once.
func TestWebhookDrainNeverResendsBecauseARecordFailed(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	_, acme := newTenant(t, db, "acme", "Acme")
	rc := newReceiver(t, func(int) answer { return answer{Status: 200} })
	hook := newWebhook(t, acme, rc.URL("/"), "user.created")
	allow := failAttemptRecords(t, acme)
	for _, name := range []string{"ann", "bob", "cat", "dan", "eve"} {
		createUser(t, acme, userInput(name))
	}
	webhookWorker(t, jobs.Config{DB: db})
	rc.Wait(t, 5, 20*time.Second)
	time.Sleep(3 * time.Second) // the record keeps failing: nothing may be sent again
	allow()
	waitFor(t, 30*time.Second, "every delivery recorded as succeeded", func() bool {
		ds := listDeliveries(t, acme, hook.ID)
		for _, d := range ds {
			if d.Status != store.DeliverySucceeded {
				return false
			}
		}
		return len(ds) == 5
	})
	time.Sleep(time.Second)
	got := rc.Requests()
	seen := map[string]int{}
	for _, r := range got {
		seen[r.Header.Get("webhook-id")]++
	}
	if len(got) != 5 || len(seen) != 5 {
		t.Fatalf("receiver got %d requests for %d events (%v), want each of 5 events once", len(got), len(seen), seen)
	}
	for _, d := range listDeliveries(t, acme, hook.ID) {
		if d.Attempt != 1 {
			t.Fatalf("delivery %+v: want one recorded attempt", d)
		}
	}
}
