package web

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/gin-gonic/gin"

	"learngate"
	"learngate/handlers/httpx"
	"learngate/store"
)

// Learners' sessions (docs/decisions.md, "Sign-in"): server-side in
// PostgreSQL (github.com/alexedwards/scs/v2 over a store of ours on the
// shared table web_sessions, where every row names its tenant), a
// host-only cookie, HttpOnly, SameSite=Lax, Secure under https; 8 hours
// idle, 7 days at most.

// Session settings.
const (
	sessionCookie      = "lg_session"
	sessionIdleTimeout = 8 * time.Hour
	sessionLifetime    = 7 * 24 * time.Hour
)

// Session keys.
const (
	sessUserID = "uid"
	sessCSRF   = "csrf"
	// sessIDToken is the raw ID token of an OIDC sign-in: the
	// id_token_hint of RP-initiated logout.
	sessIDToken = "oidc_id_token"
	// sessMustSetPassword marks a session whose learner must choose a new
	// password (force_pwd_reset_next_login) before any other page.
	sessMustSetPassword = "must_set_password"
)

// SessionStore is what sessions need of the database; a *store.DB is one.
type SessionStore interface {
	FindWebSession(ctx context.Context, tenantID int64, token string, now time.Time) ([]byte, bool, error)
	CommitWebSession(ctx context.Context, tenantID, userID int64, token string, data []byte, expiry time.Time) error
	DeleteWebSession(ctx context.Context, tenantID int64, token string) error
}

// sessionTenantKey carries the tenant id of a page request to the session store.
type sessionTenantKey struct{}

// tenantSessions is an scs.CtxStore whose every read and write is scoped to
// the tenant in the context: a session of tenant A is never found on B.
type tenantSessions struct {
	db  SessionStore
	now func() time.Time
	// codec reads the signed-in user out of the data committed, so that
	// the row names them (setting a password ends their other sessions).
	codec scs.Codec
}

func sessionTenant(ctx context.Context) (int64, bool) {
	id, ok := ctx.Value(sessionTenantKey{}).(int64)
	return id, ok && id > 0
}

// FindCtx returns the data of the tenant's session token.
func (s tenantSessions) FindCtx(ctx context.Context, token string) ([]byte, bool, error) {
	id, ok := sessionTenant(ctx)
	if !ok {
		return nil, false, nil
	}
	return s.db.FindWebSession(ctx, id, token, s.now())
}

// CommitCtx saves the tenant's session token, naming the learner it
// holds signed in.
func (s tenantSessions) CommitCtx(ctx context.Context, token string, b []byte, expiry time.Time) error {
	id, ok := sessionTenant(ctx)
	if !ok {
		return learngate.Errorf(learngate.Internal, "session without tenant")
	}
	var userID int64
	if s.codec != nil {
		_, values, err := s.codec.Decode(b)
		if err != nil {
			return fmt.Errorf("read session data: %w", err)
		}
		userID, _ = values[sessUserID].(int64)
	}
	return s.db.CommitWebSession(ctx, id, userID, token, b, expiry)
}

// DeleteCtx removes the tenant's session token.
func (s tenantSessions) DeleteCtx(ctx context.Context, token string) error {
	id, ok := sessionTenant(ctx)
	if !ok {
		return nil
	}
	return s.db.DeleteWebSession(ctx, id, token)
}

// Find, Commit and Delete are never called: scs uses the Ctx methods.
func (s tenantSessions) Find(string) ([]byte, bool, error) { return nil, false, nil }

// Commit refuses: a session always has a tenant.
func (s tenantSessions) Commit(string, []byte, time.Time) error {
	return learngate.Errorf(learngate.Internal, "session without tenant")
}

// Delete does nothing without a tenant.
func (s tenantSessions) Delete(string) error { return nil }

// newSessionManager returns the session manager of the learners' pages.
func newSessionManager(db SessionStore, secure bool, now func() time.Time) *scs.SessionManager {
	sm := scs.New()
	sm.Store = tenantSessions{db: db, now: now, codec: sm.Codec}
	sm.IdleTimeout = sessionIdleTimeout
	sm.Lifetime = sessionLifetime
	sm.Cookie.Name = sessionCookie
	sm.Cookie.Path = "/"
	sm.Cookie.Domain = "" // host-only: never sent to another tenant's host
	sm.Cookie.HttpOnly = true
	sm.Cookie.SameSite = http.SameSiteLaxMode
	sm.Cookie.Secure = secure
	sm.Cookie.Persist = true
	return sm
}

