//go:build slow

package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"learngate/records"
	"learngate/store"
)

// TestNewPasswordAtSignIn: a learner whose record asks for a new password
// signs in, is held on /password (also for My learning and a certificate)
// until a password that passes the API's rules is saved; that clears the
// flag, moves updated_at, and the new password signs in straight to My
// learning. The other tenant's carol keeps her flag.
func TestNewPasswordAtSignIn(t *testing.T) {
	t.Parallel()
	h, acme, other, app := newPasswordFixture(t)
	before, err := store.GetUser(context.Background(), tenantHandle(t, h, "acme"), "carol")
	if err != nil {
		t.Fatal(err)
	}
	otherBefore := other.get(t, "/papi/users/carol")

	b := newBrowser(t, app)
	wantStatus(t, b.passwordPost(acme.host, "carol", "Old9secret"), http.StatusSeeOther, "/password")
	for _, path := range []string{"/learn", "/learn/certificates/0123456789abcdef"} {
		w := b.do(http.MethodGet, acme.host, path, nil)
		if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/password" {
			t.Fatalf("GET %s = %d to %q, want 303 to /password", path, w.Code, w.Header().Get("Location"))
		}
	}
	wantStatus(t, b.do(http.MethodGet, acme.host, "/login", nil), http.StatusSeeOther, "/learn")
	page := wantStatus(t, b.do(http.MethodGet, acme.host, "/password", nil), http.StatusOK, "<h1>Choose a new password</h1>")
	for _, want := range []string{`name="password" type="password" autocomplete="new-password"`, `name="password_confirmation"`,
		`action="/logout"`} {
		if !strings.Contains(page, want) {
			t.Fatalf("/password lacks %s: %s", want, page)
		}
	}

	t.Run("CSRF refused", func(t *testing.T) {
		wantStatus(t, b.do(http.MethodPost, acme.host, "/password", url.Values{"csrf": {"forged"}, "password": {"New9secret"},
			"password_confirmation": {"New9secret"}}), http.StatusForbidden, "This form has expired")
		if !forced(t, h, "acme", "carol") {
			t.Fatal("a forged form cleared the flag")
		}
	})
	t.Run("weak password refused with the rule", func(t *testing.T) {
		got := b.postNewPassword(acme.host, "weakpass", "weakpass")
		if !strings.HasPrefix(got, "422 ") || !strings.Contains(got, `role="alert">`+records.PasswordRule+`</p>`) {
			t.Fatalf("weak password: %s", got)
		}
		got = b.postNewPassword(acme.host, "New9secret", "New9secreT")
		if !strings.HasPrefix(got, "400 ") || !strings.Contains(got, "The two passwords differ.") {
			t.Fatalf("differing passwords: %s", got)
		}
		if !forced(t, h, "acme", "carol") {
			t.Fatal("a refused password cleared the flag")
		}
		wantStatus(t, b.do(http.MethodGet, acme.host, "/learn", nil), http.StatusSeeOther, "/password")
	})

	if got := b.postNewPassword(acme.host, "New9secret", "New9secret"); !strings.HasPrefix(got, "303 See Other /learn ") {
		t.Fatalf("good password: %s", got)
	}
	wantStatus(t, b.do(http.MethodGet, acme.host, "/learn", nil), http.StatusOK, "Signed in as Carol Cole")
	wantStatus(t, b.do(http.MethodGet, acme.host, "/password", nil), http.StatusSeeOther, "/learn")
	if forced(t, h, "acme", "carol") {
		t.Fatal("force_pwd_reset_next_login still set")
	}
	if after := acme.getJSON(t, "/papi/users/carol", http.StatusOK); after["current_sign_in_at"] == nil || after["active"] != true {
		t.Fatalf("GET /papi/users/carol after the new password: %v", after)
	}
	if u, err := store.GetUser(context.Background(), tenantHandle(t, h, "acme"), "carol"); err != nil || !u.UpdatedAt.After(before.UpdatedAt) {
		t.Fatalf("updated_at %v, was %v (%v): the save did not move it", u.UpdatedAt, before.UpdatedAt, err)
	}
	// The old password no longer signs in; the new one goes straight on.
	c := newBrowser(t, app)
	wantStatus(t, c.passwordPost(acme.host, "carol", "Old9secret"), http.StatusUnauthorized, "The user name or password is wrong.")
	wantStatus(t, c.passwordPost(acme.host, "carol", "New9secret"), http.StatusSeeOther, "/learn")

	// The other tenant's carol: untouched, still asked for a new password.
	if got := other.get(t, "/papi/users/carol"); got != otherBefore || !forced(t, h, "other", "carol") {
		t.Fatalf("other's carol changed: %s", got)
	}
	d := newBrowser(t, app)
	wantStatus(t, d.passwordPost(other.host, "carol", "Old9secret"), http.StatusSeeOther, "/password")
	wantStatus(t, newBrowser(t, app).passwordPost(other.host, "carol", "New9secret"), http.StatusUnauthorized, "wrong")
}

// TestNewPasswordAfterSingleSignOn: an SSO learner with login internal and
// the flag is held on /password too; one with login external (no password
// of ours) goes straight to My learning. The page speaks German to a
// German learner.
func TestNewPasswordAfterSingleSignOn(t *testing.T) {
	t.Parallel()
	h, acme, _, app := newPasswordFixture(t)
	b := newBrowser(t, app)
	wantStatus(t, b.signIn(acme.host, "bob@example.test"), http.StatusSeeOther, "/password")
	wantStatus(t, b.do(http.MethodGet, acme.host, "/learn", nil), http.StatusSeeOther, "/password")
	if got := b.postNewPassword(acme.host, "Bob9secret", "Bob9secret"); !strings.HasPrefix(got, "303 See Other /learn ") {
		t.Fatalf("bob's new password: %s", got)
	}
	if forced(t, h, "acme", "bob") {
		t.Fatal("bob's flag still set")
	}
	wantStatus(t, newBrowser(t, app).passwordPost(acme.host, "bob", "Bob9secret"), http.StatusSeeOther, "/learn")

	a := newBrowser(t, app)
	wantStatus(t, a.signIn(acme.host, "alice@example.test"), http.StatusSeeOther, "/learn")
	wantStatus(t, a.do(http.MethodGet, acme.host, "/learn", nil), http.StatusOK, "Signed in as Alice Ames")
	wantStatus(t, a.do(http.MethodGet, acme.host, "/password", nil), http.StatusSeeOther, "/learn")

	d := newBrowser(t, app)
	wantStatus(t, d.passwordPost(acme.host, "dora", "Old9secret"), http.StatusSeeOther, "/password")
	wantStatus(t, d.do(http.MethodGet, acme.host, "/password", nil), http.StatusOK, "<h1>Neues Passwort festlegen</h1>")
	if got := d.postNewPassword(acme.host, "kurz", "kurz"); !strings.HasPrefix(got, "422 ") ||
		!strings.Contains(got, "Ungültiges Passwort: Es muss 8 bis 72 Zeichen lang sein") {
		t.Fatalf("German rule message: %s", got)
	}
}
