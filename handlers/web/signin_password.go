package web

import (
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"golang.org/x/crypto/bcrypt"
	"golang.org/x/text/language"

	"learngate"
	"learngate/handlers/httpx"
	"learngate/ratelimit"
	"learngate/store"
	"learngate/tenant"
)

// Password sign-in (docs/decisions.md, "Sign-in"): POST /login with the
// form's CSRF token, allowed only where the tenant's configuration has
// password_login, for a user with a password. An unknown user costs the
// same bcrypt comparison as a known one.
//
// Failures are throttled (DECISIONS section 19) per tenant, user name and
// client address (passwordPairRule) and per tenant and client address
// across all names (passwordAddressRule), never per user name alone: a
// stranger guessing ann's password from elsewhere cannot lock ann out. The
// tenant's password_trusted_networks are exempt from the per-address
// count (a school or office behind one address), not from the per-pair
// one. Every failure is counted in learngate_password_failures_total by
// tenant and reason.

// The password sign-in throttle's rules.
var (
	// passwordPairRule: 5 failures in 15 minutes for one user name from
	// one client address block that pair.
	passwordPairRule = ratelimit.Rule{Limit: 5, Window: 15 * time.Minute}
	// passwordAddressRule: 50 failures in an hour from one client address,
	// whatever the names, block password sign-in from it for the tenant.
	passwordAddressRule = ratelimit.Rule{Limit: 50, Window: time.Hour}
)

// protocolNone is the protocol of password sign-in alone.
const protocolNone = tenant.ProtocolNone

// dummyPasswordHash is compared when the user is unknown or has no
// password, so that the answer takes as long as for a wrong password.
var dummyPasswordHash, _ = bcrypt.GenerateFromPassword([]byte("learngate-no-such-user-password"), bcrypt.DefaultCost)

// passwordKeys are the throttle keys of a password attempt; address is ""
// when the client address is in the tenant's trusted networks.
type passwordKeys struct {
	pair, address string
}

// newPasswordKeys returns the throttle keys of an attempt at userName from
// the request's client address (its /64 for IPv6, clientBucket). The user
// name is escaped, so no name can reach another pair's key.
func newPasswordKeys(c *gin.Context, cfg tenant.SSOConfig, userName string) passwordKeys {
	tid := strconv.FormatInt(httpx.CurrentTenant(c).ID, 10)
	ip := c.ClientIP()
	bucket := httpx.ClientBucket(ip)
	k := passwordKeys{pair: "pwfail:pair:" + tid + ":" + bucket + ":" + url.QueryEscape(userName)}
	if !trustedAddress(cfg.PasswordTrustedNetworks, ip) {
		k.address = "pwfail:addr:" + tid + ":" + bucket
	}
	return k
}

// trustedAddress reports whether ip is in one of networks (normalised
// CIDR prefixes, as tenant.SetSSO stores them).
func trustedAddress(networks []string, ip string) bool {
	if len(networks) == 0 {
		return false
	}
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return false
	}
	addr = addr.Unmap()
	for _, n := range networks {
		if p, err := netip.ParsePrefix(n); err == nil && p.Contains(addr) {
			return true
		}
	}
	return false
}

// rules pairs each key in use with its rule and the reason it refuses.
func (k passwordKeys) rules() []throttleRule {
	rs := []throttleRule{{k.pair, passwordPairRule, "throttled_name"}}
	if k.address != "" {
		rs = append(rs, throttleRule{k.address, passwordAddressRule, "throttled_address"})
	}
	return rs
}

// throttleRule is one throttle key with its rule.
type throttleRule struct {
	key    string
	rule   ratelimit.Rule
	reason string
}

// passwordThrottled returns the seconds to wait, and the reason, when the
// pair or the client address has failed too often; 0 otherwise. It asks
// this node's own count as well, which holds the failures recorded while
// the shared store was unreachable.
func (s *Pages) passwordThrottled(c *gin.Context, keys passwordKeys) (int64, string) {
	var wait int64
	reason := ""
	for _, r := range keys.rules() {
		for _, l := range []*ratelimit.Limiter{s.gate.Limiter, s.gate.LocalFailures()} {
			if res := l.BlockedBy(c.Request.Context(), r.key, r.rule); !res.Allowed && res.RetryAfter > wait {
				wait, reason = res.RetryAfter, r.reason
			}
		}
	}
	return wait, reason
}

// recordPasswordFailure counts a failed attempt against its keys, on this
// node when the shared store fails (the throttle never fails open).
func (s *Pages) recordPasswordFailure(c *gin.Context, keys passwordKeys) {
	for _, r := range keys.rules() {
		if res := s.gate.Limiter.RecordBy(c.Request.Context(), r.key, r.rule); res.FailedOpen {
			s.gate.LocalFailures().RecordBy(c.Request.Context(), r.key, r.rule)
		}
	}
}

// passwordFailureMetric counts one failed password sign-in of the tenant.
func (s *Pages) passwordFailureMetric(c *gin.Context, reason string) {
	if s.gate.Metrics != nil {
		s.gate.Metrics.PasswordFailures.WithLabelValues(httpx.CurrentTenant(c).Slug, reason).Inc()
	}
}

// throttledMessage tells the learner how long to wait.
func throttledMessage(wait int64) string {
	minutes := (wait + 59) / 60
	if minutes <= 1 {
		return "Too many failed sign-ins. Please try again in a minute."
	}
	return fmt.Sprintf("Too many failed sign-ins. Please try again in %d minutes.", minutes)
}

