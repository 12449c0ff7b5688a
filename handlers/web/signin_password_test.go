package web

import (
	"context"
	"learngate"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"golang.org/x/crypto/bcrypt"

	"learngate/store"
	"learngate/tenant"
)

const (
	pwHost      = "pwa.learngate.localhost"
	pwOtherHost = "pwb.learngate.localhost"
)

// seedPasswordUser creates a user of slug with user name name and password pw.
func seedPasswordUser(t *testing.T, h *harness, slug, name, pw string, active bool) learngate.User {
	t.Helper()
	hash, err := bcrypt.GenerateFromPassword([]byte(pw), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	hs, first, last, tz, email := string(hash), "Ada", name, "UTC", name+"@example.test"
	u, err := store.CreateUser(context.Background(), tenantHandle(t, h, slug), learngate.UserInput{UserName: &name, FirstName: &first,
		LastName: &last, Email: &email, Timezone: &tz, Active: &active, PasswordHash: &hs}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// passwordFixture: tenant pwa allows passwords (alice active, bob
// inactive), tenant pwb does not (its own alice has the same password).
func passwordFixture(t *testing.T) (*harness, *browser) {
	t.Helper()
	h := newHarness(t, harnessOptions{})
	h.createTenant("pwa")
	h.createTenant("pwb")
	for slug, allowed := range map[string]bool{"pwa": true, "pwb": false} {
		secret := "s"
		if _, err := h.registry.SetSSO(context.Background(), slug, tenant.SSOInput{Protocol: "oidc", Issuer: "http://127.0.0.1:1",
			ClientID: slug, ClientSecret: &secret, PasswordLogin: &allowed}); err != nil {
			t.Fatal(err)
		}
	}
	seedPasswordUser(t, h, "pwa", "alice", "correct horse", true)
	seedPasswordUser(t, h, "pwa", "bob", "correct horse", false)
	seedPasswordUser(t, h, "pwb", "alice", "correct horse", true)
	return h, newBrowser(t, h.pagesRouter(t))
}

// setPasswordLogin turns slug's password_login on or off.
func setPasswordLogin(t *testing.T, h *harness, slug string, on bool) {
	t.Helper()
	if _, err := h.registry.SetSSO(context.Background(), slug, tenant.SSOInput{Protocol: "oidc", Issuer: "http://127.0.0.1:1",
		ClientID: slug, PasswordLogin: &on}); err != nil {
		t.Fatal(err)
	}
}

// passwordPost posts the login form of host with a fresh CSRF token.
func (b *browser) passwordPost(host, user, pw string) *httptest.ResponseRecorder {
	b.t.Helper()
	page := wantStatus(b.t, b.do(http.MethodGet, host, "/login", nil), http.StatusOK, "")
	return b.do(http.MethodPost, host, "/login", url.Values{"csrf": {csrf(b.t, page)}, "user_name": {user},
		"password": {pw}, "next": {"/learn"}})
}

func TestPasswordSignIn(t *testing.T) {
	t.Parallel()
	h, b := passwordFixture(t)
	signed := func() float64 { return testutil.ToFloat64(h.gate.Metrics.SignIns.WithLabelValues("signed_in")) }
	before := signed()

	page := wantStatus(t, b.do(http.MethodGet, pwHost, "/login", nil), http.StatusOK, `<form method="post" action="/login"`)
	if !strings.Contains(page, `name="password" type="password"`) {
		t.Fatalf("no password field: %s", page)
	}
	pre := randomToken() // a planted session id (fixation) is not kept
	b.cookies[pwHost] = pre
	wantStatus(t, b.passwordPost(pwHost, "ALICE", "correct horse"), http.StatusSeeOther, "/learn")
	if b.cookies[pwHost] == pre {
		t.Fatal("session id kept across password sign-in")
	}
	wantStatus(t, b.do(http.MethodGet, pwHost, "/learn", nil), http.StatusOK, "Signed in as Ada alice")
	u, err := store.GetUser(context.Background(), tenantHandle(t, h, "pwa"), "alice")
	if err != nil || u.CurrentSignInAt == nil {
		t.Fatalf("current_sign_in_at not set: %v", err)
	}
	if signed()-before != 1 {
		t.Fatalf("signed_in counted %v", signed()-before)
	}
	// The other tenant's alice was not signed in.
	other, err := store.GetUser(context.Background(), tenantHandle(t, h, "pwb"), "alice")
	if err != nil || other.CurrentSignInAt != nil {
		t.Fatalf("pwb alice touched: %+v %v", other.CurrentSignInAt, err)
	}
}

func TestPasswordSignInRefusals(t *testing.T) {
	t.Parallel()
	h, _ := passwordFixture(t)
	app := h.pagesRouter(t)
	refused := func(reason string) float64 {
		return testutil.ToFloat64(h.gate.Metrics.SignIns.WithLabelValues("refused_" + reason))
	}
	t.Run("wrong password", func(t *testing.T) {
		b := newBrowser(t, app)
		n := refused("wrong_password")
		body := wantStatus(t, b.passwordPost(pwHost, "alice", "wrong"), http.StatusUnauthorized, "The user name or password is wrong.")
		if !strings.Contains(body, `value="alice"`) || refused("wrong_password")-n != 1 {
			t.Fatalf("form not kept or not counted: %s", body)
		}
		wantStatus(t, b.do(http.MethodGet, pwHost, "/learn", nil), http.StatusSeeOther, "/login")
	})
	t.Run("unknown user takes a bcrypt comparison", func(t *testing.T) {
		b := newBrowser(t, app)
		n := refused("unknown_user")
		start := time.Now()
		wantStatus(t, b.passwordPost(pwHost, "nobody", "correct horse"), http.StatusUnauthorized, "The user name or password is wrong.")
		if time.Since(start) < 20*time.Millisecond { // bcrypt cost 10 takes ~50 ms or more
			t.Fatalf("unknown user answered in %v: no dummy comparison", time.Since(start))
		}
		if refused("unknown_user")-n != 1 {
			t.Fatal("unknown user not counted")
		}
	})
	t.Run("inactive user", func(t *testing.T) {
		b := newBrowser(t, app)
		wantStatus(t, b.passwordPost(pwHost, "bob", "correct horse"), http.StatusForbidden, "Your account is not active.")
		u, _ := store.GetUser(context.Background(), tenantHandle(t, h, "pwa"), "bob")
		if u.CurrentSignInAt != nil {
			t.Fatal("inactive user's sign-in recorded")
		}
	})
	t.Run("CSRF refused", func(t *testing.T) {
		b := newBrowser(t, app)
		wantStatus(t, b.do(http.MethodGet, pwHost, "/login", nil), http.StatusOK, "")
		wantStatus(t, b.do(http.MethodPost, pwHost, "/login", url.Values{"csrf": {"forged"}, "user_name": {"alice"},
			"password": {"correct horse"}}), http.StatusForbidden, "This form has expired")
		wantStatus(t, b.do(http.MethodGet, pwHost, "/learn", nil), http.StatusSeeOther, "/login")
	})
	t.Run("tenant without password_login refuses", func(t *testing.T) {
		b := newBrowser(t, app)
		page := wantStatus(t, b.do(http.MethodGet, pwOtherHost, "/login", nil), http.StatusOK, "Sign in with")
		if strings.Contains(page, `type="password"`) {
			t.Fatalf("password form shown: %s", page)
		}
		// A form shown while passwords were allowed is refused once they are not.
		form := wantStatus(t, b.do(http.MethodGet, pwHost, "/login", nil), http.StatusOK, `type="password"`)
		setPasswordLogin(t, h, "pwa", false)
		defer setPasswordLogin(t, h, "pwa", true)
		wantStatus(t, b.do(http.MethodPost, pwHost, "/login", url.Values{"csrf": {csrf(t, form)}, "user_name": {"alice"},
			"password": {"correct horse"}}), http.StatusForbidden, "Sign-in with a password is not available")
		wantStatus(t, b.do(http.MethodGet, pwHost, "/learn", nil), http.StatusSeeOther, "/login")
	})
	t.Run("empty fields", func(t *testing.T) {
		b := newBrowser(t, app)
		wantStatus(t, b.passwordPost(pwHost, "", ""), http.StatusBadRequest, "Please enter your user name and password.")
	})
}
