package web

import (
	"context"
	"learngate"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"learngate/store"
)

const (
	acmeHost   = "ssoa.learngate.localhost"
	globexHost = "ssob.learngate.localhost"
)

// signInFixture is a node with tenants ssoa and ssob configured on one
// provider: alice active and bob inactive in ssoa, carol unknown.
func signInFixture(t *testing.T) (*harness, *testIdP, *browser) {
	t.Helper()
	h := newHarness(t, harnessOptions{})
	h.createTenant("ssoa")
	h.createTenant("ssob")
	idp := startIdP(t, "ssoa", "ssob")
	h.configureSSO(t, idp, "ssoa", false)
	h.configureSSO(t, idp, "ssob", false)
	seedLearner(t, h, "ssoa", "alice@example.test", true)
	seedLearner(t, h, "ssoa", "bob@example.test", false)
	return h, idp, newBrowser(t, h.pagesRouter(t))
}

func wantStatus(t *testing.T, w interface{ Result() *http.Response }, code int, contains string) string {
	t.Helper()
	resp := w.Result()
	body := readAll(resp)
	if resp.StatusCode != code || !strings.Contains(body+resp.Header.Get("Location"), contains) {
		t.Fatalf("status %d (want %d), Location %q, body %s; want %q", resp.StatusCode, code, resp.Header.Get("Location"), body, contains)
	}
	return body
}

func TestOIDCSignIn(t *testing.T) {
	t.Parallel()
	h, _, b := signInFixture(t)
	before := testutil.ToFloat64(h.gate.Metrics.SignIns.WithLabelValues("signed_in"))

	wantStatus(t, b.do(http.MethodGet, acmeHost, "/login", nil), http.StatusOK, `href="/sso/start?next=%2Flearn"`)
	// A session id planted in the browser before sign-in (fixation) is not kept.
	preLogin := randomToken()
	b.cookies[acmeHost] = preLogin
	w := b.signIn(acmeHost, "alice@example.test")
	wantStatus(t, w, http.StatusSeeOther, "/learn")

	t.Run("new session id after sign-in", func(t *testing.T) {
		if preLogin == "" || b.cookies[acmeHost] == preLogin {
			t.Fatalf("session id kept across sign-in: %q", preLogin)
		}
		old := newBrowser(t, b.app)
		old.cookies[acmeHost] = preLogin
		wantStatus(t, old.do(http.MethodGet, acmeHost, "/learn", nil), http.StatusSeeOther, "/login")
	})
	t.Run("cookie attributes", func(t *testing.T) {
		ck := b.last
		if !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Domain != "" || ck.Path != "/" || ck.Secure {
			t.Fatalf("cookie %+v", ck)
		}
	})
	t.Run("my learning", func(t *testing.T) {
		body := wantStatus(t, b.do(http.MethodGet, acmeHost, "/learn", nil), http.StatusOK, "<h1>My learning</h1>")
		if !strings.Contains(body, "Signed in as Ada alice") {
			t.Fatalf("body %s", body)
		}
		u, err := store.GetUser(context.Background(), tenantHandle(t, h, "ssoa"), "alice")
		if err != nil || u.CurrentSignInAt == nil {
			t.Fatalf("current_sign_in_at not set: %+v %v", u.CurrentSignInAt, err)
		}
	})
	t.Run("session of tenant A not valid on B", func(t *testing.T) {
		other := newBrowser(t, b.app)
		other.cookies[globexHost] = b.cookies[acmeHost]
		wantStatus(t, other.do(http.MethodGet, globexHost, "/learn", nil), http.StatusSeeOther, "/login")
	})
	t.Run("logout needs the CSRF token", func(t *testing.T) {
		wantStatus(t, b.do(http.MethodPost, acmeHost, "/logout", url.Values{"csrf": {"wrong"}}), http.StatusForbidden, "This form has expired")
		wantStatus(t, b.do(http.MethodPost, acmeHost, "/logout", url.Values{}), http.StatusForbidden, "This form has expired")
		wantStatus(t, b.do(http.MethodGet, acmeHost, "/learn", nil), http.StatusOK, "My learning")
		page := wantStatus(t, b.do(http.MethodGet, acmeHost, "/learn", nil), http.StatusOK, "My learning")
		wantStatus(t, b.do(http.MethodPost, acmeHost, "/logout", url.Values{"csrf": {csrf(t, page)}}), http.StatusOK,
			"post_logout_redirect_uri=http%3A%2F%2Fssoa.learngate.localhost%2Flogin")
		wantStatus(t, b.do(http.MethodGet, acmeHost, "/learn", nil), http.StatusSeeOther, "/login")
	})
	if got := testutil.ToFloat64(h.gate.Metrics.SignIns.WithLabelValues("signed_in")) - before; got != 1 {
		t.Errorf("signed_in counted %v times", got)
	}
	if testutil.ToFloat64(h.gate.Metrics.SignIns.WithLabelValues("signed_out")) < 1 {
		t.Error("sign-out not counted")
	}
}

