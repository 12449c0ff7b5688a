//go:build slow

package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"learngate/store"
)

// TestPasswordSetEndsOtherSessions (finding 7): carol, flagged, is signed
// in twice; setting her password in one session ends the other, whose
// /password form (open before) is refused and sets nothing. The session
// that set it goes on. A password set through the API (PUT and batch)
// ends every session of the user too. The other tenant's carol keeps hers.
func TestPasswordSetEndsOtherSessions(t *testing.T) {
	t.Parallel()
	_, acme, other, app := newPasswordFixture(t)
	a := signedInAt(t, app, acme.host, "Old9secret", "/password")
	b := signedInAt(t, app, acme.host, "Old9secret", "/password")
	o := signedInAt(t, app, other.host, "Old9secret", "/password")
	open := wantStatus(t, b.do(http.MethodGet, acme.host, "/password", nil), http.StatusOK, `action="/password"`)

	if got := a.postNewPassword(acme.host, "New9secret", "New9secret"); !strings.HasPrefix(got, "303 See Other /learn ") {
		t.Fatalf("POST /password = %s", got)
	}
	wantStatus(t, a.do(http.MethodGet, acme.host, "/learn", nil), http.StatusOK, "Carol")

	// The second session has ended: its form is refused, nothing is set.
	wantStatus(t, b.do(http.MethodPost, acme.host, "/password", url.Values{"csrf": {csrf(t, open)},
		"password": {"Other9secret"}, "password_confirmation": {"Other9secret"}}), http.StatusForbidden, "This form has expired")
	wantSignedOut(t, b, acme.host)
	wantStatus(t, newBrowser(t, app).passwordPost(acme.host, "carol", "Other9secret"), http.StatusUnauthorized, "wrong")
	c := signedInAt(t, app, acme.host, "New9secret", "/learn")
	wantStatus(t, o.do(http.MethodGet, other.host, "/password", nil), http.StatusOK, `action="/password"`)

	t.Run("PUT /papi/users", func(t *testing.T) {
		acme.call(t, http.MethodPut, "/papi/users/carol", `{"password":"Api9secret"}`, http.StatusOK, "")
		wantSignedOut(t, a, acme.host)
		wantSignedOut(t, c, acme.host)
		wantStatus(t, o.do(http.MethodGet, other.host, "/password", nil), http.StatusOK, `action="/password"`)
	})
	t.Run("batch_save", func(t *testing.T) {
		d := signedInAt(t, app, acme.host, "Api9secret", "/learn")
		// A batch that changes carol's name only keeps her session.
		acme.call(t, http.MethodPost, "/papi/users/batch_save", `{"people":[{"user_name":"carol","first_name":"Karla"}]}`, http.StatusOK, "")
		wantStatus(t, d.do(http.MethodGet, acme.host, "/learn", nil), http.StatusOK, "Karla")
		acme.call(t, http.MethodPost, "/papi/users/batch_save", `{"people":[{"user_name":"carol","password":"Batch9secret"}]}`, http.StatusOK, "")
		wantSignedOut(t, d, acme.host)
		wantStatus(t, o.do(http.MethodGet, other.host, "/password", nil), http.StatusOK, `action="/password"`)
	})
}

// TestNewPasswordFlagCheckedInDatabase (finding 7): a flagged session
// whose learner's flag was cleared elsewhere (here by an administrator,
// without a new password) cannot use /password: the form sends it on to
// My learning and sets nothing.
func TestNewPasswordFlagCheckedInDatabase(t *testing.T) {
	t.Parallel()
	h, acme, _, app := newPasswordFixture(t)
	b := signedInAt(t, app, acme.host, "Old9secret", "/password")
	page := wantStatus(t, b.do(http.MethodGet, acme.host, "/password", nil), http.StatusOK, `action="/password"`)
	acme.call(t, http.MethodPut, "/papi/users/carol", `{"force_pwd_reset_next_login":false}`, http.StatusOK, "")
	before, err := store.GetUser(context.Background(), tenantHandle(t, h, "acme"), "carol")
	if err != nil {
		t.Fatal(err)
	}

	wantStatus(t, b.do(http.MethodPost, acme.host, "/password", url.Values{"csrf": {csrf(t, page)},
		"password": {"New9secret"}, "password_confirmation": {"New9secret"}}), http.StatusSeeOther, "/learn")
	after, err := store.GetUser(context.Background(), tenantHandle(t, h, "acme"), "carol")
	if err != nil || !after.UpdatedAt.Equal(before.UpdatedAt) {
		t.Fatalf("carol changed: %v → %v (%v)", before.UpdatedAt, after.UpdatedAt, err)
	}
	wantStatus(t, newBrowser(t, app).passwordPost(acme.host, "carol", "Old9secret"), http.StatusSeeOther, "/learn")
	// The session is no longer held on /password.
	wantStatus(t, b.do(http.MethodGet, acme.host, "/learn", nil), http.StatusOK, "Carol")
	wantStatus(t, b.do(http.MethodGet, acme.host, "/password", nil), http.StatusSeeOther, "/learn")
}
