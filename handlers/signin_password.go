package handlers

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
	"golang.org/x/crypto/bcrypt"
	"golang.org/x/text/language"

	"learngate"
	"learngate/ratelimit"
	"learngate/store"
)

// Password sign-in (docs/decisions.md, "Sign-in"): POST /login with the
// form's CSRF token, allowed only where the tenant's configuration has
// password_login, for a user with a password. Failures are throttled per
// tenant and user name and per tenant and client address; an unknown user
// costs the same bcrypt comparison as a known one.

// Password sign-in throttle: failures per window (the Limiter's, one minute).
const (
	passwordFailuresPerUser    = 5
	passwordFailuresPerAddress = 20
)

// dummyPasswordHash is compared when the user is unknown or has no
// password, so that the answer takes as long as for a wrong password.
var dummyPasswordHash, _ = bcrypt.GenerateFromPassword([]byte("learngate-no-such-user-password"), bcrypt.DefaultCost)

// passwordKeys are the throttle keys of a password attempt.
func passwordKeys(c *gin.Context, userName string) [2]string {
	tid := strconv.FormatInt(currentTenant(c).ID, 10)
	return [2]string{"pwfail:user:" + tid + ":" + userName, "pwfail:ip:" + tid + ":" + clientBucket(c.ClientIP())}
}

var passwordLimits = [2]int64{passwordFailuresPerUser, passwordFailuresPerAddress}

// passwordThrottled returns the seconds to wait when the user name or the
// client address has failed too often, else 0. It asks this node's own
// count as well, which holds the failures recorded while the shared store
// was unreachable.
func (s *Server) passwordThrottled(c *gin.Context, keys [2]string) int64 {
	var wait int64
	for i, k := range keys {
		for _, l := range []*ratelimit.Limiter{s.Limiter, s.localFailures} {
			if r := l.Blocked(c.Request.Context(), k, passwordLimits[i]); !r.Allowed && r.RetryAfter > wait {
				wait = r.RetryAfter
			}
		}
	}
	return wait
}

// recordPasswordFailure counts a failed attempt against both keys, on
// this node when the shared store fails (the throttle never fails open).
func (s *Server) recordPasswordFailure(c *gin.Context, keys [2]string) {
	for i, k := range keys {
		if r := s.Limiter.Record(c.Request.Context(), k, passwordLimits[i]); r.FailedOpen {
			s.localFailures.Record(c.Request.Context(), k, passwordLimits[i])
		}
	}
}

// passwordLogin answers POST /login.
func (s *Server) passwordLogin(c *gin.Context) {
	ctx := c.Request.Context()
	next := safeNext(c.PostForm("next"))
	cfg, err := s.Registry.SSO(ctx, currentTenant(c).ID)
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
	keys := passwordKeys(c, userName)
	if wait := s.passwordThrottled(c, keys); wait > 0 {
		s.signInMetric("refused_throttled")
		s.Logger.Warn("sign-in refused", "request_id", requestID(c), "tenant", currentTenant(c).Slug, "reason", "throttled", "method", "password")
		c.Header("Retry-After", strconv.FormatInt(wait, 10))
		s.passwordForm(c, http.StatusTooManyRequests, "Too many failed sign-ins. Please wait a minute and try again.", userName, next)
		return
	}
	user, hash, err := store.UserForPassword(ctx, tenantDB(c), userName)
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
		s.signInMetric("refused_" + reason)
		args := []any{"request_id", requestID(c), "tenant", currentTenant(c).Slug, "reason", reason, "method", "password"}
		if user.ID != 0 {
			args = append(args, "user_id", user.ID)
		}
		s.Logger.Warn("sign-in refused", args...)
		s.passwordForm(c, http.StatusUnauthorized, "The user name or password is wrong.", userName, next)
		return
	}
	if !user.Active {
		s.refuse(c, http.StatusForbidden, "inactive", "Your account is not active. Please ask your administrator.", user.ID, nil)
		return
	}
	s.completeSignIn(c, user, "password", next)
}

// completeSignIn records the sign-in of user (current_sign_in_at and the
// event user.signed_in) and starts their session under a new id (session
// fixation) with a new CSRF token, then sends the learner on to next, or
// to /password first when their record asks for a new password.
func (s *Server) completeSignIn(c *gin.Context, user store.User, method, next string) {
	ctx := c.Request.Context()
	if err := store.RecordSignIn(ctx, tenantDB(c), user.ID, s.Now()); err != nil {
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
	s.Logger.Info("signed in", "request_id", requestID(c), "tenant", currentTenant(c).Slug, "user_id", user.ID, "method", method,
		"must_set_password", to == newPasswordPath)
	s.redirectPage(c, to)
}

// passwordForm answers the login page with the password form and message.
func (s *Server) passwordForm(c *gin.Context, status int, message, userName, next string) {
	data := s.newPageData(c, language.English, "Sign in")
	data.SSO = true
	if cfg, err := s.Registry.SSO(c.Request.Context(), currentTenant(c).ID); err == nil {
		data.SSO = cfg.Protocol != ""
	}
	data.Password, data.UserName, data.Next = true, userName, next
	data.StartURL = "/sso/start?next=" + url.QueryEscape(next)
	data.Message = message
	data.CSRF = s.csrfToken(c)
	s.renderPage(c, status, "login", data)
}
