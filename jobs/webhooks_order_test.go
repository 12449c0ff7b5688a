package jobs_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"learngate"
	"learngate/jobs"
	"learngate/store"
)

// batchRows are rows of a batch save creating (or updating) users.
func batchRows(names []string, active *bool) []learngate.BatchRow {
	rows := make([]learngate.BatchRow, len(names))
	for i, name := range names {
		rows[i] = learngate.BatchRow{UserName: name, New: learngate.ParsedUser{In: userInput(name)},
			Update: learngate.ParsedUser{In: learngate.UserInput{Active: active}}}
	}
	return rows
}

func TestWebhookDeliversEachEndpointInRecordedOrder(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	ctx := context.Background()
	_, acme := newTenant(t, db, "acme", "Acme")
	receivers := []*receiver{newReceiver(t, nil), newReceiver(t, nil), newReceiver(t, nil)}
	newWebhook(t, acme, receivers[0].URL("/"), "*")
	newWebhook(t, acme, receivers[1].URL("/"), store.EventUserCreated)
	newWebhook(t, acme, receivers[2].URL("/"), store.EventUserDeactivated, store.EventUserUpdated)
	webhookWorker(t, jobs.Config{DB: db})

	// 100 users in one batch, then 10 single saves while the batch is being
	// delivered, then the batch deactivating the first 50.
	var names []string
	for i := range 100 {
		names = append(names, fmt.Sprintf("user%03d", i))
	}
	if res, err := store.BatchSaveUsers(ctx, acme, batchRows(names, nil), store.InviteNone, time.Now()); err != nil || res.Created != 100 {
		t.Fatalf("batch: %+v, %v", res, err)
	}
	for i := range 10 {
		createUser(t, acme, userInput(fmt.Sprintf("solo%02d", i)))
	}
	if res, err := store.BatchSaveUsers(ctx, acme, batchRows(names[:50], ptr(false)), store.InviteNone, time.Now()); err != nil || res.Updated != 50 {
		t.Fatalf("deactivating batch: %+v, %v", res, err)
	}

	type seen struct{ typ, user string }
	expect := [][]seen{{}, {}, {}}
	for _, n := range names {
		expect[0] = append(expect[0], seen{"user.created", n})
		expect[1] = append(expect[1], seen{"user.created", n})
	}
	for i := range 10 {
		n := fmt.Sprintf("solo%02d", i)
		expect[0] = append(expect[0], seen{"user.created", n})
		expect[1] = append(expect[1], seen{"user.created", n})
	}
	for _, n := range names[:50] {
		expect[0] = append(expect[0], seen{"user.deactivated", n})
		expect[2] = append(expect[2], seen{"user.deactivated", n})
	}
	for i, rc := range receivers {
		got := rc.Wait(t, len(expect[i]), 30*time.Second)
		for j, d := range got {
			var user struct {
				UserName string `json:"user_name"`
			}
			if err := jsonUnmarshal(d.Event(t)["data"], &user); err != nil {
				t.Fatal(err)
			}
			if s := (seen{d.Field(t, "type"), user.UserName}); j >= len(expect[i]) || s != expect[i][j] {
				t.Fatalf("receiver %d, request %d: %+v, want %+v", i, j, s, expect[i][min(j, len(expect[i])-1)])
			}
		}
	}
	time.Sleep(200 * time.Millisecond)
	for i, rc := range receivers {
		if n := len(rc.Requests()); n != len(expect[i]) {
			t.Errorf("receiver %d got %d requests, want %d", i, n, len(expect[i]))
		}
	}
}

func TestWebhookEventsOfTheScheduledSweep(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	ctx := context.Background()
	_, acme := newTenant(t, db, "acme", "Acme")
	rc := newReceiver(t, nil)
	newWebhook(t, acme, rc.URL("/"), store.EventUserDeactivated, store.EventUserReactivated, store.EventUserUpdated)
	day := time.Now().UTC().AddDate(0, 0, 2).Truncate(24 * time.Hour)
	leaving := userInput("ann")
	leaving.DeactivateScheduledDate = &learngate.ScheduledDate{Day: day, Raw: day.Format("2006-01-02")}
	createUser(t, acme, leaving)
	back := userInput("bob")
	back.Active = ptr(false)
	back.ReactivateScheduledDate = &learngate.ScheduledDate{Day: day, Raw: day.Format("2006-01-02")}
	createUser(t, acme, back)
	createUser(t, acme, userInput("cat")) // no date: no event

	if n, err := store.ApplyScheduledActivation(ctx, acme, day.Add(time.Hour)); err != nil || n != 2 {
		t.Fatalf("sweep: %d, %v", n, err)
	}
	webhookWorker(t, jobs.Config{DB: db})
	got := rc.Wait(t, 2, 20*time.Second)
	if got[0].Field(t, "type") != "user.deactivated" || got[1].Field(t, "type") != "user.reactivated" {
		t.Fatalf("events %s, %s", got[0].Body, got[1].Body)
	}
	ann, _ := store.GetUser(ctx, acme, "ann")
	want, _ := jsonMarshal(ann)
	if string(got[0].Event(t)["data"]) != string(want) {
		t.Fatalf("data %s, want %s", got[0].Event(t)["data"], want)
	}
}

