package handlers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"learngate"
	"learngate/handlers/httpx"
	"learngate/handlers/papi"
	"learngate/tenant"
)

// Bodies the chain answers with (docs/decisions.md, "Gateway" and "Authentication and the order of checks").
const (
	unknownOrgBody   = `{"error":"unknown organisation"}`
	unauthorizedBody = `{"error":"unauthorized"}`
	notFoundBody     = `{"error":"not found"}`
	notJSONBody      = `{"error":"Content-Type must be application/json"}`
	internalBody     = `{"error":"internal error"}`
)

// headerInt parses a response header that must hold an integer.
func headerInt(t testing.TB, w *httptest.ResponseRecorder, name string) int64 {
	t.Helper()
	v := w.Header().Get(name)
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		t.Fatalf("header %s = %q, want an integer", name, v)
	}
	return n
}

// unregisteredKey returns a well-formed API key that no tenant holds.
func unregisteredKey(t testing.TB) string {
	t.Helper()
	text, _, err := tenant.GenerateKey()
	if err != nil {
		t.Fatalf("generate key: %v", err)
	}
	return text
}

// rateLimitedBody is the exact 429 body for a retry after r seconds.
func rateLimitedBody(r int64) string {
	return fmt.Sprintf(`{"error":"Rate limit exceeded","retry_after_seconds":%d}`, r)
}

// assertRateLimited checks a 429: Retry-After at least 1 and at most
// maxRetry, and the body's retry_after_seconds equal to it. It returns the
// Retry-After value.
func assertRateLimited(t testing.TB, w *httptest.ResponseRecorder, maxRetry int64) int64 {
	t.Helper()
	if w.Code != http.StatusTooManyRequests {
		t.Fatalf("status = %d, want 429; body %s", w.Code, w.Body.String())
	}
	r := headerInt(t, w, "Retry-After")
	if r < 1 || r > maxRetry {
		t.Fatalf("Retry-After = %d, want 1..%d", r, maxRetry)
	}
	assertResponse(t, w, http.StatusTooManyRequests, rateLimitedBody(r))
	return r
}

func TestTenantResolution(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	key := h.createTenant("acme", "learn.acme.test")
	const acme = `{"organisation":"acme"}`

	tests := []struct {
		name   string
		host   string
		status int
		body   string
	}{
		{"slug on first base domain", "acme.learngate.localhost", http.StatusOK, acme},
		{"slug on second base domain", "acme.learn.example.com", http.StatusOK, acme},
		{"custom domain", "learn.acme.test", http.StatusOK, acme},
		{"upper case with port", "ACME.Learngate.Localhost:8080", http.StatusOK, acme},
		{"trailing dot", "acme.learngate.localhost.", http.StatusOK, acme},
		{"custom domain upper case with trailing dot and port", "LEARN.ACME.TEST.:443", http.StatusOK, acme},
		{"unknown slug", "nobody.learngate.localhost", http.StatusNotFound, unknownOrgBody},
		{"unknown custom domain", "learn.nobody.test", http.StatusNotFound, unknownOrgBody},
		{"subdomain of a tenant host", "x.acme.learngate.localhost", http.StatusNotFound, unknownOrgBody},
		{"bare base domain", "learngate.localhost", http.StatusNotFound, unknownOrgBody},
		{"tenant host as prefix of another domain", "acme.learngate.localhost.evil.test", http.StatusNotFound, unknownOrgBody},
		{"reserved slug", "www.learngate.localhost", http.StatusNotFound, unknownOrgBody},
		{"IP address", "127.0.0.1:8080", http.StatusNotFound, unknownOrgBody},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := h.papi(http.MethodGet, tt.host, "/papi/ping", key, "")
			assertResponse(t, w, tt.status, tt.body)
		})
	}

	t.Run("suspended tenant", func(t *testing.T) {
		setStatus := func(status string) {
			t.Helper()
			w := h.opsCall(http.MethodPatch, "/ops/v1/tenants/acme", `{"status":"`+status+`"}`)
			assertResponse(t, w, http.StatusOK, "")
		}
		setStatus(learngate.TenantSuspended)
		for _, host := range []string{"acme.learngate.localhost", "learn.acme.test"} {
			assertResponse(t, h.papi(http.MethodGet, host, "/papi/ping", key, ""), http.StatusUnauthorized, unauthorizedBody)
		}
		// The same key works again once the tenant is active: the 401 was the suspension.
		setStatus(learngate.TenantActive)
		assertResponse(t, h.papi(http.MethodGet, "acme.learngate.localhost", "/papi/ping", key, ""), http.StatusOK, acme)
	})
}

