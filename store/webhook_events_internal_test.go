package store

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"learngate/webhook"
)

// batchOf is a batch creating n users named prefix0..prefix<n-1>.
func batchOf(prefix string, n int) []BatchRow {
	rows := make([]BatchRow, n)
	for j := range rows {
		name := fmt.Sprintf("%s%d", prefix, j)
		in := UserInput{UserName: strp(name), FirstName: strp("First"), LastName: strp("Last"),
			Email: strp(name + "@example.com"), Timezone: strp("UTC"), Groups: []string{"Sales"}}
		rows[j] = BatchRow{UserName: name, Parse: func(bool, string) (UserInput, error) { return in, nil }}
	}
	return rows
}

// Recording the events of a batch costs the same few statements for 10
// users as for 100, whatever the number of endpoints: events, deliveries
// and drain jobs are each inserted in one statement.
func TestBatchEventsAreSetBased(t *testing.T) {
	tdb, queries := benchTenant(t)
	jobs, err := newJobInserter(tdb.db.pool.DB)
	if err != nil {
		t.Fatal(err)
	}
	tdb.db.jobs = jobs
	ctx := context.Background()
	cost := func(prefix string, n int) int64 {
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
		if _, err := CreateWebhook(ctx, tdb, WebhookInput{URL: &url, Events: []string{"*"}}, webhook.Policy{}, time.Now()); err != nil {
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
