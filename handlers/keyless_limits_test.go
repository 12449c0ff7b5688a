package handlers

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"learngate/blob"
	"learngate/handlers/httpx"
	"learngate/ratelimit"
	"learngate/tenant"
)

// Requests without a valid key and the failed-key throttle (docs/reliability.md,
// "Rate limits and readiness"; docs/decisions.md, "Gateway" and "Rate limits"): nobody without a
// tenant's key uses its quota, a valid key is never refused for other
// requests' failures, and Redis being down neither opens the throttle nor
// fails readiness.

const (
	hostAcme   = "acme.learngate.localhost"
	hostGlobex = "globex.learngate.localhost"
	bodyAcme   = `{"organisation":"acme"}`
	bodyGlobex = `{"organisation":"globex"}`
)

// pingFrom sends GET /papi/ping with key (none when empty) from remote.
func pingFrom(h *harness, host, key, remote string) *httptest.ResponseRecorder {
	r := request{host: host, path: "/papi/ping", remote: remote}
	if key != "" {
		r.headers = map[string]string{"Authorization": key}
	}
	return do(h.public, r)
}

// assertRemaining checks X-RateLimit-Remaining.
func assertRemaining(t testing.TB, w *httptest.ResponseRecorder, want int64) {
	t.Helper()
	if got := headerInt(t, w, "X-RateLimit-Remaining"); got != want {
		t.Fatalf("X-RateLimit-Remaining = %d, want %d", got, want)
	}
}