func TestAuthentication(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	ctx := context.Background()
	key := h.createTenant("acme")
	globexKey := h.createTenant("globex")
	revoked, revokedText, err := h.registry.CreateKey(ctx, "acme")
	if err != nil {
		t.Fatalf("create key: %v", err)
	}
	if err := h.registry.RevokeKey(ctx, "acme", revoked.ID); err != nil {
		t.Fatalf("revoke key: %v", err)
	}
	initechKey := h.createTenant("initech")
	disabled := false
	if _, err := h.registry.Update(ctx, "initech", tenant.TenantPatch{APIEnabled: &disabled}); err != nil {
		t.Fatalf("disable api: %v", err)
	}
	const acmeHost = "acme.learngate.localhost"

	accepted := []struct {
		name    string
		path    string
		headers map[string]string
	}{
		{"raw Authorization header", "/papi/ping", map[string]string{"Authorization": key}},
		{"Bearer prefix", "/papi/ping", map[string]string{"Authorization": "Bearer " + key}},
		{"lower-case bearer prefix", "/papi/ping", map[string]string{"Authorization": "bearer " + key}},
		{"api_key query parameter", "/papi/ping?api_key=" + url.QueryEscape(key), nil},
	}
	for _, tt := range accepted {
		t.Run(tt.name, func(t *testing.T) {
			before := time.Now().Unix()
			w := do(h.public, request{host: acmeHost, path: tt.path, headers: tt.headers})
			assertResponse(t, w, http.StatusOK, `{"organisation":"acme"}`)
			if got := headerInt(t, w, "X-RateLimit-Limit"); got != tenant.DefaultRateLimit {
				t.Errorf("X-RateLimit-Limit = %d, want %d", got, tenant.DefaultRateLimit)
			}
			if got := headerInt(t, w, "X-RateLimit-Remaining"); got < 0 || got >= tenant.DefaultRateLimit {
				t.Errorf("X-RateLimit-Remaining = %d, want 0..%d", got, tenant.DefaultRateLimit-1)
			}
			if got := headerInt(t, w, "X-RateLimit-Reset"); got <= before || got > time.Now().Unix()+61 {
				t.Errorf("X-RateLimit-Reset = %d, want a unix time within the next minute", got)
			}
		})
	}

	refused := []struct {
		name    string
		host    string
		headers map[string]string
	}{
		{"missing key", acmeHost, nil},
		{"wrong key", acmeHost, map[string]string{"Authorization": unregisteredKey(t)}},
		{"wrong key with Bearer prefix", acmeHost, map[string]string{"Authorization": "Bearer " + unregisteredKey(t)}},
		{"empty Bearer", acmeHost, map[string]string{"Authorization": "Bearer "}},
		{"revoked key", acmeHost, map[string]string{"Authorization": revokedText}},
		{"another tenant's key", acmeHost, map[string]string{"Authorization": globexKey}},
		{"API disabled", "initech.learngate.localhost", map[string]string{"Authorization": initechKey}},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			w := do(h.public, request{host: tt.host, path: "/papi/ping", headers: tt.headers})
			assertResponse(t, w, http.StatusUnauthorized, unauthorizedBody)
			if got := w.Header().Get("Content-Type"); got != "application/json; charset=utf-8" {
				t.Errorf("Content-Type = %q, want the same as every other 401", got)
			}
		})
	}

	t.Run("other tenant's key works on its own host", func(t *testing.T) {
		// Shows the refusal above was about the host, not a bad key.
		w := h.papi(http.MethodGet, "globex.learngate.localhost", "/papi/ping", globexKey, "")
		assertResponse(t, w, http.StatusOK, `{"organisation":"globex"}`)
	})
}

