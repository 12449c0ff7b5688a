package web

import (
	"context"
	"learngate"
	"net/http"
	"strings"
	"testing"
	"time"

	"learngate/store"
)

// signedInAt signs carol of host in with password pw on a new browser and
// returns it, on /password (flagged) or My learning.
func signedInAt(t *testing.T, app http.Handler, host, pw, to string) *browser {
	t.Helper()
	b := newBrowser(t, app)
	wantStatus(t, b.passwordPost(host, "carol", pw), http.StatusSeeOther, to)
	return b
}

// wantSignedOut checks b's session at host has ended: My learning sends it
// to the login page.
func wantSignedOut(t *testing.T, b *browser, host string) {
	t.Helper()
	w := b.do(http.MethodGet, host, "/learn", nil)
	if w.Code != http.StatusSeeOther || !strings.HasPrefix(w.Header().Get("Location"), "/login?next=%2Flearn") {
		t.Fatalf("GET /learn = %d to %q, want 303 to the login page", w.Code, w.Header().Get("Location"))
	}
}

// TestDeactivatedLearnerSeesWhy (interoperability): a learner deactivated
// while signed in is sent, on their next page, to the login page with the
// page they asked for kept in next, and the page says the account is not
// active. The other tenant's alice is still signed in.
func TestDeactivatedLearnerSeesWhy(t *testing.T) {
	t.Parallel()
	h, _ := passwordFixture(t)
	setPasswordLogin(t, h, "pwb", true)
	app := h.pagesRouter(t)
	b := newBrowser(t, app)
	wantStatus(t, b.passwordPost(pwHost, "alice", "correct horse"), http.StatusSeeOther, "/learn")
	o := newBrowser(t, app)
	wantStatus(t, o.passwordPost(pwOtherHost, "alice", "correct horse"), http.StatusSeeOther, "/learn")
	off := false
	if _, err := store.UpdateUser(context.Background(), tenantHandle(t, h, "pwa"), "alice", learngate.UserInput{Active: &off}, time.Now()); err != nil {
		t.Fatal(err)
	}

	w := b.do(http.MethodGet, pwHost, "/learn?tab=done", nil)
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/login?next=%2Flearn%3Ftab%3Ddone&account=inactive" {
		t.Fatalf("GET /learn = %d to %q", w.Code, w.Header().Get("Location"))
	}
	page := wantStatus(t, b.do(http.MethodGet, pwHost, w.Header().Get("Location"), nil), http.StatusOK,
		"Your account is not active. Please ask your administrator.")
	if !strings.Contains(page, `name="next" value="/learn?tab=done"`) {
		t.Fatalf("next not kept: %s", page)
	}
	// A plain login page says nothing of the kind.
	if page := wantStatus(t, newBrowser(t, app).do(http.MethodGet, pwHost, "/login", nil), http.StatusOK, ""); strings.Contains(page, "not active") {
		t.Fatalf("message on a plain login page: %s", page)
	}
	wantStatus(t, o.do(http.MethodGet, pwOtherHost, "/learn", nil), http.StatusOK, "Signed in as")
}
