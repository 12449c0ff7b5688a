package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"learngate"
	"learngate/store"
	"learngate/store/storetest"
	"learngate/webhook"
)

// eventLog reads the webhook events recorded for a tenant's one endpoint,
// in the order of their deliveries (the order they were recorded in), each
// as "<type> <data.id>" ("<type> <data.user_name>" for users), a batch at a time.
type eventLog struct {
	t    *testing.T
	db   *store.DB
	tdb  *store.TenantDB
	seen int
}

// next returns the events recorded since the last call.
func (l *eventLog) next() []string {
	l.t.Helper()
	var got []string
	schema := l.tdb.Schema()
	err := l.db.Pool().Select(&got, `SELECT e.type || ' ' || coalesce(e.data->>'id', e.data->>'user_name')
		FROM `+schema+`.webhook_deliveries d JOIN `+schema+`.webhook_events e ON e.id = d.event_id
		ORDER BY d.id OFFSET $1`, l.seen)
	if err != nil {
		l.t.Fatal(err)
	}
	l.seen += len(got)
	return got
}

// expect checks that the events recorded since the last call are want.
func (l *eventLog) expect(step string, want ...string) {
	l.t.Helper()
	if got := l.next(); !slices.Equal(got, want) {
		l.t.Errorf("%s: events %q, want %q", step, got, want)
	}
}

// subscribeAll gives tdb an endpoint subscribed to every event.
func subscribeAll(t *testing.T, tdb *store.TenantDB) {
	t.Helper()
	url := "https://hooks.example.com/"
	if _, err := store.CreateWebhook(context.Background(), tdb, learngate.WebhookInput{URL: &url, Events: []string{"*"}},
		webhook.Policy{}, time.Now()); err != nil {
		t.Fatal(err)
	}
}

// code is an enrolment field group with code raw ("GO-101 COMPLETE").
func code(n int, raw, c string, action learngate.EnrolmentAction) learngate.EnrolmentRequest {
	return learngate.EnrolmentRequest{N: n, Raw: raw, Code: c, Action: action}
}

// TestEnrolmentEventTypes checks which event each enrolment change records:
// one per changed enrolment, the most specific type, none for no-ops and
// failures.
func TestEnrolmentEventTypes(t *testing.T) {
	t.Parallel()
	db, _ := storetest.NewDB(t)
	ctx := context.Background()
	tdb := enrolTenant(t, db, "acme") // ann, GO-101 (topic 1) in PATH-1 (pathway 1)
	subscribeAll(t, tdb)
	log := &eventLog{t: t, db: db, tdb: tdb}
	log.next() // the setup's user.created
	ann := learngate.UserRef{UserName: ptr("ann")}
	assign := func(reqs ...learngate.EnrolmentRequest) {
		t.Helper()
		if _, err := store.AssignEnrolments(ctx, tdb, ann, reqs, time.Now()); err != nil {
			t.Fatalf("assign %+v: %v", reqs, err)
		}
	}
	progress := func(id int64, status string, minutes int64) {
		t.Helper()
		if _, err := store.RecordProgress(ctx, tdb, id, learngate.Progress{Status: status, Minutes: minutes}, time.Now()); err != nil {
			t.Fatalf("progress %d %s: %v", id, status, err)
		}
	}
	due := &learngate.EnrolmentDate{Day: time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 1, 0), Raw: "next month"}

	assign(code(1, "GO-101", "GO-101", learngate.ActionEnrol))
	log.expect("enrol", "topic_enrolment.created 1")
	assign(code(1, "GO-101", "GO-101", learngate.ActionEnrol))
	log.expect("enrol again")
	withDue := code(1, "GO-101", "GO-101", learngate.ActionEnrol)
	withDue.DueDate = due
	assign(withDue)
	log.expect("enrol with a due date", "topic_enrolment.updated 1")
	assign(withDue)
	log.expect("the same due date again")
	skills := code(1, "GO-101 UPDATE", "GO-101", learngate.ActionUpdate)
	skills.Skills = []string{"SQL"}
	assign(skills)
	log.expect("UPDATE of skills only", "topic_enrolment.updated 1")
	assign(skills)
	log.expect("the same skills again")

	// A failing request (all or nothing) records nothing, also for its good
	// codes. (A good code that inserted would use up an id of the sequence.)
	_, err := store.AssignEnrolments(ctx, tdb, ann, []learngate.EnrolmentRequest{
		code(1, "GO-101 COMPLETE", "GO-101", learngate.ActionComplete), code(2, "NOPE", "NOPE", learngate.ActionEnrol)}, time.Now())
	if !learngate.IsCode(err, learngate.Invalid) {
		t.Fatalf("bad code: %v", err)
	}
	log.expect("failed request")

	// The pathway's only topic is enrolled already: only the pathway is new.
	assign(code(1, "PATH-1", "PATH-1", learngate.ActionEnrol))
	log.expect("pathway enrol", "pathway_enrolment.created 1")
	progress(1, learngate.StatusExploring, 0)
	log.expect("progress", "topic_enrolment.updated 1", "pathway_enrolment.updated 1")
	progress(1, learngate.StatusExploring, 0)
	log.expect("the same progress, no minutes")
	progress(1, learngate.StatusExploring, 5)
	log.expect("minutes", "topic_enrolment.updated 1")
	progress(1, learngate.StatusConquered, 0)
	log.expect("conquest by progress", "topic_enrolment.conquered 1", "pathway_enrolment.conquered 1")
	assign(code(1, "GO-101 COMPLETE", "GO-101", learngate.ActionComplete))
	log.expect("COMPLETE again conquers again", "topic_enrolment.conquered 1")
	yesterday := code(1, "GO-101 UPDATE", "GO-101", learngate.ActionUpdate)
	yesterday.ConqueredDate = &learngate.EnrolmentDate{Day: time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, -1), Raw: "yesterday"}
	assign(yesterday)
	log.expect("UPDATE of a conquered date", "topic_enrolment.updated 1")

	// Recertification: the pathway (certified for 10 days) is due in 11.
	if n, err := store.ApplyRecertification(ctx, tdb, time.Now().AddDate(0, 0, 11)); err != nil || n != 1 {
		t.Fatalf("recertify: %d, %v", n, err)
	}
	log.expect("recertify", "pathway_enrolment.updated 1")
	if n, err := store.ApplyRecertification(ctx, tdb, time.Now().AddDate(0, 0, 11)); err != nil || n != 0 {
		t.Fatalf("recertify again: %d, %v", n, err)
	}
	log.expect("nothing to recertify")

	// UNENROL records the removed enrolment as updated; the started topic stays.
	assign(code(1, "PATH-1 UNENROL", "PATH-1", learngate.ActionUnenrol))
	log.expect("pathway unenrol", "pathway_enrolment.updated 1")
	assign(code(1, "GO-101 UNENROL", "GO-101", learngate.ActionUnenrol))
	log.expect("topic unenrol", "topic_enrolment.updated 1")

	// Enrolling in the pathway again brings a new topic enrolment; a new
	// enrolment that COMPLETE conquers is conquered, not created.
	assign(code(1, "PATH-1", "PATH-1", learngate.ActionEnrol))
	log.expect("pathway enrol brings its topic", "pathway_enrolment.created 2", "topic_enrolment.created 2")
	assign(code(1, "PATH-1 UNENROL", "PATH-1", learngate.ActionUnenrol))
	log.expect("unenrol removes the untouched topic", "pathway_enrolment.updated 2", "topic_enrolment.updated 2")
	assign(code(1, "GO-101 COMPLETE", "GO-101", learngate.ActionComplete), code(2, "PATH-1", "PATH-1", learngate.ActionEnrol))
	log.expect("new, conquered topic; new pathway conquered by it",
		"topic_enrolment.conquered 3", "pathway_enrolment.conquered 3")
}

