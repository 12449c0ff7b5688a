package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"

	"learngate"
	"learngate/webhook"
)

// batchOf is a batch creating n users named prefix0..prefix<n-1>.
func batchOf(prefix string, n int) []learngate.BatchRow {
	rows := make([]learngate.BatchRow, n)
	for j := range rows {
		name := fmt.Sprintf("%s%d", prefix, j)
		in := learngate.UserInput{UserName: strp(name), FirstName: strp("First"), LastName: strp("Last"),
			Email: strp(name + "@example.com"), Timezone: strp("UTC"), Groups: []string{"Sales"}}
		rows[j] = learngate.BatchRow{UserName: name, New: learngate.ParsedUser{In: in}, Update: learngate.ParsedUser{In: in}}
	}
	return rows
}

// Recording the events of a batch costs the same few statements for 10
// users as for 100, whatever the number of endpoints: events, deliveries
// and drain jobs are each inserted in one statement.
func TestBatchEventsAreSetBased(t *testing.T) {
	t.Parallel()
	tdb, queries := benchTenant(t)
	jobs, err := newJobInserter(tdb.db.pool.DB)
	if err != nil {
		t.Fatal(err)
	}
	tdb.db.jobs = jobs
	ctx := context.Background()
	cost := func(prefix string, n int) int64 {
		// River sends the NOTIFY of new jobs at most once per queue per
		// fetch cooldown: wait it out, so each batch pays for its own.
		time.Sleep(river.FetchCooldownDefault + 20*time.Millisecond)
		start := queries()
		res, err := BatchSaveUsers(ctx, tdb, batchOf(prefix, n), InviteNone, time.Now())
		if err != nil || res.Created != n {
			t.Fatalf("batch: %+v, %v", res, err)
		}
		return queries() - start
	}
	// Without endpoints: one statement to find there are none.
	base10, base100 := cost("a", 10), cost("b", 100)
	for _, url := range []string{"https://one.example.com/", "https://two.example.com/", "https://three.example.com/"} {
		if _, err := CreateWebhook(ctx, tdb, learngate.WebhookInput{URL: &url, Events: []string{"*"}}, webhook.Policy{}, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	with10, with100 := cost("c", 10), cost("d", 100)
	if with10-base10 != with100-base100 || with100-base100 > 10 {
		t.Fatalf("events cost %d statements for 10 users and %d for 100 (batches: %d, %d, %d, %d)",
			with10-base10, with100-base100, base10, base100, with10, with100)
	}
	t.Logf("events of a batch: %d statements for 10 or 100 users and 3 endpoints", with100-base100)

	var events, deliveries, drains int
	err = tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &events, `SELECT count(*) FROM webhook_events`); err != nil {
			return err
		}
		if err := tx.GetContext(ctx, &deliveries, `SELECT count(*) FROM webhook_deliveries`); err != nil {
			return err
		}
		return tx.GetContext(ctx, &drains, `SELECT count(*) FROM public.river_job WHERE kind = $1`, KindDeliverWebhooks)
	})
	if err != nil || events != 110 || deliveries != 330 || drains != 6 {
		t.Fatalf("events %d, deliveries %d, drain jobs %d, %v; want 110, 330, 6", events, deliveries, drains, err)
	}
}

