package web

import (
	"encoding/json"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"learngate/tenant"
	"learngate/webhook"
	"learngate/webhook/webhooktest"
)

// Calls to identity providers (issue 27, findings 2 and 5): the address
// guard, no redirect to another host, 5 s, cached results and failures,
// one fetch at a time.

const unavailablePage = "Your organisation&#39;s sign-in service is not available at the moment."

// roundTripFunc is an http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// counter is an HTTP server on 127.0.0.1 that counts the requests it gets:
// an address of the service's own network.
func counter(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n.Add(1)
		_, _ = w.Write([]byte(`{"access_token":"x","token_type":"Bearer","id_token":"x","keys":[]}`))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// TestIdPDiscoveryNamingInternalEndpointsIsRefused (finding 5): with
// LEARNGATE_SSO_ALLOW_PRIVATE off, a provider on a public address
// (https://example.com, a stand-in served in-process) whose discovery
// document names token, key set and userinfo endpoints on 127.0.0.1, or
// redirects there, is refused: the sign-in answers the "unavailable" page
// and nothing, least of all the client secret, reaches the internal
// address.
func TestIdPDiscoveryNamingInternalEndpointsIsRefused(t *testing.T) {
	t.Parallel()
	internal, hits := counter(t)
	cases := map[string]http.HandlerFunc{
		"endpoints on a loopback address": func(w http.ResponseWriter, _ *http.Request) {
			_ = json.NewEncoder(w).Encode(map[string]any{"issuer": "https://example.com", "authorization_endpoint": "https://example.com/auth",
				"token_endpoint": internal.URL + "/internal/token", "jwks_uri": internal.URL + "/internal/jwks",
				"userinfo_endpoint": internal.URL + "/internal/userinfo"})
		},
		"https endpoints on a loopback address": func(w http.ResponseWriter, _ *http.Request) {
			_ = json.NewEncoder(w).Encode(map[string]any{"issuer": "https://example.com", "authorization_endpoint": "https://example.com/auth",
				"token_endpoint": strings.Replace(internal.URL, "http:", "https:", 1) + "/internal/token",
				"jwks_uri":       "https://localhost:" + internal.URL[strings.LastIndex(internal.URL, ":")+1:] + "/internal/jwks"})
		},
		"redirect to a loopback address": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, internal.URL+"/.well-known/openid-configuration", http.StatusFound)
		},
	}
	for name, discovery := range cases {
		t.Run(name, func(t *testing.T) {
			standIn := httptest.NewTLSServer(discovery)
			t.Cleanup(standIn.Close)
			guarded := webhook.Policy{}.NewTransport(tenant.IdPTimeout)
			base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
				if r.URL.Host == "example.com" { // the stand-in for a provider on a public address
					r2 := r.Clone(r.Context())
					r2.URL.Host = standIn.Listener.Addr().String()
					return standIn.Client().Transport.RoundTrip(r2)
				}
				return guarded.RoundTrip(r)
			})
			h := newHarness(t, harnessOptions{})
			h.createTenant("ssoa")
			h.configureFakeSSO(t, "https://example.com", "ssoa")
			app := h.pagesRouter(t)
			h.server.signIn.idp = newProviderCache(tenant.NewIdPGuard(tenant.IdPGuardOptions{AllowPrivate: false, Base: base}), nil)

			w := do(app, request{host: acmeHost, path: "/sso/start"})
			wantStatus(t, w, http.StatusServiceUnavailable, unavailablePage)
			if got := w.Header().Get("Retry-After"); got != "30" {
				t.Errorf("Retry-After %q", got)
			}
			// Even a callback with a code sends nothing there.
			wantStatus(t, do(app, request{host: acmeHost, path: "/sso/oidc/callback?code=c&state=s"}), http.StatusBadRequest, "")
			if n := hits.Load(); n != 0 {
				t.Fatalf("the internal address got %d requests", n)
			}
		})
	}
}

