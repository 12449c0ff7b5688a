package handlers

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"learngate/handlers/httpx"
	"learngate/handlers/idempotency"
	"learngate/handlers/scimapi"
	"learngate/ratelimit"
	"learngate/tenant"
)

// assertSCIMHeaders checks an answer's Content-Type (application/scim+json)
// and the headers in want exactly ("" for a header that must be absent).
func assertSCIMHeaders(t *testing.T, w *httptest.ResponseRecorder, want map[string]string) {
	t.Helper()
	if got := w.Header().Get("Content-Type"); got != scimapi.ContentType {
		t.Errorf("Content-Type = %q, want %s", got, scimapi.ContentType)
	}
	for name, v := range want {
		if got := w.Header().Get(name); got != v {
			t.Errorf("%s = %q, want %q", name, got, v)
		}
	}
}

// TestSCIMTooLarge: a body over 10 MiB, declared or found while reading
// (also by the Idempotency-Key step), and one past the decoding bounds
// answer 413 in SCIM's shape with the rate-limit headers; nothing is
// created, and the other tenant sees nothing.
func TestSCIMTooLarge(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	huge := `{"userName":"` + strings.Repeat("a", httpx.MaxBodyBytes) + `"}`
	tooLarge := scimErr("413", "", "request body too large")
	send := func(body string, chunked bool, key string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/scim/v2/Users", strings.NewReader(body))
		req.Host = e.acme.host
		req.Header.Set("Authorization", "Bearer "+e.acme.key)
		req.Header.Set("Content-Type", "application/scim+json")
		if chunked {
			req.Body, req.ContentLength = chunkedBody{strings.NewReader(body)}, -1
		}
		if key != "" {
			req.Header.Set(idempotency.KeyHeader, key)
		}
		w := httptest.NewRecorder()
		e.h.public.ServeHTTP(w, req)
		return w
	}
	for _, c := range []struct {
		name, body string
		chunked    bool
		key        string
	}{
		{"declared length", huge, false, ""},
		{"length not declared", huge, true, ""},
		{"length not declared, keyed", huge, true, "big-1"},
		{"65 nested arrays", `{"userName":` + strings.Repeat("[", 65) + strings.Repeat("]", 65) + `}`, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := send(c.body, c.chunked, c.key)
			assertResponse(t, w, http.StatusRequestEntityTooLarge, tooLarge)
			assertSCIMHeaders(t, w, map[string]string{"X-RateLimit-Limit": strconv.Itoa(int(tenant.MaxRateLimit)),
				idempotency.KeyHeader: c.key, "Retry-After": ""})
			if w.Header().Get("X-RateLimit-Remaining") == "" || w.Header().Get("X-RateLimit-Reset") == "" {
				t.Errorf("rate-limit headers missing: %v", w.Header())
			}
		})
	}
	scimExpect(t, e.acme, http.MethodGet, "/scim/v2/Users", "", http.StatusOK, scimEmptyList)
	e.assertSCIMIsolated(t, "", "")
}

// TestSCIMRateLimited: SCIM and /papi share the tenant's budget; past it
// SCIM answers 429 in SCIM's shape with Retry-After and the X-RateLimit-*
// headers, exactly; discovery needs no key and is not limited; the other
// tenant's budget is its own.
func TestSCIMRateLimited(t *testing.T) {
	t.Parallel()
	clock := newManualClock()
	h := newHarness(t, harnessOptions{Store: ratelimit.NewMemoryStore(clock.Now), Now: clock.Now})
	acme := catalogTenant{h: h, host: "acme.learngate.localhost", key: h.createTenant("acme")}
	other := catalogTenant{h: h, host: "other.learngate.localhost", key: h.createTenant("other")}
	setTenantRateLimit(t, h, "acme", 2)
	reset := strconv.FormatInt(clock.start.Unix()+60, 10)

	acme.call(t, http.MethodGet, "/papi/ping", "", http.StatusOK, `{"organisation":"acme"}`)
	clock.at(10 * time.Second)
	w := scimExpect(t, acme, http.MethodGet, "/scim/v2/Users", "", http.StatusOK, scimEmptyList)
	assertSCIMHeaders(t, w, map[string]string{"X-RateLimit-Limit": "2", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset})
	clock.at(15 * time.Second)
	for _, r := range []struct{ method, path, body string }{
		{http.MethodGet, "/scim/v2/Users", ""},
		{http.MethodPost, "/scim/v2/Users", `{"userName":"ann","name":{"givenName":"Ann","familyName":"Lee"},"emails":[{"value":"ann@example.com"}]}`},
	} {
		w := scimExpect(t, acme, r.method, r.path, r.body, http.StatusTooManyRequests, scimErr("429", "", "Rate limit exceeded"))
		assertSCIMHeaders(t, w, map[string]string{"Retry-After": "45", "X-RateLimit-Limit": "2",
			"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset})
	}
	// An unmatched /scim/v2 path too (on the router itself: the document
	// has no such path to check it against).
	raw, err := h.server.PublicRouter()
	if err != nil {
		t.Fatal(err)
	}
	w = do(raw, request{method: http.MethodGet, host: acme.host, path: "/scim/v2/Bulk",
		headers: map[string]string{"Authorization": "Bearer " + acme.key}})
	assertResponse(t, w, http.StatusTooManyRequests, scimErr("429", "", "Rate limit exceeded"))
	assertSCIMHeaders(t, w, map[string]string{"Retry-After": "45", "X-RateLimit-Limit": "2",
		"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset})
	w = do(h.public, request{method: http.MethodGet, host: acme.host, path: "/scim/v2/ServiceProviderConfig"})
	if w.Code != http.StatusOK || w.Header().Get("Retry-After") != "" {
		t.Fatalf("discovery = %d %v, want 200 without Retry-After", w.Code, w.Header())
	}
	scimExpect(t, other, http.MethodGet, "/scim/v2/Users", "", http.StatusOK, scimEmptyList)
	clock.at(60*time.Second + time.Millisecond)
	scimExpect(t, acme, http.MethodGet, "/scim/v2/Users", "", http.StatusOK, scimEmptyList)
}
