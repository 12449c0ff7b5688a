package handlers

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"testing"
	"time"

	"learngate/handlers/httpx"
)

// Brute force (docs/reliability.md, "Brute force"): key guessing from one
// client is throttled whichever way the key is sent, IPv6 clients are
// counted per /64, other clients are unaffected, and a wrong key costs the
// same however much of it matches a real one. TestAuthFailureLimit
// (chain_test.go) covers the basic case.

// guess sends one request with a wrong key, in the form given, from remote.
func guess(h *harness, form, remote, wrong string) *httptest.ResponseRecorder {
	r := request{host: "acme.learngate.localhost", path: "/papi/ping", remote: remote}
	switch form {
	case "raw":
		r.headers = map[string]string{"Authorization": wrong}
	case "bearer":
		r.headers = map[string]string{"Authorization": "Bearer " + wrong}
	case "query":
		r.path += "?api_key=" + wrong
	}
	return do(h.public, r)
}

func TestAuthFailureLimitEveryKeyForm(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	key := h.createTenant("acme")
	const attacker = "198.51.100.20:5555"
	assertResponse(t, guess(h, "raw", attacker, key), http.StatusOK, `{"organisation":"acme"}`) // the key is in use
	forms := []string{"raw", "bearer", "query"}
	for i := range int(h.server.AuthFailuresPerMinute) {
		w := guess(h, forms[i%len(forms)], attacker, unregisteredKey(t))
		assertResponse(t, w, http.StatusUnauthorized, unauthorizedBody)
	}
	for _, form := range forms {
		t.Run(form+" is blocked once over the limit", func(t *testing.T) {
			assertRateLimited(t, guess(h, form, attacker, unregisteredKey(t)), 60)
		})
	}
	t.Run("the right key from the same client passes", func(t *testing.T) {
		assertResponse(t, guess(h, "query", attacker, key), http.StatusOK, `{"organisation":"acme"}`)
	})
	t.Run("another client is unaffected", func(t *testing.T) {
		assertResponse(t, guess(h, "raw", "198.51.100.21:5555", key), http.StatusOK, `{"organisation":"acme"}`)
	})
}

func TestAuthFailureLimitIPv6Prefix(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	key := h.createTenant("acme")
	assertResponse(t, guess(h, "raw", "[2001:db8:1:2::1]:4444", key), http.StatusOK, `{"organisation":"acme"}`) // the key is in use
	// Every guess from a new address of one /64.
	for i := range int(h.server.AuthFailuresPerMinute) {
		remote := fmt.Sprintf("[2001:db8:1:2:%x::1]:4444", i+1)
		assertResponse(t, guess(h, "raw", remote, unregisteredKey(t)), http.StatusUnauthorized, unauthorizedBody)
	}
	t.Run("a new address of the same /64 is blocked", func(t *testing.T) {
		assertRateLimited(t, guess(h, "raw", "[2001:db8:1:2:ffff::9]:1", unregisteredKey(t)), 60)
	})
	t.Run("the right key from the same /64 passes", func(t *testing.T) {
		assertResponse(t, guess(h, "raw", "[2001:db8:1:2:ffff::9]:1", key), http.StatusOK, `{"organisation":"acme"}`)
	})
	t.Run("another /64 is unaffected", func(t *testing.T) {
		assertResponse(t, guess(h, "raw", "[2001:db8:1:3::1]:1", key), http.StatusOK, `{"organisation":"acme"}`)
	})
	t.Run("IPv4 clients are unaffected", func(t *testing.T) {
		assertResponse(t, guess(h, "raw", "192.0.2.50:1", key), http.StatusOK, `{"organisation":"acme"}`)
	})
}

func TestClientBucket(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ ip, want string }{
		{"192.0.2.1", "192.0.2.1"},
		{"2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"},
		{"2001:db8:1:2::", "2001:db8:1:2::/64"},
		{"fe80::1%eth0", "fe80::/64"},
		{"::ffff:192.0.2.1", "::ffff:192.0.2.1"},
		{"not an address", "not an address"},
		{"", ""},
	} {
		if got := httpx.ClientBucket(tt.ip); got != tt.want {
			t.Errorf("httpx.ClientBucket(%q) = %q, want %q", tt.ip, got, tt.want)
		}
	}
}

func TestDuplicatedAuthorizationHeader(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	key := h.createTenant("acme")
	send := func(values ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, "/papi/ping", nil)
		req.Host = "acme.learngate.localhost"
		req.Header["Authorization"] = values
		w := httptest.NewRecorder()
		h.public.ServeHTTP(w, req)
		return w
	}
	// The first value is the key; a second cannot rescue a wrong first.
	assertResponse(t, send(unregisteredKey(t), key), http.StatusUnauthorized, unauthorizedBody)
	assertResponse(t, send(key, unregisteredKey(t)), http.StatusOK, `{"organisation":"acme"}`)
	assertResponse(t, send("", key), http.StatusUnauthorized, unauthorizedBody)
}

func medianOf(ds []time.Duration) time.Duration {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}