func TestOIDCSignInRefusals(t *testing.T) {
	t.Parallel()
	h, _, _ := signInFixture(t)
	app := h.pagesRouter(t)
	refused := func(outcome string) float64 {
		return testutil.ToFloat64(h.gate.Metrics.SignIns.WithLabelValues("refused_" + outcome))
	}
	t.Run("unknown user", func(t *testing.T) {
		b := newBrowser(t, app)
		wantStatus(t, b.signIn(acmeHost, "carol@example.test"), http.StatusForbidden, "There is no learngate account for you")
		wantStatus(t, b.do(http.MethodGet, acmeHost, "/learn", nil), http.StatusSeeOther, "/login")
		if _, err := store.GetUser(context.Background(), tenantHandle(t, h, "ssoa"), "carol@example.test"); err == nil {
			t.Fatal("an unknown user was created without JIT")
		}
	})
	t.Run("inactive user", func(t *testing.T) {
		b := newBrowser(t, app)
		wantStatus(t, b.signIn(acmeHost, "bob@example.test"), http.StatusForbidden, "Your account is not active")
		u, _ := store.GetUser(context.Background(), tenantHandle(t, h, "ssoa"), "bob")
		if u.CurrentSignInAt != nil {
			t.Fatal("inactive user's current_sign_in_at set")
		}
	})
	t.Run("tampered state", func(t *testing.T) {
		b := newBrowser(t, app)
		back := b.atProvider(b.start(acmeHost, "/learn"), "alice@example.test")
		q := back.Query()
		q.Set("state", q.Get("state")+"x")
		back.RawQuery = q.Encode()
		wantStatus(t, b.callback(back), http.StatusBadRequest, "This sign-in link has expired")
	})
	t.Run("tampered nonce", func(t *testing.T) {
		b := newBrowser(t, app)
		authorize, _ := url.Parse(b.start(acmeHost, "/learn"))
		q := authorize.Query()
		q.Set("nonce", "attacker-chosen-nonce")
		authorize.RawQuery = q.Encode()
		wantStatus(t, b.callback(b.atProvider(authorize.String(), "alice@example.test")), http.StatusForbidden, "could not be verified")
	})
	t.Run("code issued to another tenant's client", func(t *testing.T) {
		b := newBrowser(t, app)
		back := b.atProvider(b.start(acmeHost, "/learn"), "alice@example.test")
		// The learner's B session has a flow of its own; A's code is replayed into it.
		bAuthorize, _ := url.Parse(b.start(globexHost, "/learn"))
		q := back.Query()
		q.Set("state", bAuthorize.Query().Get("state"))
		back.Host, back.RawQuery = globexHost, q.Encode()
		wantStatus(t, b.callback(back), http.StatusForbidden, "could not be verified")
	})
	t.Run("open redirect refused", func(t *testing.T) {
		b := newBrowser(t, app)
		back := b.atProvider(b.start(acmeHost, "https://evil.example/phish"), "alice@example.test")
		w := b.callback(back)
		if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/learn" {
			t.Fatalf("callback = %d to %q", w.Code, w.Header().Get("Location"))
		}
	})
	for outcome, want := range map[string]float64{"unknown_user": 1, "inactive": 1, "bad_state": 1, "bad_token": 2} {
		if got := refused(outcome); got != want {
			t.Errorf("refused_%s = %v, want %v", outcome, got, want)
		}
	}
}