// TestIdPRedirectToAnotherHostIsNotFollowed (finding 5): a discovery
// request redirected to another origin stops there; the other origin gets
// nothing. With the switch on (tests), so that only the redirect rule is
// tested.
func TestIdPRedirectToAnotherHostIsNotFollowed(t *testing.T) {
	t.Parallel()
	other, hits := counter(t)
	issuer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
	}))
	t.Cleanup(issuer.Close)
	h := newHarness(t, harnessOptions{})
	h.createTenant("ssoa")
	h.configureFakeSSO(t, issuer.URL, "ssoa")
	app := h.pagesRouter(t)
	wantStatus(t, do(app, request{host: acmeHost, path: "/sso/start"}), http.StatusServiceUnavailable, unavailablePage)
	if n := hits.Load(); n != 0 {
		t.Fatalf("the redirect was followed: %d requests", n)
	}
}

// TestIdPHangingIssuer (finding 2): with an issuer that accepts and never
// answers, 20 concurrent /sso/start all answer the unavailable page within
// about 5 s over one connection; then the failure is remembered (the next
// answers at once, with no new connection), and another tenant's
// /papi/ping stays fast meanwhile.
func TestIdPHangingIssuer(t *testing.T) {
	t.Parallel()
	hang := webhooktest.NewHanging(t)
	h := newHarness(t, harnessOptions{})
	h.createTenant("ssoa")
	key := h.createTenant("ssob")
	h.configureFakeSSO(t, "http://"+hang.Addr(), "ssoa")
	app := h.pagesRouter(t)

	const n = 20
	start := time.Now()
	var wg sync.WaitGroup
	codes := make([]int, n)
	took := make([]time.Duration, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := do(app, request{host: acmeHost, path: "/sso/start"})
			codes[i], took[i] = w.Code, time.Since(start)
		}()
	}
	time.Sleep(time.Second)
	pingStart := time.Now()
	if w := h.papi(http.MethodGet, globexHost, "/papi/ping", key, ""); w.Code != http.StatusOK {
		t.Fatalf("ping = %d", w.Code)
	}
	if d := time.Since(pingStart); d > 500*time.Millisecond {
		t.Errorf("another tenant's ping took %v during the hang", d)
	}
	wg.Wait()
	for i := range n {
		if codes[i] != http.StatusServiceUnavailable || took[i] > 6500*time.Millisecond {
			t.Fatalf("start %d: %d after %v", i, codes[i], took[i])
		}
	}
	if got := hang.Accepted.Load(); got != 1 {
		t.Fatalf("%d connections to the hanging issuer, want 1", got)
	}
	again := time.Now()
	w := do(app, request{host: acmeHost, path: "/sso/start"})
	wantStatus(t, w, http.StatusServiceUnavailable, unavailablePage)
	if d := time.Since(again); d > 200*time.Millisecond {
		t.Errorf("remembered failure answered after %v", d)
	}
	if ra, err := strconv.Atoi(w.Header().Get("Retry-After")); err != nil || ra < 1 || ra > 30 {
		t.Errorf("Retry-After %q", w.Header().Get("Retry-After"))
	}
	if got := hang.Accepted.Load(); got != 1 {
		t.Fatalf("a remembered failure dialled again: %d connections", got)
	}
	if testutil.ToFloat64(h.gate.Metrics.SignIns.WithLabelValues("refused_provider_unavailable")) != n+1 {
		t.Error("unavailable sign-ins not counted")
	}
}

