package jobs_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"learngate"
	"learngate/jobs"
	"learngate/store"
	"learngate/store/storetest"
)

// Webhook delivery figures (not part of `make test`; run with
//
//	go test -run '^$' -bench BenchmarkWebhookDelivery -benchtime 1x ./jobs/
//
// ). Events are recorded into real tenant schemas (each tenant with one
// endpoint) and a real worker delivers them to a local receiver.
//
//   - burst: every event is committed first (batches of 50 per transaction,
//     tenants in turn), then the worker starts; events/s is the drain rate
//     from the first arrival to the last.
//   - trickle: the worker runs and one event is committed every 20 ms;
//     p50_ms and p99_ms are the delays from each commit to the arrival,
//     which the poll interval dominates (River on database/sql polls).
func BenchmarkWebhookDelivery(b *testing.B) {
	for _, c := range []struct {
		tenants, events int
		poll            time.Duration
		trickle         bool
	}{
		{tenants: 1, events: 5000, poll: time.Second},
		{tenants: 50, events: 5000, poll: time.Second},
		{tenants: 1, events: 100, poll: time.Second, trickle: true},
		{tenants: 1, events: 100, poll: 100 * time.Millisecond, trickle: true},
		{tenants: 50, events: 200, poll: time.Second, trickle: true},
		{tenants: 50, events: 200, poll: 100 * time.Millisecond, trickle: true},
	} {
		mode := "burst"
		if c.trickle {
			mode = "trickle"
		}
		b.Run(fmt.Sprintf("%s/tenants=%d/poll=%s", mode, c.tenants, c.poll), func(b *testing.B) {
			for range b.N {
				runDeliveryFigures(b, c.tenants, c.events, c.poll, c.trickle)
			}
		})
	}
}

// arrivals is a receiver that notes when each event arrived.
type arrivals struct {
	mu sync.Mutex
	at map[string]time.Time
}

func (a *arrivals) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.at[r.Header.Get("webhook-id")] = time.Now()
	a.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (a *arrivals) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.at)
}

func runDeliveryFigures(b *testing.B, tenants, events int, poll time.Duration, trickle bool) {
	b.StopTimer()
	db, _ := storetest.NewDB(b)
	ctx := context.Background()
	recv := &arrivals{at: map[string]time.Time{}}
	srv := httptest.NewServer(recv)
	defer srv.Close()
	tdbs := make([]*store.TenantDB, tenants)
	for i := range tdbs {
		_, tdbs[i] = newTenant(b, db, fmt.Sprintf("t%02d", i), "T")
		url := srv.URL + "/hook"
		if _, err := store.CreateWebhook(ctx, tdbs[i], learngate.WebhookInput{URL: &url, Events: []string{"*"}}, allowPrivate, time.Now()); err != nil {
			b.Fatal(err)
		}
	}
	startWorker := func() func() {
		w, err := jobs.New(jobs.Config{DB: db, Links: testLinks, Blobs: localBlobs(b), PollInterval: poll, WebhookPolicy: allowPrivate})
		if err != nil {
			b.Fatal(err)
		}
		runCtx, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- w.Run(runCtx) }()
		return func() { stop(); <-done }
	}

	// commits[n] is when event n was committed; its id is read back later.
	commits := make([]time.Time, 0, events)
	batch, pause := 50, time.Duration(0)
	if trickle {
		batch, pause = 1, 20*time.Millisecond
		defer startWorker()()
		time.Sleep(2 * poll) // the worker is up and idle
	}
	b.StartTimer()
	for n := 0; n < events; n += batch {
		tdb := tdbs[(n/batch)%tenants]
		evs := make([]store.Event, min(batch, events-n))
		for i := range evs {
			evs[i] = store.Event{Type: store.EventUserCreated, Data: map[string]int{"n": n + i}, At: time.Now()}
		}
		if err := tdb.Tx(ctx, func(tx *sqlx.Tx) error { return tdb.RecordEvents(ctx, tx, evs...) }); err != nil {
			b.Fatal(err)
		}
		now := time.Now()
		for range evs {
			commits = append(commits, now)
		}
		time.Sleep(pause)
	}
	if !trickle {
		defer startWorker()()
	}
	deadline := time.Now().Add(5 * time.Minute)
	for recv.count() < events {
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d events delivered", recv.count(), events)
		}
		time.Sleep(5 * time.Millisecond)
	}
	b.StopTimer()

	// Each event's delay: its arrival minus its transaction's commit.
	var delays []time.Duration
	var first, last time.Time
	for i, tdb := range tdbs {
		var rows []struct {
			ID  string `db:"id"`
			Pos int    `db:"pos"`
		}
		err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
			return tx.SelectContext(ctx, &rows, `SELECT id, (data->>'n')::int AS pos FROM webhook_events`)
		})
		if err != nil {
			b.Fatalf("tenant %d: %v", i, err)
		}
		for _, r := range rows {
			at := recv.at[r.ID]
			delays = append(delays, at.Sub(commits[r.Pos]))
			if first.IsZero() || at.Before(first) {
				first = at
			}
			if at.After(last) {
				last = at
			}
		}
	}
	if !trickle {
		b.ReportMetric(float64(events-1)/last.Sub(first).Seconds(), "events/s")
		return
	}
	slices.Sort(delays)
	pct := func(p float64) float64 { return float64(delays[int(p*float64(len(delays)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.5), "p50_ms")
	b.ReportMetric(pct(0.99), "p99_ms")
}
