//go:build slow

package web

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"learngate/ratelimit"
	"learngate/tenant"
)

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

// deadRedis is a client of a Redis that is not there: every call fails
// within 200 ms.
func deadRedis(t *testing.T) *redis.Client {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: 200 * time.Millisecond,
		ReadTimeout: 200 * time.Millisecond, WriteTimeout: 200 * time.Millisecond})
	t.Cleanup(func() { c.Close() })
	return c
}