func TestOIDCJITAndDeactivation(t *testing.T) {
	t.Parallel()
	h, idp, b := signInFixture(t)
	h.configureSSO(t, idp, "ssoa", true)
	t.Run("unknown user created with JIT", func(t *testing.T) {
		wantStatus(t, b.signIn(acmeHost, "carol@example.test"), http.StatusSeeOther, "/learn")
		u, err := store.GetUser(context.Background(), tenantHandle(t, h, "ssoa"), "carol@example.test")
		if err != nil || u.CreatedBy != "sso" || u.Login != "external" || u.Email != "carol@example.test" || u.CurrentSignInAt == nil {
			t.Fatalf("created %+v, %v", u, err)
		}
		if _, err := store.GetUser(context.Background(), tenantHandle(t, h, "ssob"), "carol@example.test"); err == nil {
			t.Fatal("user created in the other tenant")
		}
	})
	t.Run("inactive user not signed in even with JIT", func(t *testing.T) {
		wantStatus(t, newBrowser(t, b.app).signIn(acmeHost, "bob@example.test"), http.StatusForbidden, "not active")
	})
	t.Run("a deactivated user's session ends", func(t *testing.T) {
		wantStatus(t, b.do(http.MethodGet, acmeHost, "/learn", nil), http.StatusOK, "My learning")
		off, on := false, true
		tdb := tenantHandle(t, h, "ssoa")
		if _, err := store.UpdateUser(context.Background(), tdb, "carol@example.test", learngate.UserInput{Active: &off}, h.gate.Now()); err != nil {
			t.Fatal(err)
		}
		wantStatus(t, b.do(http.MethodGet, acmeHost, "/learn", nil), http.StatusSeeOther, "/login")
		if _, err := store.UpdateUser(context.Background(), tdb, "carol@example.test", learngate.UserInput{Active: &on}, h.gate.Now()); err != nil {
			t.Fatal(err)
		}
		wantStatus(t, b.do(http.MethodGet, acmeHost, "/learn", nil), http.StatusSeeOther, "/login")
	})
}

func TestSafeNext(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                     "/learn",
		"/learn?x=1":           "/learn?x=1",
		"https://evil.example": "/learn",
		"//evil.example/x":     "/learn",
		"/\\evil.example":      "/learn",
		"javascript:alert(1)":  "/learn",
		"/ok\r\nSet-Cookie: a": "/learn",
		"learn":                "/learn",
	} {
		if got := safeNext(in); got != want {
			t.Errorf("safeNext(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSessionCookieSecureUnderHTTPS(t *testing.T) {
	t.Parallel()
	sm := newSessionManager(nil, true, nil)
	if !sm.Cookie.Secure || !sm.Cookie.HttpOnly || sm.Cookie.SameSite != http.SameSiteLaxMode || sm.Cookie.Domain != "" {
		t.Fatalf("cookie settings %+v", sm.Cookie)
	}
}

// TestOIDCRedirectURIKeepsPort: on a host with a port (a local or test
// node), the redirect URI sent to the provider keeps it, so the provider
// sends the browser back to the same origin; without one it has none.
func TestOIDCRedirectURIKeepsPort(t *testing.T) {
	t.Parallel()
	_, _, b := signInFixture(t)
	for host, want := range map[string]string{
		acmeHost + ":8080":         "http://" + acmeHost + ":8080/sso/oidc/callback",
		"SSOA.learngate.localhost": "http://" + acmeHost + "/sso/oidc/callback",
		acmeHost + ":80x":          "http://" + acmeHost + "/sso/oidc/callback",
	} {
		authorize, err := url.Parse(b.start(host, "/learn"))
		if err != nil {
			t.Fatal(err)
		}
		if got := authorize.Query().Get("redirect_uri"); got != want {
			t.Errorf("on %s: redirect_uri %q, want %q", host, got, want)
		}
	}
}
