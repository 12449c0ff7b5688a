package handlers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"learngate/ratelimit"
	"learngate/store/storetest"
	"learngate/tenant"
)

// setTenantRateLimit sets a tenant's requests per minute through the registry.
func setTenantRateLimit(t testing.TB, h *harness, slug string, n int64) {
	t.Helper()
	if _, err := h.registry.Update(context.Background(), slug, tenant.TenantPatch{RateLimitPerMinute: &n}); err != nil {
		t.Fatalf("set rate limit of %s to %d: %v", slug, n, err)
	}
}

func TestRateLimitHeaders(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	key := h.createTenant("acme")
	const n = 5
	setTenantRateLimit(t, h, "acme", n)
	ping := func() *httptest.ResponseRecorder {
		return h.papi(http.MethodGet, "acme.learngate.localhost", "/papi/ping", key, "")
	}

	start := time.Now().Unix()
	for i := int64(1); i <= n; i++ {
		t.Run("request "+strconv.FormatInt(i, 10), func(t *testing.T) {
			w := ping()
			assertResponse(t, w, http.StatusOK, `{"organisation":"acme"}`)
			if got := headerInt(t, w, "X-RateLimit-Limit"); got != n {
				t.Errorf("X-RateLimit-Limit = %d, want %d", got, n)
			}
			if got := headerInt(t, w, "X-RateLimit-Remaining"); got != n-i {
				t.Errorf("X-RateLimit-Remaining = %d, want %d", got, n-i)
			}
			// The oldest hit leaves the window 60 s after it was made.
			if got := headerInt(t, w, "X-RateLimit-Reset"); got < start+60 || got > time.Now().Unix()+61 {
				t.Errorf("X-RateLimit-Reset = %d, want the first hit (%d) + 60 s", got, start)
			}
		})
	}
	t.Run("request over the limit", func(t *testing.T) {
		w := ping()
		assertRateLimited(t, w, 60)
		if got := headerInt(t, w, "X-RateLimit-Limit"); got != n {
			t.Errorf("X-RateLimit-Limit = %d, want %d", got, n)
		}
		if got := headerInt(t, w, "X-RateLimit-Remaining"); got != 0 {
			t.Errorf("X-RateLimit-Remaining = %d, want 0", got)
		}
	})
}

// rateStep is one request at a moment of a manual clock.
type rateStep struct {
	name       string
	at         time.Duration
	status     int
	remaining  int64
	reset      int64 // seconds after the clock's start
	retryAfter int64 // for 429
}

// runRateSteps sends each step's request at its time and checks the answer
// and the rate-limit headers exactly; it stops at the first failing step.
func runRateSteps(t *testing.T, h *harness, clock *manualClock, key string, steps []rateStep) {
	t.Helper()
	for _, st := range steps {
		ok := t.Run(st.name, func(t *testing.T) {
			clock.at(st.at)
			w := h.papi(http.MethodGet, "acme.learngate.localhost", "/papi/ping", key, "")
			if st.status == http.StatusOK {
				assertResponse(t, w, http.StatusOK, `{"organisation":"acme"}`)
			} else {
				assertResponse(t, w, st.status, rateLimitedBody(st.retryAfter))
				if got := headerInt(t, w, "Retry-After"); got != st.retryAfter {
					t.Errorf("Retry-After = %d, want %d", got, st.retryAfter)
				}
			}
			if got := headerInt(t, w, "X-RateLimit-Remaining"); got != st.remaining {
				t.Errorf("X-RateLimit-Remaining = %d, want %d", got, st.remaining)
			}
			if got, want := headerInt(t, w, "X-RateLimit-Reset"), clock.start.Unix()+st.reset; got != want {
				t.Errorf("X-RateLimit-Reset = start+%d, want start+%d", got-clock.start.Unix(), st.reset)
			}
		})
		if !ok {
			return
		}
	}
}

