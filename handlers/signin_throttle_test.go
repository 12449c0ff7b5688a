package handlers

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"learngate/ratelimit"
	"learngate/tenant"
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

// TestPasswordThrottlePerAddress (finding 3): 50 failures across names
// from one address in an hour block password sign-in from that address
// for that tenant only (Retry-After about an hour); another address and
// the other tenant are fine. An address in the tenant's
// password_trusted_networks is exempt from that count, not from the
// per-name one.
func TestPasswordThrottlePerAddress(t *testing.T) {
	t.Parallel()
	h, _ := passwordFixture(t)
	setPasswordLogin(t, h, "pwb", true)
	seedPasswordUser(t, h, "pwa", "carol", "correct horse", true)
	app := h.pagesRouter(t)
	school := from(t, app, attackerAddr)
	first := time.Now()
	for i := range 50 {
		wantStatus(t, school.passwordPost(pwHost, fmt.Sprintf("guess%02d", i), "wrong"), http.StatusUnauthorized, "wrong")
	}
	resp := school.passwordPost(pwHost, "carol", "correct horse")
	wait := wantRetryAfterSince(t, resp.Header(), 3600, first)
	wantStatus(t, resp, http.StatusTooManyRequests, throttledMessage(wait))
	wantStatus(t, from(t, app, learnerAddr).passwordPost(pwHost, "carol", "correct horse"), http.StatusSeeOther, "/learn")
	wantStatus(t, from(t, app, attackerAddr).passwordPost(pwOtherHost, "alice", "correct horse"), http.StatusSeeOther, "/learn")
	if m := metricsText(t, h); !strings.Contains(m, `learngate_password_failures_total{reason="throttled_address",tenant="pwa"} 1`) ||
		!strings.Contains(m, `learngate_password_failures_total{reason="unknown_user",tenant="pwa"} 50`) {
		t.Fatalf("/metrics lacks the address throttle or the unknown users:\n%s", grepLines(m, "learngate_password_failures_total"))
	}

	// The school's network is trusted: its address signs in again, but a
	// name guessed five times from it is still blocked there.
	on := true
	if _, err := h.registry.SetSSO(context.Background(), "pwa", tenant.SSOInput{Protocol: "oidc", Issuer: "http://127.0.0.1:1",
		ClientID: "pwa", PasswordLogin: &on, PasswordTrustedNetworks: []string{"198.51.100.0/24"}}); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, from(t, app, attackerAddr).passwordPost(pwHost, "carol", "correct horse"), http.StatusSeeOther, "/learn")
	for range 5 {
		wantStatus(t, school.passwordPost(pwHost, "alice", "wrong"), http.StatusUnauthorized, "wrong")
	}
	resp = school.passwordPost(pwHost, "alice", "correct horse")
	wantStatus(t, resp, http.StatusTooManyRequests, "Too many failed sign-ins.")
	wantRetryAfter(t, resp.Header(), 14*60, 15*60)
	// The trust is the tenant's own: pwb's count from that address is not
	// exempt (it has none yet, and still signs in).
	wantStatus(t, from(t, app, attackerAddr).passwordPost(pwOtherHost, "alice", "correct horse"), http.StatusSeeOther, "/learn")
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

// TestPasswordThrottleWithRedisDown: with the limiter's Redis unreachable
// the throttle does not fail open: this node counts the failures itself,
// over both windows (a name from one address after 5, the address after
// 50), and the learner still signs in from elsewhere.
func TestPasswordThrottleWithRedisDown(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{Store: ratelimit.NewRedisStore(deadRedis(t), "lgtest:dead:")})
	h.createTenant("pwa")
	on := true
	if _, err := h.registry.SetSSO(context.Background(), "pwa", tenant.SSOInput{Protocol: "none", PasswordLogin: &on}); err != nil {
		t.Fatal(err)
	}
	seedPasswordUser(t, h, "pwa", "alice", "correct horse", true)
	app := h.pagesRouter(t)
	attacker := from(t, app, attackerAddr)
	first := time.Now()
	for range 5 {
		wantStatus(t, attacker.passwordPost(pwHost, "alice", "wrong"), http.StatusUnauthorized, "wrong")
	}
	resp := attacker.passwordPost(pwHost, "alice", "correct horse")
	wantStatus(t, resp, http.StatusTooManyRequests, "Too many failed sign-ins.")
	wantRetryAfterSince(t, resp.Header(), 15*60, first)
	wantStatus(t, from(t, app, learnerAddr).passwordPost(pwHost, "alice", "correct horse"), http.StatusSeeOther, "/learn")

	for i := range 45 {
		wantStatus(t, attacker.passwordPost(pwHost, fmt.Sprintf("guess%02d", i), "wrong"), http.StatusUnauthorized, "wrong")
	}
	resp = attacker.passwordPost(pwHost, "bob", "wrong")
	wantStatus(t, resp, http.StatusTooManyRequests, "Too many failed sign-ins.")
	wantRetryAfterSince(t, resp.Header(), 3600, first)
}