// TestIdPCacheHonoursMaxAge: the discovery document is kept for its
// max-age, at least 5 minutes, 1 hour without one; a failure for 30 s.
func TestIdPCacheHonoursMaxAge(t *testing.T) {
	t.Parallel()
	cases := []struct {
		cacheControl string
		keep         time.Duration
	}{
		{"public, max-age=600", 10 * time.Minute},
		{"max-age=10", 5 * time.Minute},
		{"", time.Hour},
		{"no-cache", time.Hour},
	}
	for _, c := range cases {
		t.Run(c.cacheControl, func(t *testing.T) {
			op := startFakeOP(t)
			op.cacheControl = c.cacheControl
			h := newHarness(t, harnessOptions{})
			h.createTenant("ssoa")
			h.configureFakeSSO(t, op.issuer, "ssoa")
			app := h.pagesRouter(t)
			clock := &testClock{now: time.Now()}
			h.server.signIn.idp.now = clock.Now
			b := newBrowser(t, app)
			b.start(acmeHost, "/learn")
			clock.Add(c.keep - time.Second)
			b.start(acmeHost, "/learn")
			if got := op.discoveryHits.Load(); got != 1 {
				t.Fatalf("%d fetches within max-age", got)
			}
			clock.Add(2 * time.Second)
			b.start(acmeHost, "/learn")
			if got := op.discoveryHits.Load(); got != 2 {
				t.Fatalf("%d fetches after max-age, want 2", got)
			}
		})
	}
	t.Run("failure remembered 30 s", func(t *testing.T) {
		op := startFakeOP(t)
		op.failDiscovery.Store(true)
		h := newHarness(t, harnessOptions{})
		h.createTenant("ssoa")
		h.configureFakeSSO(t, op.issuer, "ssoa")
		app := h.pagesRouter(t)
		clock := &testClock{now: time.Now()}
		h.server.signIn.idp.now = clock.Now
		wantStatus(t, do(app, request{host: acmeHost, path: "/sso/start"}), http.StatusServiceUnavailable, unavailablePage)
		op.failDiscovery.Store(false)
		clock.Add(20 * time.Second)
		w := do(app, request{host: acmeHost, path: "/sso/start"})
		wantStatus(t, w, http.StatusServiceUnavailable, unavailablePage)
		if ra := w.Header().Get("Retry-After"); ra != "10" {
			t.Errorf("Retry-After %q, want 10", ra)
		}
		if got := op.discoveryHits.Load(); got != 1 {
			t.Fatalf("%d fetches while the failure is remembered", got)
		}
		clock.Add(11 * time.Second)
		newBrowser(t, app).start(acmeHost, "/learn")
		if got := op.discoveryHits.Load(); got != 2 {
			t.Fatalf("%d fetches after 30 s, want 2", got)
		}
	})
}

// TestIdPOneFetchAtATime: many concurrent starts while the discovery
// document is slow make one fetch, which all of them wait for.
func TestIdPOneFetchAtATime(t *testing.T) {
	t.Parallel()
	op := startFakeOP(t)
	op.hold = make(chan struct{})
	h := newHarness(t, harnessOptions{})
	h.createTenant("ssoa")
	h.configureFakeSSO(t, op.issuer, "ssoa")
	app := h.pagesRouter(t)
	const n = 30
	var wg sync.WaitGroup
	codes := make([]int, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = do(app, request{host: acmeHost, path: "/sso/start"}).Code
		}()
	}
	time.Sleep(300 * time.Millisecond)
	close(op.hold)
	wg.Wait()
	for i, c := range codes {
		if c != http.StatusSeeOther {
			t.Fatalf("start %d = %d", i, c)
		}
	}
	if got := op.discoveryHits.Load(); got != 1 {
		t.Fatalf("%d discovery fetches, want 1", got)
	}
}

// TestIdPSignInThroughTheCache: a whole sign-in fetches the discovery
// document and the key set once; a second sign-in fetches nothing again.
func TestIdPSignInThroughTheCache(t *testing.T) {
	t.Parallel()
	op := startFakeOP(t)
	h := newHarness(t, harnessOptions{})
	h.createTenant("ssoa")
	h.configureFakeSSO(t, op.issuer, "ssoa")
	seedLearner(t, h, "ssoa", "alice@example.test", true)
	app := h.pagesRouter(t)
	for range 2 {
		wantStatus(t, op.signIn(t, newBrowser(t, app), acmeHost), http.StatusSeeOther, "/learn")
	}
	if d, k := op.discoveryHits.Load(), op.keyHits.Load(); d != 1 || k != 1 {
		t.Fatalf("discovery fetched %d times, keys %d times; want 1 and 1", d, k)
	}
}