// The periodic recertify job records pathway_enrolment.updated for each
// enrolment it moves to recertify, with data equal to GET
// /papi/pathway_assignments/{id}; each tenant's endpoint gets its own only.
func TestWebhookEventsOfTheRecertifySweep(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	ctx := context.Background()
	_, acme := newTenant(t, db, "acme", "Acme")
	_, other := newTenant(t, db, "other", "Other")
	day := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, -20)
	for _, tdb := range []*store.TenantDB{acme, other} {
		createUser(t, tdb, userInput("ann"))
	}
	expired := conquerPathway(t, acme, "ann", "PW-RE", true, day)
	conquerPathway(t, acme, "ann", "PW-FINAL", false, day) // no recertification: no event
	otherExpired := conquerPathway(t, other, "ann", "PW-RE", true, day)
	rc, rcOther := newReceiver(t, nil), newReceiver(t, nil)
	hook := newWebhook(t, acme, rc.URL("/acme"), "*")
	otherHook := newWebhook(t, other, rcOther.URL("/other"), "*")

	webhookWorker(t, jobs.Config{DB: db}) // the recertify job runs at start
	for _, c := range []struct {
		rc     *receiver
		secret string
		slug   string
		tdb    *store.TenantDB
		id     int64
	}{{rc, hook.Secret, "acme", acme, expired}, {rcOther, otherHook.Secret, "other", other, otherExpired}} {
		got := c.rc.Wait(t, 1, 20*time.Second)[0]
		if len(verifySignatures(t, got, c.secret)) != 1 || got.Field(t, "type") != "pathway_enrolment.updated" ||
			got.Field(t, "organisation") != c.slug {
			t.Fatalf("%s: event %s", c.slug, got.Body)
		}
		pe, err := store.GetPathwayEnrolment(ctx, c.tdb, c.id)
		if err != nil || pe.Status != learngate.StatusRecertify {
			t.Fatalf("%s: enrolment %+v, %v", c.slug, pe, err)
		}
		want, _ := jsonMarshal(pe)
		if string(got.Event(t)["data"]) != string(want) {
			t.Fatalf("%s: data %s, want %s", c.slug, got.Event(t)["data"], want)
		}
	}
	time.Sleep(300 * time.Millisecond)
	if n, m := len(rc.Requests()), len(rcOther.Requests()); n != 1 || m != 1 {
		t.Fatalf("acme's endpoint got %d events, other's %d; want 1 each", n, m)
	}
}

func TestWebhookMaintenanceRequeuesAStrandedEndpoint(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	_, acme := newTenant(t, db, "acme", "Acme")
	rc := newReceiver(t, nil)
	hook := newWebhook(t, acme, rc.URL("/"), "*")
	createUser(t, acme, userInput("ann"))
	// The drain job is lost and the delivery has waited two minutes, as when
	// a worker dies holding the lease and its job is gone.
	if _, err := db.Pool().Exec(`DELETE FROM public.river_job WHERE kind = $1`, store.KindDeliverWebhooks); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool().Exec(`UPDATE ` + acme.Schema() + `.webhook_deliveries SET next_attempt_at = now() - interval '2 minutes'`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool().Exec(`UPDATE ` + acme.Schema() + `.webhook_endpoints SET lease_owner = 'dead', lease_until = now() - interval '1 second'`); err != nil {
		t.Fatal(err)
	}
	// Events older than 30 days are purged with their deliveries.
	if _, err := db.Pool().Exec(`INSERT INTO ` + acme.Schema() + `.webhook_events (id, type, created_at, data)
		VALUES ('evt_old', 'user.created', now() - interval '31 days', '{}')`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool().Exec(`INSERT INTO `+acme.Schema()+`.webhook_deliveries (endpoint_id, event_id, status, created_at, updated_at)
		VALUES ($1, 'evt_old', 'succeeded', now() - interval '31 days', now() - interval '31 days')`, hook.ID); err != nil {
		t.Fatal(err)
	}
	webhookWorker(t, jobs.Config{DB: db}) // maintenance runs at start
	rc.Wait(t, 1, 20*time.Second)
	waitFor(t, 10*time.Second, "the old delivery to be purged", func() bool {
		return len(listDeliveries(t, acme, hook.ID)) == 1
	})
	if d := waitDelivery(t, acme, hook.ID, store.DeliverySucceeded); d.EventID == "evt_old" {
		t.Fatalf("delivery %+v", d)
	}
}