// TestEnrolmentEventsOfABatch checks that a batch records each row's user
// and enrolment events in row order, none for failed rows or groups.
func TestEnrolmentEventsOfABatch(t *testing.T) {
	t.Parallel()
	db, _ := storetest.NewDB(t)
	ctx := context.Background()
	tdb := enrolTenant(t, db, "acme")
	subscribeAll(t, tdb)
	log := &eventLog{t: t, db: db, tdb: tdb}
	log.next()
	row := func(name string, reqs ...learngate.EnrolmentRequest) learngate.BatchRow {
		in := newUser(name)
		return learngate.BatchRow{UserName: name, Enrolments: reqs,
			New: learngate.ParsedUser{In: in}, Update: learngate.ParsedUser{In: in}}
	}
	bad := newUser("bad")
	bad.Email = ptr("bad@")
	badEmail := learngate.ParsedUser{In: bad, Err: learngate.Errorf(learngate.Invalid, "Illegal value 'bad@' for 'email'")}
	res, err := store.BatchSaveUsers(ctx, tdb, []learngate.BatchRow{
		row("bob", code(1, "PATH-1", "PATH-1", learngate.ActionEnrol)),
		{UserName: "bad", New: badEmail, Update: badEmail, Enrolments: []learngate.EnrolmentRequest{code(1, "GO-101", "GO-101", learngate.ActionEnrol)}},
		row("cat", code(1, "GO-101 COMPLETE", "GO-101", learngate.ActionComplete),
			code(2, "GO-101 UPDATE", "NOPE", learngate.ActionUpdate)),
		{UserName: "ann", New: learngate.ParsedUser{}, Update: learngate.ParsedUser{},
			Enrolments: []learngate.EnrolmentRequest{code(1, "GO-101", "GO-101", learngate.ActionEnrol)}},
	}, store.InviteNone, time.Now())
	if err != nil || res.Enrolled != 3 || res.Errors != 2 || res.Unchanged != 1 {
		t.Fatalf("batch: %+v, %v", res, err)
	}
	log.expect("batch",
		"user.created bob", "pathway_enrolment.created 1", "topic_enrolment.created 1",
		"user.created cat", "topic_enrolment.conquered 2",
		"topic_enrolment.created 3")
}