func TestCheckOrder(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	key := h.createTenant("acme")
	const acmeHost = "acme.learngate.localhost"

	t.Run("unknown host before missing key", func(t *testing.T) {
		w := do(h.public, request{host: "nobody.learngate.localhost", path: "/papi/ping"})
		assertResponse(t, w, http.StatusNotFound, unknownOrgBody)
	})
	t.Run("unknown host before bad content type", func(t *testing.T) {
		w := do(h.public, request{method: http.MethodPost, host: "nobody.learngate.localhost", path: "/papi/ping",
			body: "x", headers: map[string]string{"Content-Type": "text/plain"}})
		assertResponse(t, w, http.StatusNotFound, unknownOrgBody)
	})
	t.Run("bad key before bad content type", func(t *testing.T) {
		w := do(h.public, request{method: http.MethodPost, host: acmeHost, path: "/papi/ping", body: "x",
			headers: map[string]string{"Authorization": unregisteredKey(t), "Content-Type": "text/plain"}})
		assertResponse(t, w, http.StatusUnauthorized, unauthorizedBody)
	})
	t.Run("missing key before oversized body", func(t *testing.T) {
		w := do(h.public, request{method: http.MethodPost, host: acmeHost, path: "/papi/ping",
			body: strings.Repeat("a", httpx.MaxBodyBytes+1), headers: map[string]string{"Content-Type": "application/json"}})
		assertResponse(t, w, http.StatusUnauthorized, unauthorizedBody)
	})
	t.Run("rate limit before bad content type", func(t *testing.T) {
		setTenantRateLimit(t, h, "acme", 1)
		assertResponse(t, h.papi(http.MethodGet, acmeHost, "/papi/ping", key, ""), http.StatusOK, `{"organisation":"acme"}`)
		w := do(h.public, request{method: http.MethodPost, host: acmeHost, path: "/papi/ping", body: "x",
			headers: map[string]string{"Authorization": key, "Content-Type": "text/plain"}})
		assertRateLimited(t, w, 60)
	})
}

func TestContentType(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	key := h.createTenant("acme")

	tests := []struct {
		name        string
		method      string
		contentType string
		status      int
		body        string
	}{
		{"POST without content type", http.MethodPost, "", http.StatusNotAcceptable, notJSONBody},
		{"POST text/plain", http.MethodPost, "text/plain", http.StatusNotAcceptable, notJSONBody},
		{"POST form", http.MethodPost, "application/x-www-form-urlencoded", http.StatusNotAcceptable, notJSONBody},
		{"POST multipart", http.MethodPost, "multipart/form-data; boundary=x", http.StatusNotAcceptable, notJSONBody},
		{"PUT without content type", http.MethodPut, "", http.StatusNotAcceptable, notJSONBody},
		// POST /papi/ping is not a route: passing the check reaches the 404.
		{"POST application/json", http.MethodPost, "application/json", http.StatusNotFound, notFoundBody},
		{"POST application/json with charset", http.MethodPost, "application/json; charset=utf-8", http.StatusNotFound, notFoundBody},
		{"POST upper-case application/json", http.MethodPost, "Application/JSON", http.StatusNotFound, notFoundBody},
		{"GET without content type", http.MethodGet, "", http.StatusOK, `{"organisation":"acme"}`},
		{"DELETE without content type", http.MethodDelete, "", http.StatusNotFound, notFoundBody},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			headers := map[string]string{"Authorization": key}
			if tt.contentType != "" {
				headers["Content-Type"] = tt.contentType
			}
			body := ""
			if tt.method == http.MethodPost || tt.method == http.MethodPut {
				body = "{}"
			}
			w := do(h.public, request{method: tt.method, host: "acme.learngate.localhost", path: "/papi/ping", body: body, headers: headers})
			assertResponse(t, w, tt.status, tt.body)
		})
	}

	sizes := []struct {
		name   string
		size   int
		status int
		body   string
	}{
		{"body of exactly 10 MiB", httpx.MaxBodyBytes, http.StatusNotFound, notFoundBody},
		{"body over 10 MiB", httpx.MaxBodyBytes + 1, http.StatusRequestEntityTooLarge, `{"error":"request body too large"}`},
	}
	for _, tt := range sizes {
		t.Run(tt.name, func(t *testing.T) {
			w := do(h.public, request{method: http.MethodPost, host: "acme.learngate.localhost", path: "/papi/ping",
				body: strings.Repeat("a", tt.size), headers: map[string]string{"Authorization": key, "Content-Type": "application/json"}})
			assertResponse(t, w, tt.status, tt.body)
		})
	}
}