// passwordLogin answers POST /login.
func (s *Pages) passwordLogin(c *gin.Context) {
	ctx := c.Request.Context()
	next := safeNext(c.PostForm("next"))
	cfg, err := s.gate.Registry.SSO(ctx, httpx.CurrentTenant(c).ID)
	if err != nil && !learngate.IsCode(err, learngate.NotFound) {
		s.pageError(c, http.StatusInternalServerError, "Something went wrong. Please try again.", err)
		return
	}
	if err != nil || !cfg.PasswordLogin {
		s.refuse(c, http.StatusForbidden, "password_disabled", "Sign-in with a password is not available for this organisation.", 0, nil)
		return
	}
	userName := strings.ToLower(strings.TrimSpace(c.PostForm("user_name")))
	password := c.PostForm("password")
	if userName == "" || password == "" || len(userName) > 255 || len(password) > 72 {
		s.passwordForm(c, http.StatusBadRequest, "Please enter your user name and password.", userName, next)
		return
	}
	keys := newPasswordKeys(c, cfg, userName)
	if wait, why := s.passwordThrottled(c, keys); wait > 0 {
		s.signInMetric("refused_throttled")
		s.passwordFailureMetric(c, why)
		s.gate.Logger.Warn("sign-in refused", "request_id", httpx.RequestID(c), "tenant", httpx.CurrentTenant(c).Slug, "reason", why, "method", "password")
		c.Header("Retry-After", strconv.FormatInt(wait, 10))
		s.passwordForm(c, http.StatusTooManyRequests, throttledMessage(wait), userName, next)
		return
	}
	user, hash, err := store.UserForPassword(ctx, httpx.TenantDB(c), userName)
	if err != nil && !learngate.IsCode(err, learngate.NotFound) {
		s.pageError(c, http.StatusInternalServerError, "Something went wrong. Please try again.", err)
		return
	}
	reason := "wrong_password"
	if hash == "" {
		// Unknown user or no password: the same bcrypt work, then refused.
		_ = bcrypt.CompareHashAndPassword(dummyPasswordHash, []byte(password))
		reason = "unknown_user"
	} else if bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) == nil {
		reason = ""
	}
	if reason != "" {
		s.recordPasswordFailure(c, keys)
		s.passwordFailureMetric(c, reason)
		s.signInMetric("refused_" + reason)
		args := []any{"request_id", httpx.RequestID(c), "tenant", httpx.CurrentTenant(c).Slug, "reason", reason, "method", "password"}
		if user.ID != 0 {
			args = append(args, "user_id", user.ID)
		}
		s.gate.Logger.Warn("sign-in refused", args...)
		s.passwordForm(c, http.StatusUnauthorized, "The user name or password is wrong.", userName, next)
		return
	}
	if !user.Active {
		s.passwordFailureMetric(c, "inactive")
		s.refuse(c, http.StatusForbidden, "inactive", inactiveMessage, user.ID, nil)
		return
	}
	s.completeSignIn(c, user, "password", next)
}

// completeSignIn records the sign-in of user (current_sign_in_at and the
// event user.signed_in) and starts their session under a new id (session
// fixation) with a new CSRF token, then sends the learner on to next, or
// to /password first when their record asks for a new password.
func (s *Pages) completeSignIn(c *gin.Context, user learngate.User, method, next string) {
	ctx := c.Request.Context()
	if err := store.RecordSignIn(ctx, httpx.TenantDB(c), user.ID, s.gate.Now()); err != nil {
		if learngate.IsCode(err, learngate.NotFound) {
			s.refuse(c, http.StatusForbidden, "inactive", "Your account is not active. Please ask your administrator.", user.ID, nil)
			return
		}
		s.pageError(c, http.StatusInternalServerError, "Something went wrong. Please try again.", err)
		return
	}
	if err := s.sessions.RenewToken(ctx); err != nil {
		s.pageError(c, http.StatusInternalServerError, "Something went wrong. Please try again.", err)
		return
	}
	s.sessions.Put(ctx, sessUserID, user.ID)
	s.sessions.Put(ctx, sessCSRF, randomToken())
	if raw, ok := c.Get(idTokenKey); ok { // OIDC: the hint of RP-initiated logout (idpLogoutURL)
		s.sessions.Put(ctx, sessIDToken, raw.(string))
	}
	to := safeNext(next)
	if mustSetPassword(user) {
		s.sessions.Put(ctx, sessMustSetPassword, true)
		to = newPasswordPath
	}
	s.signInMetric("signed_in")
	s.gate.Logger.Info("signed in", "request_id", httpx.RequestID(c), "tenant", httpx.CurrentTenant(c).Slug, "user_id", user.ID, "method", method,
		"must_set_password", to == newPasswordPath)
	s.redirectPage(c, to)
}

// passwordForm answers the login page with the password form and message.
func (s *Pages) passwordForm(c *gin.Context, status int, message, userName, next string) {
	data := s.newPageData(c, language.English, "Sign in")
	data.SSO = true
	if cfg, err := s.gate.Registry.SSO(c.Request.Context(), httpx.CurrentTenant(c).ID); err == nil {
		data.SSO = cfg.Protocol != "" && cfg.Protocol != protocolNone
	}
	data.Password, data.UserName, data.Next = true, userName, next
	data.StartURL = "/sso/start?next=" + url.QueryEscape(next)
	data.Message = message
	data.CSRF = s.anonCSRFToken(c)
	s.renderPage(c, status, "login", data)
}
