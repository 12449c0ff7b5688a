package web

import (
	"strings"

	"github.com/gin-gonic/gin"

	"learngate/handlers/httpx"
)

// Routes adds the learner pages to r (docs/sign-in.md): sign-in by
// password, OIDC and SAML, sign-out, a new password, and My learning,
// each behind the page's tenant (pageTenant) and session (loadSession).
func (s *Pages) Routes(r gin.IRouter) {
	r.GET("/assets/sign-in.css", s.serveCSS)
	g := r.Group("", s.pageTenant, s.loadSession)
	g.GET("/login", s.loginPage)
	g.POST("/login", s.checkAnonCSRF, s.passwordLogin)
	g.GET("/sso/start", s.startOIDC)
	g.GET("/sso/saml/metadata", s.samlMetadata)
	g.POST("/sso/saml/acs", s.samlACS)
	g.GET("/sso/oidc/callback", s.oidcCallback)
	g.POST("/logout", s.checkCSRF, s.logout)
	g.GET(newPasswordPath, s.requireLearner, s.newPasswordPage)
	g.POST(newPasswordPath, s.checkCSRF, s.requireLearner, s.setNewPassword)
	learn := g.Group("/learn", s.requireLearner, s.requirePasswordChosen)
	learn.GET("", s.learnPage)
	learn.POST("/certificates", s.checkCSRF, s.requestLearnerCertificate)
	learn.GET("/certificates/:job_id", s.learnerCertificate)
}

// isLearnerPage reports whether path is one of the learner pages, whose
// every error, a panic included, is a page (respondPage).
func isLearnerPage(path string) bool {
	switch path {
	case "/login", "/logout", newPasswordPath, "/learn":
		return true
	}
	return strings.HasPrefix(path, "/learn/") || strings.HasPrefix(path, "/sso/")
}

// OnPages makes the learner pages' paths answer their errors with
// respondPage: a step of the public router's own chain, so that it covers
// every handler on those paths, a panic included.
func (s *Pages) OnPages(c *gin.Context) {
	if isLearnerPage(c.Request.URL.Path) {
		httpx.UseResponder(c, s.respondPage)
	}
	c.Next()
}