// loadSession loads the page request's session, scoped to its tenant.
func (s *Pages) loadSession(c *gin.Context) {
	ctx := context.WithValue(c.Request.Context(), sessionTenantKey{}, httpx.CurrentTenant(c).ID)
	token := ""
	if ck, err := c.Request.Cookie(sessionCookie); err == nil {
		token = ck.Value
	}
	ctx, err := s.sessions.Load(ctx, token)
	if err != nil {
		s.pageError(c, http.StatusInternalServerError, "Something went wrong. Please try again.", err)
		return
	}
	c.Request = c.Request.WithContext(ctx)
	c.Next()
}

// saveSession writes the session and its cookie before a page answers.
func (s *Pages) saveSession(c *gin.Context) error {
	ctx := c.Request.Context()
	switch s.sessions.Status(ctx) {
	case scs.Modified:
		token, expiry, err := s.sessions.Commit(ctx)
		if err != nil {
			return err
		}
		s.sessions.WriteSessionCookie(ctx, c.Writer, token, expiry)
	case scs.Destroyed:
		s.sessions.WriteSessionCookie(ctx, c.Writer, "", time.Time{})
	}
	return nil
}

// csrfToken returns the signed-in session's CSRF token, making one when it
// has none. Anonymous forms use anonCSRFToken instead.
func (s *Pages) csrfToken(c *gin.Context) string {
	ctx := c.Request.Context()
	tok := s.sessions.GetString(ctx, sessCSRF)
	if tok == "" {
		tok = randomToken()
		s.sessions.Put(ctx, sessCSRF, tok)
	}
	return tok
}

// checkCSRF refuses a POST form whose csrf field is not the session's token.
func (s *Pages) checkCSRF(c *gin.Context) {
	want := s.sessions.GetString(c.Request.Context(), sessCSRF)
	got := c.PostForm("csrf")
	if want == "" || subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
		s.refuseCSRF(c)
		return
	}
	c.Next()
}

// checkAnonCSRF refuses a POST form of the anonymous pages whose csrf
// field is not the token of the browser's CSRF cookie on this host
// (signin_state.go): no server-side state is read or written.
func (s *Pages) checkAnonCSRF(c *gin.Context) {
	if !s.validAnonCSRF(c) {
		s.refuseCSRF(c)
		return
	}
	c.Next()
}

// refuseCSRF answers a form whose CSRF token is missing or wrong.
func (s *Pages) refuseCSRF(c *gin.Context) {
	s.signInMetric("refused_csrf")
	s.gate.Logger.Warn("page form refused: CSRF token missing or wrong", "request_id", httpx.RequestID(c), "path", c.FullPath())
	s.pageError(c, http.StatusForbidden, "This form has expired. Please go back, reload the page and try again.", nil)
}

// randomToken returns 32 random bytes in base64url.
func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// safeNext returns next when it is a path of this host (never another
// host, scheme or protocol-relative URL), else /learn.
func safeNext(next string) string {
	const home = "/learn"
	if next == "" || len(next) > 1024 || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") ||
		strings.HasPrefix(next, "/\\") || strings.ContainsAny(next, "\\\r\n\t\x00") {
		return home
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil {
		return home
	}
	return next
}

// currentLearner returns the signed-in user of a requireLearner page.
func currentLearner(c *gin.Context) learngate.User {
	u, _ := c.Get(learnerKey)
	return u.(learngate.User)
}

const learnerKey = "learngate.learner"

// inactiveAccount is the value of /login's account parameter that shows
// inactiveMessage (loginPage).
const inactiveAccount = "inactive"

// inactiveMessage tells a learner that their account is not active.
const inactiveMessage = "Your account is not active. Please ask your administrator."

// requireLearner admits a signed-in, active learner; anyone else goes to
// /login, keeping the page asked for in next. A deactivated (or deleted)
// learner's session ends on their next request, and the login page says
// that their account is not active.
func (s *Pages) requireLearner(c *gin.Context) {
	ctx := c.Request.Context()
	id := s.sessions.GetInt64(ctx, sessUserID)
	login := "/login?next=" + url.QueryEscape(c.Request.URL.RequestURI())
	if id == 0 {
		s.redirectPage(c, login)
		return
	}
	user, err := store.SignInUser(ctx, httpx.TenantDB(c), id)
	if err != nil && !learngate.IsCode(err, learngate.NotFound) {
		s.pageError(c, http.StatusInternalServerError, "Something went wrong. Please try again.", err)
		return
	}
	if err != nil || !user.Active {
		if err := s.sessions.Destroy(ctx); err != nil {
			s.pageError(c, http.StatusInternalServerError, "Something went wrong. Please try again.", err)
			return
		}
		s.signInMetric("session_ended")
		s.gate.Logger.Info("session ended: user inactive or gone", "request_id", httpx.RequestID(c), "tenant", httpx.CurrentTenant(c).Slug, "user_id", id)
		s.redirectPage(c, login+"&account="+inactiveAccount)
		return
	}
	c.Set(learnerKey, user)
	c.Next()
}
