//go:build slow

package soak

import (
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// unavailableBody is the exact answer while the database is down.
const unavailableBody = `{"error":"service unavailable"}`

// outageBound is the longest a request may take while the database is
// down: a hang fails the test. A behaviour check, not a performance target.
const outageBound = 2 * time.Second

// recoveryBound is how soon after the database is back requests must succeed.
const recoveryBound = 5 * time.Second

// readTimeout is the nodes' LEARNGATE_DATABASE_READ_TIMEOUT in these tests.
const readTimeout = 2 * time.Second

func TestPostgresRestartMidLoad(t *testing.T) {
	t.Parallel()
	for _, mode := range pick([]string{"fast"}, []string{"fast", "immediate"}) {
		t.Run(mode, func(t *testing.T) { postgresOutage(t, mode) })
	}
}

// TestPostgresHangsMidLoad freezes PostgreSQL (SIGSTOP: it accepts
// connections but answers nothing, like a frozen machine) instead of
// stopping it. Requests fail once LEARNGATE_DATABASE_READ_TIMEOUT passes
// without a byte from the server (R6 in docs/reliability.md), so they are
// allowed that much longer than in a restart.
func TestPostgresHangsMidLoad(t *testing.T) {
	t.Parallel()
	postgresOutage(t, "frozen")
}

// postgresOutage runs mixed load on a node while its PostgreSQL is stopped
// in mode (fast, immediate) and started again, or frozen and thawed, and
// checks every answer.
func postgresOutage(t *testing.T, mode string) {
	row := &result{Scenario: "postgres restart (" + mode + ")"}
	bound := outageBound
	if mode == "frozen" {
		row.Scenario = "postgres frozen (SIGSTOP)"
		bound += readTimeout
	}
	results.record(t, row)
	cluster := startPGCluster(t, true)
	dbURL := cluster.createDatabase("learngate")
	n := startNode(t, nodeOptions{DatabaseURL: dbURL, Env: []string{"LEARNGATE_DATABASE_READ_TIMEOUT=" + readTimeout.String()}})
	key := n.createTenant("acme", 1_000_000)

	var (
		mu        sync.Mutex
		sent      []sentBatch
		downAt    atomic.Int64 // unix nanos the stop began, 0 while up
		upAt      atomic.Int64 // unix nanos the server accepted connections again
		firstOK   atomic.Int64 // unix nanos of the first success that started after upAt
		stop      atomic.Bool
		seq       atomic.Int64
		requests  atomic.Int64
		failures  atomic.Int64
		maxOutage atomic.Int64
		maxUp     atomic.Int64 // slowest answer while the dependency was up, for comparison
		outage503 atomic.Int64
	)
	fail := func(format string, args ...any) {
		failures.Add(1)
		t.Errorf(format, args...)
	}
	worker := func(w int) {
		for i := 0; !stop.Load(); i++ {
			started := time.Now()
			wasDown := downAt.Load() != 0 && upAt.Load() == 0
			var r reply
			batch := ""
			if i%2 == 0 {
				batch = fmt.Sprintf("pg%s-w%d-b%d", mode, w, seq.Add(1))
				r = n.call("acme", key, http.MethodPost, "/papi/users/batch_save", batchBody(batch), 30*time.Second)
				mu.Lock()
				sent = append(sent, sentBatch{prefix: batch, reply: r})
				mu.Unlock()
			} else {
				r = n.call("acme", key, http.MethodGet, "/papi/users?per_page=5", "", 30*time.Second)
			}
			requests.Add(1)
			up := upAt.Load()
			switch {
			case r.Err == nil && r.Status == http.StatusOK:
				if up != 0 && started.UnixNano() >= up {
					firstOK.CompareAndSwap(0, time.Now().UnixNano())
				}
			case r.Err == nil && r.Status == http.StatusServiceUnavailable && string(r.Body) == unavailableBody:
				outage503.Add(1)
				if downAt.Load() == 0 {
					fail("503 before the database went down: %s", r)
				}
				if up != 0 && started.Sub(time.Unix(0, up)) > recoveryBound {
					fail("503 %v after the database came back", started.Sub(time.Unix(0, up)))
				}
			default:
				fail("answer %s (batch %q), want 200 or 503 %s", r, batch, unavailableBody)
			}
			if downAt.Load() == 0 {
				storeMax(&maxUp, r.Elapsed)
			}
			if wasDown {
				storeMax(&maxOutage, r.Elapsed)
				if r.Elapsed > bound {
					fail("request took %v while the database was down, want < %v", r.Elapsed, bound)
				}
			}
		}
	}
	// The load stops before the test ends, also when it fails early.
	stopLoad := startLoad(4, &stop, worker)
	defer stopLoad()
	time.Sleep(pick(time.Second, 5*time.Second))
	downAt.Store(time.Now().UnixNano())
	if mode == "frozen" {
		cluster.freeze()
	} else {
		cluster.stop(mode)
	}
	// Longer than bound, so that requests waiting out the whole outage fail.
	time.Sleep(pick(bound+time.Second, 10*time.Second))
	if mode == "frozen" {
		cluster.thaw()
	} else {
		cluster.start()
	}
	upAt.Store(time.Now().UnixNano())
	time.Sleep(pick(recoveryBound+time.Second, recoveryBound+10*time.Second))
	stopLoad()

	row.Requests, row.Failures = int(requests.Load()), int(failures.Load())
	row.MaxOutage = time.Duration(maxOutage.Load())
	if ok := firstOK.Load(); ok != 0 {
		row.Recovery, row.recoveryKnown = time.Duration(ok-upAt.Load()), true
		if row.Recovery > recoveryBound {
			t.Errorf("first success %v after the database came back, want within %v", row.Recovery, recoveryBound)
		}
	} else {
		t.Errorf("no request succeeded after the database came back")
	}
	if outage503.Load() == 0 {
		t.Errorf("no 503 while the database was down: the outage was not observed")
	}
	users, events := savedUsers(t, dbURL, tenantSchema(t, n, "acme"))
	applied, broken := checkBatches(t, sent, users, events, false)
	row.Failures += broken
	t.Logf("%d requests (%d answered 503), %d batches, %d unacknowledged batches applied; slowest answer during the outage %v (before it %v); recovery %v",
		row.Requests, outage503.Load(), len(sent), applied, row.MaxOutage, time.Duration(maxUp.Load()), row.Recovery)
	if t.Failed() {
		t.Logf("node log:\n%s", n.log())
	}
}