// TestIdPKeyRotation: a token signed by a key the cached key set lacks
// fetches the key set again, at most once a minute, before its max-age.
func TestIdPKeyRotation(t *testing.T) {
	t.Parallel()
	op := startFakeOP(t)
	h := newHarness(t, harnessOptions{})
	h.createTenant("ssoa")
	h.configureFakeSSO(t, op.issuer, "ssoa")
	seedLearner(t, h, "ssoa", "alice@example.test", true)
	app := h.pagesRouter(t)
	clock := &testClock{now: time.Now()}
	h.server.signIn.idp.now = clock.Now
	wantStatus(t, op.signIn(t, newBrowser(t, app), acmeHost), http.StatusSeeOther, "/learn")
	op.rotate(t)
	clock.Add(30 * time.Second)
	wantStatus(t, op.signIn(t, newBrowser(t, app), acmeHost), http.StatusForbidden, "could not be verified")
	if got := op.keyHits.Load(); got != 1 {
		t.Fatalf("key set fetched %d times within a minute, want 1", got)
	}
	clock.Add(time.Minute)
	wantStatus(t, op.signIn(t, newBrowser(t, app), acmeHost), http.StatusSeeOther, "/learn")
	if got := op.keyHits.Load(); got != 2 {
		t.Fatalf("key set fetched %d times after a rotation, want 2", got)
	}
}

// TestOIDCAuthorizedParty (finding 7): an ID token for several audiences
// needs azp equal to this client; an azp naming another client is refused.
func TestOIDCAuthorizedParty(t *testing.T) {
	t.Parallel()
	op := startFakeOP(t)
	h := newHarness(t, harnessOptions{})
	h.createTenant("ssoa")
	h.configureFakeSSO(t, op.issuer, "ssoa")
	seedLearner(t, h, "ssoa", "alice@example.test", true)
	app := h.pagesRouter(t)
	cases := []struct {
		name   string
		claims map[string]any
		code   int
		want   string
	}{
		{"two audiences, no azp", map[string]any{"aud": []string{"ssoa-client", "other-client"}}, http.StatusForbidden, "could not be verified"},
		{"two audiences, azp another client", map[string]any{"aud": []string{"ssoa-client", "other-client"}, "azp": "other-client"}, http.StatusForbidden, "could not be verified"},
		{"one audience, azp another client", map[string]any{"azp": "other-client"}, http.StatusForbidden, "could not be verified"},
		{"two audiences, azp this client", map[string]any{"aud": []string{"ssoa-client", "other-client"}, "azp": "ssoa-client"}, http.StatusSeeOther, "/learn"},
		{"one audience, no azp", nil, http.StatusSeeOther, "/learn"},
	}
	for _, c := range cases {
		op.set(c.claims)
		wantStatus(t, op.signIn(t, newBrowser(t, app), acmeHost), c.code, c.want)
	}
}

// TestOIDCEmailNotVerified: email_verified false refuses with its own
// reason; an absent claim counts as verified (Entra ID sends none).
func TestOIDCEmailNotVerified(t *testing.T) {
	t.Parallel()
	op := startFakeOP(t)
	h := newHarness(t, harnessOptions{})
	h.createTenant("ssoa")
	h.configureFakeSSO(t, op.issuer, "ssoa")
	seedLearner(t, h, "ssoa", "alice@example.test", true)
	app := h.pagesRouter(t)
	before := testutil.ToFloat64(h.gate.Metrics.SignIns.WithLabelValues("refused_email_not_verified"))
	op.set(map[string]any{"email_verified": false})
	wantStatus(t, op.signIn(t, newBrowser(t, app), acmeHost), http.StatusForbidden,
		"Your organisation&#39;s sign-in service has not verified your email address.")
	if testutil.ToFloat64(h.gate.Metrics.SignIns.WithLabelValues("refused_email_not_verified")) != before+1 {
		t.Error("email_not_verified not counted")
	}
	op.set(map[string]any{"email_verified": nil})
	wantStatus(t, op.signIn(t, newBrowser(t, app), acmeHost), http.StatusSeeOther, "/learn")
	op.set(map[string]any{"email_verified": true})
	wantStatus(t, op.signIn(t, newBrowser(t, app), acmeHost), http.StatusSeeOther, "/learn")
}

