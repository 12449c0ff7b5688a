package web

import (
	"database/sql"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
	_ "github.com/lib/pq"
)

// webSessionRows counts the rows of public.web_sessions.
func webSessionRows(t *testing.T, h *harness) int {
	t.Helper()
	db, err := sql.Open("postgres", h.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM public.web_sessions`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestAnonymousPagesKeepNoState (finding 4): the login page, a refused
// password form and /sso/start write no session row; only a sign-in that
// succeeds does.
func TestAnonymousPagesKeepNoState(t *testing.T) {
	t.Parallel()
	h, b := passwordFixture(t)
	before := webSessionRows(t, h)
	for i := range 20 {
		anon := newBrowser(t, b.app)
		wantStatus(t, anon.do(http.MethodGet, pwHost, "/login", nil), http.StatusOK, `name="csrf"`)
		if i < 4 { // under the throttle
			wantStatus(t, anon.passwordPost(pwHost, "alice", "wrong"), http.StatusUnauthorized, "The user name or password is wrong.")
		}
		wantStatus(t, anon.do(http.MethodPost, pwHost, "/login", url.Values{"csrf": {"forged"}}), http.StatusForbidden, "This form has expired")
		anon.do(http.MethodGet, pwHost, "/sso/start", nil) // its provider is unreachable: a page, no row
	}
	if got := webSessionRows(t, h) - before; got != 0 {
		t.Fatalf("anonymous pages wrote %d session rows", got)
	}
	wantStatus(t, b.passwordPost(pwHost, "alice", "correct horse"), http.StatusSeeOther, "/learn")
	if got := webSessionRows(t, h) - before; got != 1 {
		t.Fatalf("a sign-in wrote %d session rows, want 1", got)
	}
}

// TestOIDCStartKeepsNoState: starting an OIDC sign-in writes no row; its
// secrets travel in the sealed flow cookie, which the callback needs on
// the same host and which works once.
func TestOIDCStartKeepsNoState(t *testing.T) {
	t.Parallel()
	h, _, b := signInFixture(t)
	before := webSessionRows(t, h)
	for range 10 {
		newBrowser(t, b.app).start(acmeHost, "/learn")
	}
	if got := webSessionRows(t, h) - before; got != 0 {
		t.Fatalf("/sso/start wrote %d session rows", got)
	}

	t.Run("callback without the flow cookie", func(t *testing.T) {
		cb := b.atProvider(b.start(acmeHost, "/learn"), "alice@example.test")
		n := h.refusals("bad_state")
		fresh := newBrowser(t, b.app)
		wantStatus(t, fresh.callback(cb), http.StatusBadRequest, "This sign-in link has expired")
		if h.refusals("bad_state")-n != 1 {
			t.Fatal("not counted as bad_state")
		}
	})
	t.Run("flow cookie of another host", func(t *testing.T) {
		other := newBrowser(t, b.app)
		other.start(globexHost, "/learn")
		cb := b.atProvider(b.start(acmeHost, "/learn"), "alice@example.test")
		thief := newBrowser(t, b.app)
		thief.others[acmeHost] = other.others[globexHost]
		wantStatus(t, thief.callback(cb), http.StatusBadRequest, "This sign-in link has expired")
	})
	t.Run("flow cookie used once", func(t *testing.T) {
		cb := b.atProvider(b.start(acmeHost, "/learn"), "alice@example.test")
		saved := map[string]string{}
		for k, v := range b.others[acmeHost] {
			saved[k] = v
		}
		wantStatus(t, b.callback(cb), http.StatusSeeOther, "/learn")
		if len(b.others[acmeHost][oidcFlowCookie]) != 0 {
			t.Fatal("flow cookie not removed by the callback")
		}
		replay := newBrowser(t, b.app)
		replay.others[acmeHost] = saved
		w := replay.callback(cb)
		if w.Code == http.StatusSeeOther && strings.Contains(w.Header().Get("Location"), "/learn") {
			t.Fatal("a used callback signed in again")
		}
	})
	if got := webSessionRows(t, h) - before; got != 1 {
		t.Fatalf("session rows %d, want the one sign-in", got)
	}
}

// TestSAMLRequestCookieMustBeSealed (finding 1): an ACS post is parsed
// only with a request cookie this deployment sealed for this host; any
// other value is refused unread.
func TestSAMLRequestCookieMustBeSealed(t *testing.T) {
	t.Parallel()
	h, idp, b := samlFixture(t, harnessOptions{})
	redirect, reqID := b.samlStart(samlHost)
	form := idp.respond(redirect, "alice@example.test", nil)
	_, otherReq := b.samlStart(samlOtherHost)
	oidcFlow := func() string { // a valid seal, for the other cookie's name
		c := ginTestContext(samlHost)
		v, err := h.server.sealFlow(c, oidcFlowCookie, "id-x")
		if err != nil {
			t.Fatal(err)
		}
		return v
	}()
	for name, cookie := range map[string]string{
		"any value":            "x",
		"the bare request id":  strings.Repeat("a", 43),
		"another host's":       otherReq,
		"another cookie's":     oidcFlow,
		"truncated":            reqID[:len(reqID)-4],
		"over long (8 KiB)":    strings.Repeat("A", 8192),
		"not base64 at all %%": "%%%",
	} {
		t.Run(name, func(t *testing.T) {
			n := h.refusals("bad_state")
			wantStatus(t, b.samlPost(samlHost, cookie, form), http.StatusBadRequest, "This sign-in has expired or was not started here.")
			if h.refusals("bad_state")-n != 1 {
				t.Fatal("not refused as bad_state")
			}
		})
	}
	wantStatus(t, b.samlPost(samlHost, reqID, form), http.StatusSeeOther, "/learn")
}

// TestAnonymousCSRFIsBoundToCookieAndHost: the login form's token is valid
// only with the browser's own CSRF cookie and only on its host.
func TestAnonymousCSRFIsBoundToCookieAndHost(t *testing.T) {
	t.Parallel()
	_, b := passwordFixture(t)
	page := wantStatus(t, b.do(http.MethodGet, pwHost, "/login", nil), http.StatusOK, `name="csrf"`)
	token := csrf(t, page)
	form := url.Values{"csrf": {token}, "user_name": {"alice"}, "password": {"correct horse"}}

	t.Run("cookie attributes", func(t *testing.T) {
		w := newBrowser(t, b.app).do(http.MethodGet, pwHost, "/login", nil)
		var found bool
		for _, ck := range w.Result().Cookies() {
			if ck.Name == anonCSRFCookie {
				found = true
				if !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Path != "/" || ck.Domain != "" {
					t.Fatalf("cookie %+v", ck)
				}
			}
		}
		if !found {
			t.Fatal("no CSRF cookie on the login page")
		}
	})
	t.Run("token without its cookie", func(t *testing.T) {
		wantStatus(t, newBrowser(t, b.app).do(http.MethodPost, pwHost, "/login", form), http.StatusForbidden, "This form has expired")
	})
	t.Run("token with another browser's cookie", func(t *testing.T) {
		other := newBrowser(t, b.app)
		other.do(http.MethodGet, pwHost, "/login", nil)
		wantStatus(t, other.do(http.MethodPost, pwHost, "/login", form), http.StatusForbidden, "This form has expired")
	})
	t.Run("cookie and token of another host", func(t *testing.T) {
		other := newBrowser(t, b.app)
		other.others[pwOtherHost] = b.others[pwHost]
		wantStatus(t, other.do(http.MethodPost, pwOtherHost, "/login", form), http.StatusForbidden, "This form has expired")
	})
	wantStatus(t, b.do(http.MethodPost, pwHost, "/login", form), http.StatusSeeOther, "/learn")
}

// ginTestContext returns a gin context of a GET on host, for calling a
// Server method that reads the request.
func ginTestContext(host string) *gin.Context {
	c, _ := gin.CreateTestContext(httptest.NewRecorder())
	c.Request = httptest.NewRequest(http.MethodGet, "http://"+host+"/", nil)
	return c
}
