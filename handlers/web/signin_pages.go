package web

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/alexedwards/scs/v2"
	"github.com/gin-gonic/gin"
	"golang.org/x/text/language"

	"learngate"
	"learngate/handlers/httpx"
)

// serveCSS answers the pages' stylesheet.
func (s *Pages) serveCSS(c *gin.Context) {
	c.Header("Cache-Control", "public, max-age=3600")
	c.Data(http.StatusOK, "text/css; charset=utf-8", s.signIn.css)
}

// pageTenant resolves the host to a tenant for the pages: an unknown host
// or a suspended tenant is a page, never JSON.
func (s *Pages) pageTenant(c *gin.Context) {
	t, err := s.gate.Registry.Resolve(c.Request.Context(), c.Request.Host)
	if learngate.IsCode(err, learngate.NotFound) {
		s.pageError(c, http.StatusNotFound, "This organisation is unknown.", nil)
		return
	}
	if err != nil {
		s.pageError(c, http.StatusInternalServerError, "Something went wrong. Please try again.", err)
		return
	}
	httpx.SetTenant(c, t)
	if t.Status != learngate.TenantActive {
		s.pageError(c, http.StatusForbidden, "Sign-in is not available for this organisation.", nil)
		return
	}
	tdb, err := s.gate.DB.Tenant(t.Schema)
	if err != nil {
		s.pageError(c, http.StatusInternalServerError, "Something went wrong. Please try again.", err)
		return
	}
	httpx.SetTenantDB(c, tdb)
	c.Next()
}

// pageData is what every page template gets.
type pageData struct {
	Lang, Title, Org string
	T                func(string, ...any) string
	SignedIn         bool
	CSRF             string
	Message          string
	Link, LinkText   string
	// Again is the address of a "Check again" button (a pending certificate):
	// the learner reloads when they choose, no timed refresh (WCAG 2.2.1).
	Again string
	// login
	SSO      bool
	StartURL string
	// Password shows the password form, with UserName and Next kept.
	Password       bool
	UserName, Next string
	// learn
	Learner          string
	Topics, Pathways []enrolmentRow
	Knowledge        []knowledgeRow
}

// newPageData returns the common data of a page in lang.
func (s *Pages) newPageData(c *gin.Context, lang language.Tag, title string) pageData {
	org := ""
	if t, ok := httpx.TenantOf(c); ok {
		org = t.Name
	}
	tr := translator(s.signIn.catalog, lang)
	return pageData{Lang: lang.String(), T: tr, Title: tr(title), Org: org}
}

// renderPage saves the session and answers page name.
func (s *Pages) renderPage(c *gin.Context, status int, name string, data pageData) {
	if err := s.saveSession(c); err != nil {
		s.gate.Logger.Error("save session", "request_id", httpx.RequestID(c), "err", err)
		status, name = http.StatusInternalServerError, "message"
		data.Message, data.SignedIn = "Something went wrong. Please try again.", false
	}
	pageHeaders(c)
	c.Status(status)
	if err := s.signIn.pages.ExecuteTemplate(c.Writer, name, data); err != nil {
		s.gate.Logger.Error("render page", "request_id", httpx.RequestID(c), "page", name, "err", err)
	}
	c.Abort()
}

// redirectPage saves the session and answers 303 See Other to a path of
// this host (or the provider's authorisation URL).
func (s *Pages) redirectPage(c *gin.Context, to string) {
	if err := s.saveSession(c); err != nil {
		s.pageError(c, http.StatusInternalServerError, "Something went wrong. Please try again.", err)
		return
	}
	c.Header("Cache-Control", "no-store")
	c.Redirect(http.StatusSeeOther, to)
	c.Abort()
}

// pageError answers a page with message (English; never err's text),
// logging err when there is one.
func (s *Pages) pageError(c *gin.Context, status int, message string, err error) {
	if err != nil {
		s.gate.Logger.Error("learner page failed", "request_id", httpx.RequestID(c), "path", c.FullPath(), "err", err)
	}
	data := s.newPageData(c, language.English, "Sign in")
	data.Message = message
	data.Link, data.LinkText = "/login", data.T("Sign in")
	if s.sessions == nil || c.Request.Context().Value(sessionTenantKey{}) == nil {
		s.renderBare(c, status, data)
		return
	}
	s.renderPage(c, status, "message", data)
}

