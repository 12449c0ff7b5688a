package web

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Addresses of the throttle tests (documentation ranges).
const (
	attackerAddr = "198.51.100.7:4000"
	learnerAddr  = "203.0.113.9:4000"
)

// from returns a new browser at the address remote.
func from(t *testing.T, app http.Handler, remote string) *browser {
	b := newBrowser(t, app)
	b.remote = remote
	return b
}

// metricsText returns the node's /metrics as served on the ops listener.
func metricsText(t *testing.T, h *harness) string {
	t.Helper()
	w := h.opsCall(http.MethodGet, "/metrics", "")
	if w.Code != http.StatusOK {
		t.Fatalf("GET /metrics = %d", w.Code)
	}
	return w.Body.String()
}

// wantRetryAfter checks a 429's Retry-After lies in [lo, hi] seconds.
func wantRetryAfter(t *testing.T, h http.Header, lo, hi int) {
	t.Helper()
	n, err := strconv.Atoi(h.Get("Retry-After"))
	if err != nil || n < lo || n > hi {
		t.Fatalf("Retry-After = %q, want %d..%d", h.Get("Retry-After"), lo, hi)
	}
}

// wantRetryAfterSince checks the Retry-After of a block whose window of
// window seconds opened with a failure sent at first: what is left of the
// window, whatever time the failures took to send (each is a bcrypt
// comparison, seconds under the race detector on a loaded machine). It
// returns the header's seconds.
func wantRetryAfterSince(t *testing.T, h http.Header, window int, first time.Time) int64 {
	t.Helper()
	elapsed := int(time.Since(first)/time.Second) + 1
	wantRetryAfter(t, h, window-elapsed-1, window)
	n, _ := strconv.ParseInt(h.Get("Retry-After"), 10, 64)
	return n
}

// TestPasswordThrottleIsPerNameAndAddress (finding 3): five wrong
// passwords for alice from one address block alice from that address
// only (429, Retry-After about 15 minutes); her right password still signs
// her in from another address, and the other tenant's alice is untouched.
// Every failure is in /metrics with its tenant and reason.
func TestPasswordThrottleIsPerNameAndAddress(t *testing.T) {
	t.Parallel()
	h, _ := passwordFixture(t)
	setPasswordLogin(t, h, "pwb", true)
	app := h.pagesRouter(t)
	attacker := from(t, app, attackerAddr)
	for range 5 {
		wantStatus(t, attacker.passwordPost(pwHost, "alice", "wrong"), http.StatusUnauthorized, "The user name or password is wrong.")
	}
	resp := attacker.passwordPost(pwHost, "alice", "correct horse")
	body := wantStatus(t, resp, http.StatusTooManyRequests, "Too many failed sign-ins. Please try again in 15 minutes.")
	wantRetryAfter(t, resp.Header(), 14*60, 15*60)
	if !strings.Contains(body, `type="password"`) {
		t.Fatalf("429 without the form: %s", body)
	}

	// alice herself, at another address: signed in.
	wantStatus(t, from(t, app, learnerAddr).passwordPost(pwHost, "alice", "correct horse"), http.StatusSeeOther, "/learn")
	// The attacker's address is not blocked for other names (5 of 50).
	seedPasswordUser(t, h, "pwa", "carol", "correct horse", true)
	wantStatus(t, from(t, app, attackerAddr).passwordPost(pwHost, "carol", "correct horse"), http.StatusSeeOther, "/learn")
	// Nor is the other tenant's alice, from the same address.
	wantStatus(t, from(t, app, attackerAddr).passwordPost(pwOtherHost, "alice", "correct horse"), http.StatusSeeOther, "/learn")

	m := metricsText(t, h)
	for _, want := range []string{
		`learngate_password_failures_total{reason="wrong_password",tenant="pwa"} 5`,
		`learngate_password_failures_total{reason="throttled_name",tenant="pwa"} 1`,
	} {
		if !strings.Contains(m, want) {
			t.Fatalf("/metrics lacks %s", want)
		}
	}
	if strings.Contains(m, `learngate_password_failures_total{reason="wrong_password",tenant="pwb"}`) {
		t.Fatal("pwb counted failures of pwa")
	}
}

// grepLines returns the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