// TestOIDCLogoutEndsTheProviderSession: signing out of an OIDC session
// sends the learner on (a page with a Refresh header: the form's CSP
// allows no cross-origin redirect) to the provider's end_session_endpoint
// with the ID token as hint and this host's /login as post-logout URI, and
// the provider sends them back to /login.
func TestOIDCLogoutEndsTheProviderSession(t *testing.T) {
	t.Parallel()
	h, idp, b := signInFixture(t)
	wantStatus(t, b.signIn(acmeHost, "alice@example.test"), http.StatusSeeOther, "/learn")
	page := wantStatus(t, b.do(http.MethodGet, acmeHost, "/learn", nil), http.StatusOK, "My learning")
	w := b.do(http.MethodPost, acmeHost, "/logout", url.Values{"csrf": {csrf(t, page)}})
	refresh := w.Header().Get("Refresh")
	if w.Code != http.StatusOK || !strings.HasPrefix(refresh, "0;url=") {
		t.Fatalf("logout = %d, Refresh %q", w.Code, refresh)
	}
	to, err := url.Parse(strings.TrimPrefix(refresh, "0;url="))
	if err != nil || to.Scheme+"://"+to.Host+to.Path != idp.issuer+"/end_session" {
		t.Fatalf("logout goes on to %q, want %s/end_session", refresh, idp.issuer)
	}
	if body := w.Body.String(); !strings.Contains(body, "You are signed out.") || !strings.Contains(body, `href="`+html.EscapeString(to.String())+`"`) {
		t.Fatalf("logout page %s", body)
	}
	q := to.Query()
	if q.Get("post_logout_redirect_uri") != "http://"+acmeHost+"/login" || q.Get("client_id") != "ssoa-client" {
		t.Fatalf("logout query %v", q)
	}
	tn, _ := h.registry.Show(t.Context(), "ssoa")
	cfg, _ := h.registry.SSO(t.Context(), tn.ID)
	p, err := h.server.oidcProvider(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.server.verifyIDToken(t.Context(), cfg, p, q.Get("id_token_hint"), ""); err == nil || !strings.Contains(err.Error(), "nonce") {
		t.Fatalf("id_token_hint is not ssoa's ID token: %v", err)
	}
	// The provider sends the browser back to /login.
	resp, err := b.idp.Get(to.String())
	if err != nil {
		t.Fatal(err)
	}
	if back, _ := resp.Location(); resp.StatusCode != http.StatusFound || back == nil || back.String() != "http://"+acmeHost+"/login" {
		t.Fatalf("provider's end_session = %d to %v: %s", resp.StatusCode, back, readAll(resp))
	}
	readAll(resp)
	wantStatus(t, b.do(http.MethodGet, acmeHost, "/learn", nil), http.StatusSeeOther, "/login")
}

// TestOIDCLogoutKeepsTheProviderSessionWhenAsked: with end_idp_session
// false, sign-out ends learngate's session only and goes on to /login; the
// other tenant still ends the provider's.
func TestOIDCLogoutKeepsTheProviderSessionWhenAsked(t *testing.T) {
	t.Parallel()
	h, idp, b := signInFixture(t)
	keep, secret := false, "ssoa-secret"
	if _, err := h.registry.SetSSO(t.Context(), "ssoa", tenant.SSOInput{Protocol: "oidc", Issuer: idp.issuer,
		ClientID: "ssoa-client", ClientSecret: &secret, EndIdPSession: &keep}); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, b.signIn(acmeHost, "alice@example.test"), http.StatusSeeOther, "/learn")
	page := wantStatus(t, b.do(http.MethodGet, acmeHost, "/learn", nil), http.StatusOK, "My learning")
	w := b.do(http.MethodPost, acmeHost, "/logout", url.Values{"csrf": {csrf(t, page)}})
	wantStatus(t, w, http.StatusSeeOther, "/login")
	if w.Header().Get("Refresh") != "" {
		t.Fatalf("sign-out went on to the provider: %q", w.Header().Get("Refresh"))
	}
	wantStatus(t, b.do(http.MethodGet, acmeHost, "/learn", nil), http.StatusSeeOther, "/login")
}