func TestEventIDsSortByTime(t *testing.T) {
	var g eventIDs
	at := time.Date(2025, 6, 1, 9, 30, 0, 0, time.UTC)
	prev := ""
	for i := range 300 { // many in one millisecond, then later ones
		id, err := g.next(at.Add(time.Duration(i/100) * time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(id, "evt_") || len(id) != 30 || strings.Trim(id[4:], crockford) != "" {
			t.Fatalf("id %q is not evt_ and a ULID", id)
		}
		if id <= prev {
			t.Fatalf("id %q after %q", id, prev)
		}
		prev = id
	}
	// The time part is the millisecond, in the ULID encoding (2025-06-01T09:30:00Z).
	var h eventIDs
	id, _ := h.next(at)
	if id[4:14] != "01JWND76E0" {
		t.Fatalf("time part of %q, want 01JWND76E0", id)
	}
}

// withEndpoints gives tdb a job inserter (for the drain jobs) and three
// endpoints subscribed to every event.
func withEndpoints(t *testing.T, tdb *TenantDB) {
	t.Helper()
	jobs, err := newJobInserter(tdb.db.pool.DB)
	if err != nil {
		t.Fatal(err)
	}
	tdb.db.jobs = jobs
	for _, url := range []string{"https://one.example.com/", "https://two.example.com/", "https://three.example.com/"} {
		if _, err := CreateWebhook(context.Background(), tdb, learngate.WebhookInput{URL: &url, Events: []string{"*"}}, webhook.Policy{}, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
}

// The enrolment events of a batch save with codes cost the same statements
// for 10 users as for 100: the changed users, topic enrolments and pathway
// enrolments are each loaded set-based, and events, deliveries and drain
// jobs inserted in one statement each. Without endpoints they cost nothing
// beyond the look-up of endpoints the users' events already make.
func TestBatchEnrolmentEventsAreSetBased(t *testing.T) {
	t.Parallel()
	tdb, queries := benchTenant(t)
	ctx := context.Background()
	seedEnrolments(t, tdb, 0, 10)
	if _, err := CreatePathway(ctx, tdb, learngate.PathwayInput{Title: strp("Path"), EnrolmentCode: strp("PW-1"),
		Topics: []learngate.PathwayTopicInput{{TopicID: 2}, {TopicID: 4}, {TopicID: 5}}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	day := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, -1)
	cost := func(prefix string, n int) int64 {
		t.Helper()
		rows := batchOf(prefix, n)
		for j := range rows {
			rows[j].Enrolments = []learngate.EnrolmentRequest{
				{N: 1, Raw: "TP-1", Code: "TP-1"},
				{N: 2, Raw: "TP-2 COMPLETE", Code: "TP-2", Action: learngate.ActionComplete,
					ConqueredDate: &learngate.EnrolmentDate{Day: day, Raw: day.Format("2006-01-02")}, Skills: []string{"SQL"}},
				{N: 3, Raw: "PW-1", Code: "PW-1"},
			}
		}
		time.Sleep(150 * time.Millisecond) // each batch then sends River's notice (see TestKnowledgeBatchEventsAreSetBased)
		start := queries()
		res, err := BatchSaveUsers(ctx, tdb, rows, InviteNone, time.Now())
		if err != nil || res.Created != n || res.Enrolled != 3*n || res.Errors != 0 {
			t.Fatalf("batch: %+v, %v", res, err)
		}
		return queries() - start
	}
	base10, base100 := cost("a", 10), cost("b", 100)
	withEndpoints(t, tdb)
	with10, with100 := cost("c", 10), cost("d", 100)
	if with10-base10 != with100-base100 || with100-base100 > 20 {
		t.Fatalf("events cost %d statements for 10 users and %d for 100 (batches: %d, %d, %d, %d)",
			with10-base10, with100-base100, base10, base100, with10, with100)
	}
	t.Logf("events of a batch with codes: %d statements for 10 or 100 users and 3 endpoints", with100-base100)
	// Per user: user.created, TP-1 created, TP-2 conquered, the pathway
	// created (and Exploring at once, its TP-2 being conquered: one event),
	// its topics 4 and 5 created.
	var types []string
	err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		return tx.SelectContext(ctx, &types, `SELECT e.type FROM webhook_events e
			WHERE e.data->'user'->>'user_name' = 'c0' OR e.data->>'user_name' = 'c0' ORDER BY e.id`)
	})
	want := []string{EventUserCreated, EventTopicEnrolmentCreated, EventTopicEnrolmentConquered,
		EventPathwayEnrolmentCreated, EventTopicEnrolmentCreated, EventTopicEnrolmentCreated}
	if err != nil || !slices.Equal(types, want) {
		t.Fatalf("events of user c0: %q, %v; want %q", types, err, want)
	}
}

// The events of an external knowledge batch cost the same statements for
// one record as for 100.
func TestKnowledgeBatchEventsAreSetBased(t *testing.T) {
	t.Parallel()
	tdb, queries := knowledgeBenchTenant(t)
	withEndpoints(t, tdb)
	ctx := context.Background()
	cost := func(n int) int64 {
		t.Helper()
		// River notifies a queue of new jobs at most once per 100 ms (its
		// FetchCooldown): past that, every batch's drain jobs send the notice.
		time.Sleep(150 * time.Millisecond)
		start := queries()
		res, err := BatchCreateExternalKnowledges(ctx, tdb, knowledgeRows(n), time.Now())
		if err != nil || res.Created != n {
			t.Fatalf("batch: %+v, %v", res, err)
		}
		return queries() - start
	}
	// The 10 of TestExternalKnowledgeFixedStatements, then the records and
	// their links loaded, and events, deliveries and drain jobs inserted,
	// River's notice, and the webhooks' due-work mark.
	if one, hundred := cost(1), cost(100); one != 17 || hundred != 17 {
		t.Fatalf("statements of a batch of 1 = %d, of 100 = %d, want 17 each", one, hundred)
	}
	var events, deliveries int
	err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &events, `SELECT count(*) FROM webhook_events WHERE type = $1`, EventExternalKnowledgeCreated); err != nil {
			return err
		}
		return tx.GetContext(ctx, &deliveries, `SELECT count(*) FROM webhook_deliveries`)
	})
	if err != nil || events != 101 || deliveries != 303 {
		t.Fatalf("events %d, deliveries %d, %v; want 101, 303", events, deliveries, err)
	}
}