// downloadPath returns the path of a valid download link of tenant id's
// certificate file, stored in h's blob folder.
func downloadPath(t *testing.T, h *harness, tenantID int64, now time.Time) string {
	t.Helper()
	ctx := context.Background()
	key := "certificates/test-" + itoa(tenantID) + ".pdf"
	if err := h.blobs.Put(ctx, key, []byte("%PDF-1.4 test"), "application/pdf"); err != nil {
		t.Fatal(err)
	}
	link, err := h.blobs.URL(ctx, key, blob.Link{Scheme: "http", Host: hostAcme, TenantID: tenantID,
		Filename: "certificate-LG-TEST1.pdf", Now: now, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	return u.Path
}

func TestDownloadsDoNotUseTenantQuota(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	key := h.createTenant("acme")
	globexKey := h.createTenant("globex")
	setTenantRateLimit(t, h, "acme", 10)
	acme, err := h.registry.Show(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	valid := downloadPath(t, h, acme.ID, time.Now())

	// Garbage links from anybody: more than the tenant's whole limit.
	for i := range 12 {
		w := do(h.public, request{host: hostAcme, path: "/papi/certificates/download/garbage" + itoa(int64(i)),
			remote: "203.0.113.50:1"})
		assertResponse(t, w, http.StatusNotFound, notFoundBody)
		if got := headerInt(t, w, "X-RateLimit-Limit"); got != httpx.DefaultDownloadsPerMinute {
			t.Fatalf("download X-RateLimit-Limit = %d, want the download limit %d", got, httpx.DefaultDownloadsPerMinute)
		}
	}
	t.Run("a valid download does not use it either", func(t *testing.T) {
		w := do(h.public, request{host: hostAcme, path: valid, remote: "203.0.113.51:1"})
		if w.Code != http.StatusOK || w.Body.String() != "%PDF-1.4 test" {
			t.Fatalf("download = %d %q", w.Code, w.Body.String())
		}
		assertRemaining(t, w, httpx.DefaultDownloadsPerMinute-1)
	})
	t.Run("acme's own key still has its whole quota", func(t *testing.T) {
		w := h.papi(http.MethodGet, hostAcme, "/papi/ping", key, "")
		assertResponse(t, w, http.StatusOK, bodyAcme)
		assertRemaining(t, w, 9)
	})
	t.Run("acme's link does not work on globex, nor use globex's quota", func(t *testing.T) {
		assertResponse(t, do(h.public, request{host: hostGlobex, path: valid}), http.StatusNotFound, notFoundBody)
		w := h.papi(http.MethodGet, hostGlobex, "/papi/ping", globexKey, "")
		assertResponse(t, w, http.StatusOK, bodyGlobex)
		assertRemaining(t, w, 299)
	})
}

func TestDownloadLimitPerClientIP(t *testing.T) {
	t.Parallel()
	clock := newManualClock()
	h := newHarness(t, harnessOptions{Store: ratelimit.NewMemoryStore(clock.Now), Now: clock.Now})
	key := h.createTenant("acme")
	h.createTenant("globex")
	h.server.DownloadsPerMinute = 3
	const client = "203.0.113.60:1"
	garbage := func(host, remote string) *httptest.ResponseRecorder {
		return do(h.public, request{host: host, path: "/papi/certificates/download/garbage", remote: remote})
	}
	for i := range int64(3) {
		clock.at(time.Duration(i) * 10 * time.Second)
		w := garbage(hostAcme, client)
		assertResponse(t, w, http.StatusNotFound, notFoundBody)
		assertRemaining(t, w, 2-i)
	}
	t.Run("over the limit: 429 like every other", func(t *testing.T) {
		clock.at(25*time.Second + 500*time.Millisecond)
		w := garbage(hostAcme, client)
		assertResponse(t, w, http.StatusTooManyRequests, rateLimitedBody(35))
		if got := headerInt(t, w, "Retry-After"); got != 35 {
			t.Fatalf("Retry-After = %d, want 35 (the first download leaves at 60 s)", got)
		}
		assertRemaining(t, w, 0)
		if got := headerInt(t, w, "X-RateLimit-Limit"); got != 3 {
			t.Fatalf("X-RateLimit-Limit = %d, want 3", got)
		}
	})
	t.Run("another client is not limited", func(t *testing.T) {
		assertResponse(t, garbage(hostAcme, "203.0.113.61:1"), http.StatusNotFound, notFoundBody)
	})
	t.Run("the same client on another tenant has its own budget", func(t *testing.T) {
		assertResponse(t, garbage(hostGlobex, client), http.StatusNotFound, notFoundBody)
	})
	t.Run("the tenant's key from the same client is not limited", func(t *testing.T) {
		w := pingFrom(h, hostAcme, key, client)
		assertResponse(t, w, http.StatusOK, bodyAcme)
		assertRemaining(t, w, 299)
	})
	t.Run("the download slot comes back when the first leaves", func(t *testing.T) {
		clock.at(60*time.Second + time.Millisecond)
		assertResponse(t, garbage(hostAcme, client), http.StatusNotFound, notFoundBody)
	})
}

func TestWrongKeysDoNotUseTenantQuota(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	key := h.createTenant("acme")
	globexKey := h.createTenant("globex")
	setTenantRateLimit(t, h, "acme", 5)

	wrongKeys := []string{unregisteredKey(t), globexKey, "", "Bearer "}
	for i := range 10 {
		w := pingFrom(h, hostAcme, wrongKeys[i%len(wrongKeys)], "203.0.113.70:1")
		assertResponse(t, w, http.StatusUnauthorized, unauthorizedBody)
		if w.Header().Get("X-RateLimit-Remaining") != "" {
			t.Fatalf("a 401 carries X-RateLimit-Remaining %q: it went through the tenant's limit", w.Header().Get("X-RateLimit-Remaining"))
		}
	}
	w := h.papi(http.MethodGet, hostAcme, "/papi/ping", key, "")
	assertResponse(t, w, http.StatusOK, bodyAcme)
	assertRemaining(t, w, 4)

	t.Run("order: tenant 404, key 401, then the limit 429", func(t *testing.T) {
		for range 4 {
			assertResponse(t, h.papi(http.MethodGet, hostAcme, "/papi/ping", key, ""), http.StatusOK, bodyAcme)
		}
		assertRateLimited(t, h.papi(http.MethodGet, hostAcme, "/papi/ping", key, ""), 60)
		assertResponse(t, pingFrom(h, hostAcme, unregisteredKey(t), "203.0.113.71:1"), http.StatusUnauthorized, unauthorizedBody)
		assertResponse(t, pingFrom(h, "nobody.learngate.localhost", key, "203.0.113.71:1"), http.StatusNotFound, unknownOrgBody)
	})
	t.Run("globex's quota is untouched", func(t *testing.T) {
		w := h.papi(http.MethodGet, hostGlobex, "/papi/ping", globexKey, "")
		assertResponse(t, w, http.StatusOK, bodyGlobex)
		assertRemaining(t, w, 299)
	})
}

// deadRedis returns a client of a Redis address where nothing listens.
func deadRedis(t *testing.T) *redis.Client {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: 200 * time.Millisecond,
		ReadTimeout: 200 * time.Millisecond, WriteTimeout: 200 * time.Millisecond})
	t.Cleanup(func() { c.Close() })
	return c
}

func TestRedisDownKeepsFailedKeyThrottle(t *testing.T) {
	t.Parallel()
	dead := deadRedis(t)
	h := newHarness(t, harnessOptions{Store: ratelimit.NewRedisStore(dead, "lgtest:dead:")})
	key := h.createTenant("acme")
	h.server.RedisReady = func(ctx context.Context) error { return dead.Ping(ctx).Err() }
	const attacker = "198.51.100.90:1"
	assertResponse(t, pingFrom(h, hostAcme, key, attacker), http.StatusOK, bodyAcme) // the key is in use

	for i := range int(h.server.AuthFailuresPerMinute) {
		w := pingFrom(h, hostAcme, unregisteredKey(t), attacker)
		if w.Code != http.StatusUnauthorized {
			t.Fatalf("failure %d: status %d, want 401", i+1, w.Code)
		}
	}
	t.Run("over the limit: 429, counted on this node", func(t *testing.T) {
		assertRateLimited(t, pingFrom(h, hostAcme, unregisteredKey(t), attacker), 60)
	})
	t.Run("the right key passes, the tenant limit failing open", func(t *testing.T) {
		w := pingFrom(h, hostAcme, key, attacker)
		assertResponse(t, w, http.StatusOK, bodyAcme)
		assertRemaining(t, w, 300)
	})
	t.Run("another client is unaffected", func(t *testing.T) {
		assertResponse(t, pingFrom(h, hostAcme, unregisteredKey(t), "198.51.100.91:1"), http.StatusUnauthorized, unauthorizedBody)
	})
	t.Run("readyz answers 200 and says Redis is down", func(t *testing.T) {
		const metric = "learngate_readiness_redis_down_total"
		before := counterValue(t, h.server.Metrics.Registry, metric)
		assertResponse(t, do(h.public, request{path: "/readyz"}), http.StatusOK, `{"database":"up","redis":"down"}`)
		if got := counterValue(t, h.server.Metrics.Registry, metric); got != before+1 {
			t.Fatalf("%s = %v, want %v", metric, got, before+1)
		}
	})
}

func TestReadyzBody(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	const metric = "learngate_readiness_redis_down_total"
	t.Run("redis up", func(t *testing.T) {
		assertResponse(t, do(h.public, request{host: "anything.invalid", path: "/readyz"}), http.StatusOK, `{"database":"up","redis":"up"}`)
		if got := counterValue(t, h.server.Metrics.Registry, metric); got != 0 {
			t.Fatalf("%s = %v, want 0", metric, got)
		}
	})
	t.Run("no redis configured", func(t *testing.T) {
		h.server.RedisReady = nil
		assertResponse(t, do(h.public, request{path: "/readyz"}), http.StatusOK, `{"database":"up","redis":"none"}`)
	})
}

// TestValidKeyNotRefusedForOtherTenantsFailures: an integration platform
// keeps retrying a suspended tenant's key from its one egress address; the
// address is throttled, but the other tenants' keys it sends still pass,
// even once a registry change has emptied the key cache.
func TestValidKeyNotRefusedForOtherTenantsFailures(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	acmeKey := h.createTenant("acme")
	globexKey := h.createTenant("globex")
	const platform = "198.51.100.100:1"
	assertResponse(t, pingFrom(h, hostGlobex, globexKey, platform), http.StatusOK, bodyGlobex)
	suspended := "suspended"
	if _, err := h.registry.Update(context.Background(), "acme", tenant.TenantPatch{Status: &suspended}); err != nil {
		t.Fatal(err)
	}
	for range int(h.server.AuthFailuresPerMinute) {
		assertResponse(t, pingFrom(h, hostAcme, acmeKey, platform), http.StatusUnauthorized, unauthorizedBody)
	}
	assertRateLimited(t, pingFrom(h, hostAcme, acmeKey, platform), 60)

	setTenantRateLimit(t, h, "globex", 299) // a change: every node drops its key cache
	for range 3 {
		w := pingFrom(h, hostGlobex, globexKey, platform)
		assertResponse(t, w, http.StatusOK, bodyGlobex)
	}
	t.Run("acme's key and guesses stay throttled", func(t *testing.T) {
		assertRateLimited(t, pingFrom(h, hostAcme, acmeKey, platform), 60)
		assertRateLimited(t, pingFrom(h, hostGlobex, unregisteredKey(t), platform), 60)
		assertRateLimited(t, pingFrom(h, hostGlobex, "", platform), 60)
	})
}

// TestBlockedClientKeepsItsValidKeys: a blocked client's guesses get 429,
// while a valid key it never sent before (made after the block began) passes
// at once: the key is checked against the tenant's keys in memory before the
// block is looked at (tenant.TestWrongKeysCostNoDatabaseQuery shows the
// guesses cost no database query).
func TestBlockedClientKeepsItsValidKeys(t *testing.T) {
	t.Parallel()
	clock := newManualClock()
	h := newHarness(t, harnessOptions{Store: ratelimit.NewMemoryStore(clock.Now), Now: clock.Now})
	h.createTenant("acme")
	const attacker = "198.51.100.110:1"
	for range int(h.server.AuthFailuresPerMinute) {
		assertResponse(t, pingFrom(h, hostAcme, unregisteredKey(t), attacker), http.StatusUnauthorized, unauthorizedBody)
	}
	assertRateLimited(t, pingFrom(h, hostAcme, unregisteredKey(t), attacker), 60)
	_, fresh, err := h.registry.CreateKey(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	assertResponse(t, pingFrom(h, hostAcme, fresh, attacker), http.StatusOK, bodyAcme)
	assertRateLimited(t, pingFrom(h, hostAcme, unregisteredKey(t), attacker), 60)
	assertRateLimited(t, pingFrom(h, hostAcme, "", attacker), 60)
	assertResponse(t, pingFrom(h, hostAcme, fresh, attacker), http.StatusOK, bodyAcme)
}
