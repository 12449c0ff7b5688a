//go:build slow

package soak

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"learngate/store/storetest"
)

// failOpenMetric counts rate-limit checks let through on a Redis failure.
const failOpenMetric = "learngate_ratelimit_fail_open_total"

// redisOutageBound is the longest a request may take while Redis is down,
// so that a hang fails the test: a behaviour check, not a performance
// target. The limiter's breaker and short timeouts make an outage cost
// milliseconds; before R1 (docs/reliability.md) it cost 1.3–1.8 s, which
// TestRedisClientFailsFast in cmd/learngate guards against.
const redisOutageBound = outageBound

func TestRedisRestartMidLoad(t *testing.T) {
	t.Parallel()
	row := &result{Scenario: "redis restart"}
	results.record(t, row)
	redisSrv := storetest.StartRedisServer(t)
	n := startNode(t, nodeOptions{DatabaseURL: freshDatabase(t), RedisURL: "redis://" + redisSrv.Addr() + "/0"})
	const loadLimit = 1_000_000
	key := n.createTenant("acme", loadLimit)
	const probeLimit = 3
	probeKey := n.createTenant("probe", probeLimit)

	if got := metricValue(t, n, failOpenMetric); got != 0 {
		t.Fatalf("%s = %v before the outage, want 0", failOpenMetric, got)
	}
	var (
		stop      atomic.Bool
		down      atomic.Bool
		seq       atomic.Int64
		requests  atomic.Int64
		failures  atomic.Int64
		uncounted atomic.Int64 // answers while Redis was down whose headers show a fail-open
		maxOutage atomic.Int64
		maxUp     atomic.Int64 // slowest answer while the dependency was up, for comparison
	)
	worker := func(w int) {
		for i := 0; !stop.Load(); i++ {
			wasDown := down.Load()
			var r reply
			if i%3 == 0 {
				name := fmt.Sprintf("redis-w%d-u%d", w, seq.Add(1))
				r = n.call("acme", key, http.MethodPost, "/papi/users",
					fmt.Sprintf(`{"user_name":%q,"first_name":"Soak","last_name":"Redis","email":"%s@soak.example"}`, name, name), 10*time.Second)
			} else {
				r = n.call("acme", key, http.MethodGet, "/papi/users?per_page=5", "", 10*time.Second)
			}
			requests.Add(1)
			if r.Err != nil || r.Status != http.StatusOK {
				failures.Add(1)
				t.Errorf("answer %s, want 200 (Redis down: %v)", r, wasDown)
				continue
			}
			if !wasDown && !down.Load() {
				storeMax(&maxUp, r.Elapsed)
			}
			if wasDown && down.Load() {
				if r.Header.Get("X-RateLimit-Remaining") == strconv.Itoa(loadLimit) {
					uncounted.Add(1)
				}
				storeMax(&maxOutage, r.Elapsed)
				if r.Elapsed > redisOutageBound {
					failures.Add(1)
					t.Errorf("request took %v while Redis was down, want < %v", r.Elapsed, redisOutageBound)
				}
			}
		}
	}
	// The load stops before the test ends, also when it fails early.
	stopLoad := startLoad(4, &stop, worker)
	defer stopLoad()
	time.Sleep(pick(time.Second, 5*time.Second))
	down.Store(true)
	redisSrv.Stop()
	time.Sleep(pick(2*time.Second, 10*time.Second))
	readyDown := n.send("http://"+n.public+"/readyz", "", http.MethodGet, "X-Soak", "1", "", 5*time.Second)
	redisSrv.Start()
	down.Store(false)
	upAt := time.Now()

	// Limiting resumes: the probe tenant (limit 3) is limited again.
	var recovered time.Duration
	for {
		r := n.call("probe", probeKey, http.MethodGet, "/papi/ping", "", 5*time.Second)
		requests.Add(1)
		if r.Err != nil || r.Status != http.StatusOK {
			failures.Add(1)
			t.Fatalf("probe ping after the restart: %s", r)
		}
		if r.Header.Get("X-RateLimit-Remaining") == strconv.Itoa(probeLimit-1) {
			recovered = time.Since(upAt)
			break
		}
		if time.Since(upAt) > recoveryBound {
			t.Fatalf("rate limiting did not resume within %v of Redis coming back", recoveryBound)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for i := 2; i <= probeLimit; i++ {
		r := n.call("probe", probeKey, http.MethodGet, "/papi/ping", "", 5*time.Second)
		requests.Add(1)
		if r.Status != http.StatusOK || r.Header.Get("X-RateLimit-Remaining") != strconv.Itoa(probeLimit-i) {
			t.Fatalf("probe ping %d: %s, remaining %q", i, r, r.Header.Get("X-RateLimit-Remaining"))
		}
	}
	if r := n.call("probe", probeKey, http.MethodGet, "/papi/ping", "", 5*time.Second); r.Status != http.StatusTooManyRequests {
		t.Fatalf("probe ping over the limit of %d: %s, want 429", probeLimit, r)
	}
	time.Sleep(pick(time.Second, 5*time.Second))
	stopLoad()

	row.Requests, row.Failures = int(requests.Load()), int(failures.Load())
	row.MaxOutage, row.Recovery, row.recoveryKnown = time.Duration(maxOutage.Load()), recovered, true
	failedOpen := metricValue(t, n, failOpenMetric)
	if failedOpen <= 0 || uncounted.Load() == 0 {
		t.Errorf("no fail-open seen while Redis was down: %s = %v, %d uncounted answers", failOpenMetric, failedOpen, uncounted.Load())
	}
	if readyDown.Err != nil || readyDown.Status != http.StatusOK ||
		string(bytes.TrimSpace(readyDown.Body)) != `{"database":"up","redis":"down"}` {
		t.Errorf(`/readyz while Redis was down: %s, want 200 {"database":"up","redis":"down"} (docs/decisions.md, "Gateway")`, readyDown)
	}
	if got := metricValue(t, n, "learngate_readiness_redis_down_total"); got <= 0 {
		t.Errorf("learngate_readiness_redis_down_total = %v after /readyz saw Redis down, want > 0", got)
	}
	t.Logf("%d requests, %d failures, %v fail-opens; slowest answer during the outage %v (while up %v); limiting back after %v",
		row.Requests, row.Failures, failedOpen, row.MaxOutage, time.Duration(maxUp.Load()), recovered)
	if t.Failed() {
		t.Logf("node log:\n%s", n.log())
	}
}

// metricValue reads a counter from the node's ops /metrics (0 when absent).
func metricValue(t testing.TB, n *node, name string) float64 {
	t.Helper()
	r := n.opsCall(http.MethodGet, "/metrics", "")
	if r.Err != nil || r.Status != http.StatusOK {
		t.Fatalf("GET /metrics: %s", r)
	}
	sc := bufio.NewScanner(bytes.NewReader(r.Body))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+" ") && !strings.HasPrefix(line, name+"{") {
			continue
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			t.Fatalf("metric line %q: %v", line, err)
		}
		return v
	}
	return 0
}