func TestRateLimitSlidingWindow(t *testing.T) {
	t.Parallel()
	clock := newManualClock()
	h := newHarness(t, harnessOptions{Store: ratelimit.NewMemoryStore(clock.Now), Now: clock.Now})
	key := h.createTenant("acme")
	setTenantRateLimit(t, h, "acme", 3)

	ms := time.Millisecond
	// A fixed window would let three requests through at 60.001 s.
	runRateSteps(t, h, clock, key, []rateStep{
		{"hit at 0s", 0, http.StatusOK, 2, 60, 0},
		{"hit at 20s", 20 * time.Second, http.StatusOK, 1, 60, 0},
		{"hit at 40s", 40 * time.Second, http.StatusOK, 0, 60, 0},
		{"full at 50s", 50 * time.Second, http.StatusTooManyRequests, 0, 60, 10},
		{"first hit left at 60.001s", 60*time.Second + ms, http.StatusOK, 0, 80, 0},
		{"full again at 60.001s", 60*time.Second + ms, http.StatusTooManyRequests, 0, 80, 20},
		{"second hit left at 80.001s", 80*time.Second + ms, http.StatusOK, 0, 100, 0},
		{"full again at 80.001s", 80*time.Second + ms, http.StatusTooManyRequests, 0, 100, 20},
	})
}

func TestRateLimitRejectedRequestsDoNotConsumeQuota(t *testing.T) {
	t.Parallel()
	clock := newManualClock()
	h := newHarness(t, harnessOptions{Store: ratelimit.NewMemoryStore(clock.Now), Now: clock.Now})
	key := h.createTenant("acme")
	setTenantRateLimit(t, h, "acme", 2)

	steps := []rateStep{
		{"hit at 0s", 0, http.StatusOK, 1, 60, 0},
		{"hit at 1s", time.Second, http.StatusOK, 0, 60, 0},
	}
	for s := int64(2); s < 60; s += 3 {
		steps = append(steps, rateStep{"rejected at " + strconv.FormatInt(s, 10) + "s",
			time.Duration(s) * time.Second, http.StatusTooManyRequests, 0, 60, 60 - s})
	}
	ms := time.Millisecond
	steps = append(steps,
		rateStep{"first hit left at 60.001s", 60*time.Second + ms, http.StatusOK, 0, 61, 0},
		rateStep{"full again at 60.001s", 60*time.Second + ms, http.StatusTooManyRequests, 0, 61, 1},
		rateStep{"second hit left at 61.001s", 61*time.Second + ms, http.StatusOK, 0, 121, 0},
	)
	runRateSteps(t, h, clock, key, steps)
}

// newRedisClient returns a client on the shared test Redis, closed at the end of the test.
func newRedisClient(t testing.TB) *redis.Client {
	t.Helper()
	opts, err := redis.ParseURL(storetest.RedisURL())
	if err != nil {
		t.Fatalf("parse redis url: %v", err)
	}
	c := redis.NewClient(opts)
	t.Cleanup(func() { c.Close() })
	return c
}

func TestRateLimitSharedAcrossNodes(t *testing.T) {
	t.Parallel()
	// Two nodes over one database, each with its own Redis client, sharing the limiter's key prefix.
	prefix := "lgtest:" + storetest.RandomSuffix() + ":"
	h1 := newHarness(t, harnessOptions{Store: ratelimit.NewRedisStore(newRedisClient(t), prefix)})
	h2 := newHarness(t, harnessOptions{DB: h1.db, DBURL: h1.dbURL, Store: ratelimit.NewRedisStore(newRedisClient(t), prefix)})
	nodes := []*harness{h1, h2}
	acmeKey := h1.createTenant("acme")
	globexKey := h1.createTenant("globex")
	setTenantRateLimit(t, h1, "acme", 6)
	setTenantRateLimit(t, h1, "globex", 10)

	t.Run("alternating", func(t *testing.T) {
		for i := int64(0); i < 10; i++ {
			node := nodes[i%2]
			w := node.papi(http.MethodGet, "acme.learngate.localhost", "/papi/ping", acmeKey, "")
			if i < 6 {
				assertResponse(t, w, http.StatusOK, `{"organisation":"acme"}`)
				if got := headerInt(t, w, "X-RateLimit-Remaining"); got != 5-i {
					t.Fatalf("request %d on node %d: X-RateLimit-Remaining = %d, want %d", i+1, i%2+1, got, 5-i)
				}
				continue
			}
			assertRateLimited(t, w, 60)
		}
	})

	t.Run("concurrent", func(t *testing.T) {
		const total = 60
		results := make([]*httptest.ResponseRecorder, total)
		var wg sync.WaitGroup
		startGate := make(chan struct{})
		for i := range total {
			wg.Go(func() {
				<-startGate
				results[i] = nodes[i%2].papi(http.MethodGet, "globex.learngate.localhost", "/papi/ping", globexKey, "")
			})
		}
		close(startGate)
		wg.Wait()
		ok := 0
		for _, w := range results {
			switch w.Code {
			case http.StatusOK:
				ok++
			case http.StatusTooManyRequests:
			default:
				t.Fatalf("status %d, want 200 or 429; body %s", w.Code, w.Body.String())
			}
		}
		if ok != 10 {
			t.Fatalf("%d requests passed across both nodes, want exactly the limit 10", ok)
		}
	})
}

