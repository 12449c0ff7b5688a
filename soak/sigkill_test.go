//go:build slow

package soak

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
)

func TestSIGKILLDuringBatchSaves(t *testing.T) {
	t.Parallel()
	row := &result{Scenario: "sigkill during batch saves"}
	results.record(t, row)
	dbURL := freshDatabase(t)
	n := startNode(t, nodeOptions{DatabaseURL: dbURL})
	key := n.createTenant("acme", 1_000_000)
	schema := tenantSchema(t, n, "acme")
	// Events are only recorded for subscribers: one endpoint takes them
	// all. The worker is off, so deliveries stay pending and countable.
	if r := n.call("acme", key, http.MethodPost, "/papi/webhooks",
		`{"url":"http://127.0.0.1:9/hook","events":["user.created"]}`, 10*time.Second); r.Err != nil || r.Status != http.StatusCreated {
		t.Fatalf("create webhook endpoint: %s", r)
	}

	const workers = 6
	rounds := pick(2, 10)
	var (
		sent     []sentBatch
		requests int
		killed   int // batches in flight or unanswered when the process died
		failures int
		recovery time.Duration
	)
	for round := range rounds {
		var (
			mu   sync.Mutex
			seq  atomic.Int64
			stop atomic.Bool
			wg   sync.WaitGroup
		)
		for w := range workers {
			wg.Go(func() {
				for !stop.Load() {
					prefix := fmt.Sprintf("kill-r%d-w%d-b%d", round, w, seq.Add(1))
					r := n.call("acme", key, http.MethodPost, "/papi/users/batch_save", batchBody(prefix), 30*time.Second)
					mu.Lock()
					sent = append(sent, sentBatch{prefix: prefix, reply: r})
					mu.Unlock()
					if r.Err != nil {
						return // the process is gone
					}
				}
			})
		}
		// Kill at a different moment of the load each round.
		time.Sleep(time.Duration(300+137*round%400) * time.Millisecond)
		n.sigkill()
		stop.Store(true)
		wg.Wait()
		restarted := time.Now()
		n.start()
		recovery = max(recovery, time.Since(restarted))
	}
	for _, b := range sent {
		requests++
		if !b.acknowledged() {
			killed++
			if b.reply.Err == nil {
				failures++
				t.Errorf("batch %s: answered %s, want 200 or no answer", b.prefix, b.reply)
			}
		}
	}
	if killed == 0 {
		t.Errorf("no batch was in flight when the process was killed: the test proves nothing")
	}
	users, events := savedUsers(t, dbURL, schema)
	applied, broken := checkBatches(t, sent, users, events, true)
	if orphans := eventsWithoutDelivery(t, dbURL, schema); orphans != 0 {
		failures += orphans
		t.Errorf("%d user.created events have no delivery row", orphans)
	}
	// The restarted node serves again.
	if r := n.call("acme", key, http.MethodPost, "/papi/users/batch_save", batchBody("after-restart"), 30*time.Second); r.Status != http.StatusOK {
		failures++
		t.Errorf("batch after the restart: %s", r)
	}
	row.Requests, row.Failures = requests, failures+broken
	row.Recovery, row.recoveryKnown = recovery, true
	t.Logf("%d rounds, %d batches, %d cut off by SIGKILL (%d of them applied whole, the rest not at all); slowest restart %v",
		rounds, requests, killed, applied, recovery)
}

// eventsWithoutDelivery counts the user.created events of schema that no
// endpoint is due to receive.
func eventsWithoutDelivery(t testing.TB, dbURL, schema string) int {
	t.Helper()
	db, err := sqlx.Open("postgres", dbURL)
	if err != nil {
		t.Fatalf("open %s: %v", dbURL, err)
	}
	defer db.Close()
	var n int
	if err := db.GetContext(context.Background(), &n, `SELECT count(*) FROM `+schema+`.webhook_events e
		WHERE e.type = 'user.created' AND NOT EXISTS (SELECT 1 FROM `+schema+`.webhook_deliveries d WHERE d.event_id = e.id)`); err != nil {
		t.Fatalf("count events without delivery: %v", err)
	}
	return n
}