// pageHeaders sets the headers of every learner page.
func pageHeaders(c *gin.Context) {
	c.Header("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	c.Header("Cache-Control", "no-store")
	c.Header("X-Content-Type-Options", "nosniff")
	c.Header("Referrer-Policy", "same-origin")
	c.Header("Content-Type", "text/html; charset=utf-8")
}

// renderBare answers a message page without touching the session: before
// one is loaded, or after a panic.
func (s *Pages) renderBare(c *gin.Context, status int, data pageData) {
	pageHeaders(c)
	c.Status(status)
	_ = s.signIn.pages.ExecuteTemplate(c.Writer, "message", data)
	c.Abort()
}

// respondPage is the learner pages' Responder: every error of theirs is a
// page, and the only one that reaches here is a panic (pagePanic).
func (s *Pages) respondPage(c *gin.Context, err error) {
	if errors.Is(err, httpx.ErrPanicked) {
		s.pagePanic(c)
		return
	}
	httpx.RespondPlain(c, err)
}

// pagePanic answers a learner page that panicked (recovered has logged it
// with the request id): status 500 and a page saying only that something
// went wrong. Nothing is answered when the page had started its answer.
func (s *Pages) pagePanic(c *gin.Context) {
	if c.Writer.Written() || s.signIn == nil {
		c.AbortWithStatus(http.StatusInternalServerError)
		return
	}
	data := s.newPageData(c, language.English, "Sign in")
	data.Message = "Something went wrong. Please try again."
	data.Link, data.LinkText = "/login", data.T("Sign in")
	s.renderBare(c, http.StatusInternalServerError, data)
}

// loginPage answers GET /login: "Sign in with <organisation>".
func (s *Pages) loginPage(c *gin.Context) {
	ctx := c.Request.Context()
	next := safeNext(c.Query("next"))
	if s.sessions.GetInt64(ctx, sessUserID) != 0 {
		s.redirectPage(c, next)
		return
	}
	data := s.newPageData(c, language.English, "Sign in")
	cfg, err := s.gate.Registry.SSO(ctx, httpx.CurrentTenant(c).ID)
	if err != nil && !learngate.IsCode(err, learngate.NotFound) {
		s.pageError(c, http.StatusInternalServerError, "Something went wrong. Please try again.", err)
		return
	}
	data.SSO = err == nil && cfg.Protocol != protocolNone
	data.Password, data.Next = err == nil && cfg.PasswordLogin, next
	data.StartURL = "/sso/start?next=" + url.QueryEscape(next)
	if c.Query("account") == inactiveAccount {
		data.Message = data.T(inactiveMessage)
	}
	data.CSRF = s.anonCSRFToken(c)
	s.renderPage(c, http.StatusOK, "login", data)
}

// logout answers POST /logout: the session ends, on to /login.
func (s *Pages) logout(c *gin.Context) {
	ctx := c.Request.Context()
	id, hint := s.sessions.GetInt64(ctx, sessUserID), s.sessions.GetString(ctx, sessIDToken)
	if err := s.sessions.Destroy(ctx); err != nil {
		s.pageError(c, http.StatusInternalServerError, "Something went wrong. Please try again.", err)
		return
	}
	s.signInMetric("signed_out")
	s.gate.Logger.Info("signed out", "request_id", httpx.RequestID(c), "tenant", httpx.CurrentTenant(c).Slug, "user_id", id)
	if to := s.idpLogoutURL(c, hint); to != "" {
		s.providerLogoutPage(c, to)
		return
	}
	s.redirectPage(c, "/login")
}

// signInMetric counts one sign-in outcome.
func (s *Pages) signInMetric(outcome string) {
	if s.signIn != nil && s.signIn.outcomes != nil {
		s.signIn.outcomes.WithLabelValues(outcome).Inc()
	}
}

// sessionManager is the type of Pages.sessions.
type sessionManager = scs.SessionManager