// counterValue returns the value of the counter called name in reg.
func counterValue(t testing.TB, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather metrics: %v", err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		var sum float64
		for _, m := range f.GetMetric() {
			sum += m.GetCounter().GetValue()
		}
		return sum
	}
	t.Fatalf("metric %s not registered", name)
	return 0
}

func TestRateLimitFailsOpenWhenRedisStops(t *testing.T) {
	t.Parallel()
	srv := storetest.StartRedisServer(t)
	client := redis.NewClient(&redis.Options{Addr: srv.Addr(), MaxRetries: -1,
		DialTimeout: 200 * time.Millisecond, ReadTimeout: 200 * time.Millisecond, WriteTimeout: 200 * time.Millisecond})
	t.Cleanup(func() { client.Close() })
	h := newHarness(t, harnessOptions{Store: ratelimit.NewRedisStore(client, "lgtest:failopen:")})
	key := h.createTenant("acme")
	const n = 3
	setTenantRateLimit(t, h, "acme", n)
	ping := func(t *testing.T, remaining int64) {
		t.Helper()
		w := h.papi(http.MethodGet, "acme.learngate.localhost", "/papi/ping", key, "")
		assertResponse(t, w, http.StatusOK, `{"organisation":"acme"}`)
		if got := headerInt(t, w, "X-RateLimit-Remaining"); got != remaining {
			t.Fatalf("X-RateLimit-Remaining = %d, want %d", got, remaining)
		}
	}
	const failOpen = "learngate_ratelimit_fail_open_total"

	if !t.Run("counted while redis is up", func(t *testing.T) {
		ping(t, n-1)
		if got := counterValue(t, h.server.Metrics.Registry, failOpen); got != 0 {
			t.Fatalf("%s = %v, want 0", failOpen, got)
		}
	}) {
		return
	}

	srv.Stop()
	t.Run("served while redis is down", func(t *testing.T) {
		// More requests than the limit: nothing is counted, everything is served.
		for range 2 * n {
			ping(t, n)
		}
		if got := counterValue(t, h.server.Metrics.Registry, failOpen); got <= 0 {
			t.Fatalf("%s = %v, want > 0", failOpen, got)
		}
	})

	srv.Start()
	t.Run("limited again once redis is back", func(t *testing.T) {
		// The restarted server is empty; the circuit breaker probes it after 1 s.
		deadline := time.Now().Add(5 * time.Second)
		for {
			w := h.papi(http.MethodGet, "acme.learngate.localhost", "/papi/ping", key, "")
			assertResponse(t, w, http.StatusOK, `{"organisation":"acme"}`)
			if headerInt(t, w, "X-RateLimit-Remaining") == n-1 {
				break // the first hit counted in Redis again
			}
			if time.Now().After(deadline) {
				t.Fatal("rate limiting did not resume within 5 s of Redis coming back")
			}
			time.Sleep(50 * time.Millisecond)
		}
		for i := int64(2); i <= n; i++ {
			ping(t, n-i)
		}
		assertRateLimited(t, h.papi(http.MethodGet, "acme.learngate.localhost", "/papi/ping", key, ""), 60)
	})
}