func TestUnmatchedAndHealthPaths(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	key := h.createTenant("acme")

	tests := []struct {
		name        string
		host        string
		path        string
		key         string
		status      int
		body        string
		rateHeaders bool // the chain ran as far as the rate limit
	}{
		{"papi path with valid key", "acme.learngate.localhost", "/papi/no-such-thing", key, http.StatusNotFound, notFoundBody, true},
		{"papi root with valid key", "acme.learngate.localhost", "/papi", key, http.StatusNotFound, notFoundBody, true},
		{"papi path with wrong key", "acme.learngate.localhost", "/papi/no-such-thing", unregisteredKey(t), http.StatusUnauthorized, unauthorizedBody, false},
		{"papi path without key", "acme.learngate.localhost", "/papi/no-such-thing", "", http.StatusUnauthorized, unauthorizedBody, false},
		{"papi path on unknown host", "nobody.learngate.localhost", "/papi/no-such-thing", key, http.StatusNotFound, unknownOrgBody, false},
		{"path outside papi on unknown host", "nobody.learngate.localhost", "/no-such-thing", "", http.StatusNotFound, notFoundBody, false},
		{"path that only starts with papi", "nobody.learngate.localhost", "/papifoo", "", http.StatusNotFound, notFoundBody, false},
		{"healthz on unknown host", "anything.invalid", "/healthz", "", http.StatusOK, `{"status":"ok"}`, false},
		{"healthz on tenant host", "acme.learngate.localhost", "/healthz", "", http.StatusOK, `{"status":"ok"}`, false},
		{"readyz", "anything.invalid", "/readyz", "", http.StatusOK, `{"database":"up","redis":"up"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := h.papi(http.MethodGet, tt.host, tt.path, tt.key, "")
			assertResponse(t, w, tt.status, tt.body)
			if got := w.Header().Get("X-RateLimit-Limit") != ""; got != tt.rateHeaders {
				t.Errorf("X-RateLimit-Limit present = %v, want %v", got, tt.rateHeaders)
			}
		})
	}
}

func TestAuthFailureLimit(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	key := h.createTenant("acme")
	globexKey := h.createTenant("globex")
	const (
		acmeHost = "acme.learngate.localhost"
		attacker = "198.51.100.7:4444"
	)
	wrong := unregisteredKey(t)
	// The address's integrations were in use before (their keys are cached).
	for host, k := range map[string]string{acmeHost: key, "globex.learngate.localhost": globexKey} {
		w := do(h.public, request{host: host, path: "/papi/ping", remote: attacker, headers: map[string]string{"Authorization": k}})
		if w.Code != http.StatusOK {
			t.Fatalf("valid key on %s before the failures: status %d", host, w.Code)
		}
	}

	if !t.Run("first 20 failures answer 401", func(t *testing.T) {
		for i := 1; i <= int(h.server.AuthFailuresPerMinute); i++ {
			w := do(h.public, request{host: acmeHost, path: "/papi/ping", remote: attacker,
				headers: map[string]string{"Authorization": wrong}})
			if w.Code != http.StatusUnauthorized {
				t.Fatalf("attempt %d: status %d, want 401", i, w.Code)
			}
			assertResponse(t, w, http.StatusUnauthorized, unauthorizedBody)
		}
	}) {
		return
	}

	// The limit slows failures only (docs/decisions.md, "Rate limits"): further
	// failures get 429 instead of 401, valid keys still pass.
	blocked := []struct {
		name    string
		host    string
		headers map[string]string
	}{
		{"next attempt with a wrong key", acmeHost, map[string]string{"Authorization": wrong}},
		{"next attempt without a key", acmeHost, nil},
		{"another tenant's key on this host", acmeHost, map[string]string{"Authorization": globexKey}},
		{"X-Forwarded-For is not believed", acmeHost, map[string]string{"Authorization": wrong, "X-Forwarded-For": "203.0.113.9"}},
	}
	for _, tt := range blocked {
		t.Run(tt.name, func(t *testing.T) {
			w := do(h.public, request{host: tt.host, path: "/papi/ping", remote: attacker, headers: tt.headers})
			assertRateLimited(t, w, 60)
		})
	}
	t.Run("the right key from the same address passes", func(t *testing.T) {
		w := do(h.public, request{host: acmeHost, path: "/papi/ping", remote: attacker,
			headers: map[string]string{"Authorization": key}})
		assertResponse(t, w, http.StatusOK, `{"organisation":"acme"}`)
	})
	t.Run("another tenant's key on its own host passes", func(t *testing.T) {
		w := do(h.public, request{host: "globex.learngate.localhost", path: "/papi/ping", remote: attacker,
			headers: map[string]string{"Authorization": globexKey}})
		assertResponse(t, w, http.StatusOK, `{"organisation":"globex"}`)
	})

	t.Run("another client address is unaffected", func(t *testing.T) {
		w := do(h.public, request{host: acmeHost, path: "/papi/ping", remote: "198.51.100.8:4444",
			headers: map[string]string{"Authorization": key}})
		assertResponse(t, w, http.StatusOK, `{"organisation":"acme"}`)
	})
}

func TestRequestID(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	generated := regexp.MustCompile(`^[0-9a-f]{24}$`)

	tests := []struct {
		name     string
		incoming string
		echoed   bool
	}{
		{"none", "", false},
		{"sane", "req-42.A_b", true},
		{"64 characters", strings.Repeat("a", 64), true},
		{"65 characters", strings.Repeat("a", 65), false},
		{"200 characters", strings.Repeat("b", 200), false},
		{"with spaces", "abc def", false},
		{"with CRLF", "abc\r\nX-Evil: 1", false},
		{"non-ASCII", "idé", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			headers := map[string]string{}
			if tt.incoming != "" {
				headers["X-Request-Id"] = tt.incoming
			}
			w := do(h.public, request{path: "/healthz", headers: headers})
			assertResponse(t, w, http.StatusOK, `{"status":"ok"}`)
			got := w.Header().Get("X-Request-Id")
			if tt.echoed {
				if got != tt.incoming {
					t.Fatalf("X-Request-Id = %q, want %q echoed", got, tt.incoming)
				}
				return
			}
			if !generated.MatchString(got) {
				t.Fatalf("X-Request-Id = %q, want a new 24-hex-digit id", got)
			}
		})
	}

	t.Run("new ids differ", func(t *testing.T) {
		a := do(h.public, request{path: "/healthz"}).Header().Get("X-Request-Id")
		b := do(h.public, request{path: "/healthz"}).Header().Get("X-Request-Id")
		if a == b {
			t.Fatalf("two requests got the same id %q", a)
		}
	})
	t.Run("set on error responses", func(t *testing.T) {
		w := do(h.public, request{host: "nobody.learngate.localhost", path: "/papi/ping",
			headers: map[string]string{"X-Request-Id": "req-404"}})
		assertResponse(t, w, http.StatusNotFound, unknownOrgBody)
		if got := w.Header().Get("X-Request-Id"); got != "req-404" {
			t.Fatalf("X-Request-Id = %q, want req-404", got)
		}
	})
}

// TestErrorMapping drives respondError and the recovery through the real
// public router of a server with no database, on test-only routes.
func TestErrorMapping(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	s := &Server{Gate: &httpx.Gate{
		Logger:  slog.New(slog.NewTextHandler(&logs, nil)),
		Metrics: httpx.NewMetrics(),
		Ready:   func(context.Context) error { return errors.New("database down") },
	}}
	r, err := s.PublicRouter()
	if err != nil {
		t.Fatalf("public router: %v", err)
	}
	const secret = "secret detail"

	tests := []struct {
		name   string
		style  papi.ErrorStyle // papi.StyleObject: none set, the default
		err    error
		status int
		body   string
	}{
		{"plain error", papi.StyleObject, errors.New(secret), http.StatusInternalServerError, internalBody},
		{"wrapped plain error", papi.StyleObject, fmt.Errorf("load: %w", errors.New(secret)), http.StatusInternalServerError, internalBody},
		{"Internal code", papi.StyleObject, &learngate.Error{Code: learngate.Internal, Message: secret}, http.StatusInternalServerError, internalBody},
		{"unknown code", papi.StyleObject, &learngate.Error{Code: "mystery", Message: secret}, http.StatusInternalServerError, internalBody},
		{"Invalid", papi.StyleObject, learngate.Errorf(learngate.Invalid, "x"), http.StatusBadRequest, `{"error":"x"}`},
		{"Invalid with a cause", papi.StyleObject, &learngate.Error{Code: learngate.Invalid, Message: "x", Err: errors.New(secret)}, http.StatusBadRequest, `{"error":"x"}`},
		{"wrapped NotFound", papi.StyleObject, fmt.Errorf("show: %w", learngate.Errorf(learngate.NotFound, "user not found")), http.StatusNotFound, `{"error":"user not found"}`},
		{"Unauthorized", papi.StyleObject, learngate.Errorf(learngate.Unauthorized, "x"), http.StatusUnauthorized, `{"error":"x"}`},
		{"NotAcceptable", papi.StyleObject, learngate.Errorf(learngate.NotAcceptable, "x"), http.StatusNotAcceptable, `{"error":"x"}`},
		{"Conflict", papi.StyleObject, learngate.Errorf(learngate.Conflict, "x"), http.StatusConflict, `{"error":"x"}`},
		{"Gone", papi.StyleObject, learngate.Errorf(learngate.Gone, "x"), http.StatusGone, `{"error":"x"}`},
		{"TooLarge", papi.StyleObject, learngate.Errorf(learngate.TooLarge, "x"), http.StatusRequestEntityTooLarge, `{"error":"x"}`},
		{"Unprocessable", papi.StyleObject, learngate.Errorf(learngate.Unprocessable, "x"), http.StatusUnprocessableEntity, `{"error":"x"}`},
		{"Unavailable", papi.StyleObject, learngate.Errorf(learngate.Unavailable, secret), http.StatusServiceUnavailable, `{"error":"service unavailable"}`},
		{"string style", papi.StyleString, learngate.Errorf(learngate.Invalid, "x"), http.StatusBadRequest, `"x"`},
		{"string style NotFound", papi.StyleString, learngate.Errorf(learngate.NotFound, "x"), http.StatusNotFound, `"x"`},
		{"string style Internal", papi.StyleString, errors.New(secret), http.StatusInternalServerError, internalBody},
		{"string style Unavailable", papi.StyleString, learngate.Errorf(learngate.Unavailable, secret), http.StatusServiceUnavailable, `{"error":"service unavailable"}`},
		{"errors style with details", papi.StyleErrors, &learngate.Error{Code: learngate.Unprocessable, Message: "x", Details: []string{"a", "b"}}, http.StatusUnprocessableEntity, `{"errors":["a","b"]}`},
		{"errors style without details", papi.StyleErrors, learngate.Errorf(learngate.Invalid, "x"), http.StatusBadRequest, `{"errors":["x"]}`},
		{"errors style Internal", papi.StyleErrors, errors.New(secret), http.StatusInternalServerError, internalBody},
	}
	for i, tt := range tests {
		handlers := []gin.HandlerFunc{}
		if tt.style != papi.StyleObject {
			handlers = append(handlers, papi.WithErrorStyle(tt.style))
		}
		err := tt.err
		handlers = append(handlers, func(c *gin.Context) { httpx.RespondError(c, err) })
		r.GET("/test/error/"+strconv.Itoa(i), handlers...)
	}
	r.GET("/test/panic", func(*gin.Context) { panic(secret) })

	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := do(r, request{path: "/test/error/" + strconv.Itoa(i)})
			assertResponse(t, w, tt.status, tt.body)
			if strings.Contains(w.Body.String(), secret) {
				t.Fatalf("body %s reveals the internal detail", w.Body.String())
			}
		})
	}

	t.Run("internal error is logged once with the request id", func(t *testing.T) {
		logs.Reset()
		w := do(r, request{path: "/test/error/0", headers: map[string]string{"X-Request-Id": "boom-1"}})
		assertResponse(t, w, http.StatusInternalServerError, internalBody)
		var lines []string
		for _, line := range strings.Split(logs.String(), "\n") {
			if strings.Contains(line, `msg="internal error"`) {
				lines = append(lines, line)
			}
		}
		if len(lines) != 1 || !strings.Contains(lines[0], "request_id=boom-1") || !strings.Contains(lines[0], secret) {
			t.Fatalf("internal error log lines = %q, want one with the request id and the cause", lines)
		}
	})
	t.Run("panic", func(t *testing.T) {
		logs.Reset()
		w := do(r, request{path: "/test/panic", headers: map[string]string{"X-Request-Id": "boom-2"}})
		assertResponse(t, w, http.StatusInternalServerError, internalBody)
		if got := w.Header().Get("X-Request-Id"); got != "boom-2" {
			t.Errorf("X-Request-Id = %q, want boom-2", got)
		}
		if !strings.Contains(logs.String(), "msg=panic request_id=boom-2") {
			t.Fatalf("log %q does not record the panic with its request id", logs.String())
		}
	})
	t.Run("readyz when a dependency is down", func(t *testing.T) {
		w := do(r, request{path: "/readyz"})
		assertResponse(t, w, http.StatusServiceUnavailable, `{"error":"service unavailable"}`)
	})
}
