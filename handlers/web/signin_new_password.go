package web

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"learngate"
	"learngate/handlers/httpx"
	"learngate/records"
	"learngate/store"
)

// Choosing a new password at sign-in (docs/decisions.md, "Sign-in"): a
// learner whose record has force_pwd_reset_next_login signs in as usual
// (password, OIDC or SAML); their session is then marked, and every
// learner page sends them to GET /password until POST /password has stored
// a password that passes the API's password rules (records.HashNewPassword)
// and cleared the flag. A user whose login is external has no password of
// ours: the flag does not stop their single sign-on.

// newPasswordPath is the page where a marked learner chooses a password.
const newPasswordPath = "/password"

// mustSetPassword reports whether user's sign-in must be followed by a new
// password.
func mustSetPassword(user learngate.User) bool {
	return user.ForcePwdResetNextLogin && user.Login != "external"
}

// requirePasswordChosen sends a learner whose session is marked to
// /password; it follows requireLearner.
func (s *Pages) requirePasswordChosen(c *gin.Context) {
	if s.passwordStillDue(c) {
		s.redirectPage(c, newPasswordPath)
		return
	}
	c.Next()
}

// passwordStillDue reports whether the learner of a requireLearner page
// must still choose a password: their session is marked AND their record,
// just read from the database by requireLearner, still asks for it. A
// mark whose record no longer asks (the password was set in another
// session, or an administrator cleared the flag) is removed.
func (s *Pages) passwordStillDue(c *gin.Context) bool {
	ctx := c.Request.Context()
	if !s.sessions.GetBool(ctx, sessMustSetPassword) {
		return false
	}
	if mustSetPassword(currentLearner(c)) {
		return true
	}
	s.sessions.Remove(ctx, sessMustSetPassword)
	return false
}

// newPasswordPage answers GET /password: the form (new password and its
// confirmation), or on to /learn for a session that needs none.
func (s *Pages) newPasswordPage(c *gin.Context) {
	if !s.passwordStillDue(c) {
		s.redirectPage(c, "/learn")
		return
	}
	s.newPasswordForm(c, http.StatusOK, "")
}

// setNewPassword answers POST /password (password, password_confirmation,
// csrf): the password is checked and hashed before the store's
// transaction, which saves it, clears force_pwd_reset_next_login and ends
// every session of the learner; this one goes on under a new id to /learn.
// A session whose learner's record no longer asks for a password (checked
// in the database now, not only in the session) sets none.
func (s *Pages) setNewPassword(c *gin.Context) {
	ctx := c.Request.Context()
	if !s.passwordStillDue(c) {
		s.redirectPage(c, "/learn")
		return
	}
	password := c.PostForm("password")
	if password != c.PostForm("password_confirmation") {
		s.newPasswordForm(c, http.StatusBadRequest, "The two passwords differ. Please enter the same new password twice.")
		return
	}
	hash, err := records.HashNewPassword(password)
	if learngate.IsCode(err, learngate.Unprocessable) {
		s.newPasswordForm(c, http.StatusUnprocessableEntity, records.PasswordRule)
		return
	}
	if err != nil {
		s.pageError(c, http.StatusInternalServerError, "Something went wrong. Please try again.", err)
		return
	}
	user := currentLearner(c)
	_, err = store.SetSignInPassword(ctx, httpx.TenantDB(c), user.ID, hash, s.gate.Now())
	switch {
	case learngate.IsCode(err, learngate.NotFound):
		s.refuse(c, http.StatusForbidden, "inactive", "Your account is not active. Please ask your administrator.", user.ID, nil)
		return
	case learngate.IsCode(err, learngate.Invalid):
		s.newPasswordForm(c, http.StatusUnprocessableEntity, "A password cannot be set for your account. Please ask your administrator.")
		return
	case err != nil:
		s.pageError(c, http.StatusInternalServerError, "Something went wrong. Please try again.", err)
		return
	}
	if err := s.sessions.RenewToken(ctx); err != nil {
		s.pageError(c, http.StatusInternalServerError, "Something went wrong. Please try again.", err)
		return
	}
	s.sessions.Remove(ctx, sessMustSetPassword)
	s.sessions.Put(ctx, sessCSRF, randomToken())
	s.signInMetric("password_set")
	s.gate.Logger.Info("new password set at sign-in", "request_id", httpx.RequestID(c), "tenant", httpx.CurrentTenant(c).Slug, "user_id", user.ID)
	s.redirectPage(c, "/learn")
}

// newPasswordForm answers the /password page with status and message (an
// English key, shown in the learner's language).
func (s *Pages) newPasswordForm(c *gin.Context, status int, message string) {
	user := currentLearner(c)
	data := s.newPageData(c, pageLanguage(user.Language), "Choose a new password")
	data.SignedIn, data.CSRF = true, s.csrfToken(c)
	if message != "" {
		data.Message = data.T(message)
	}
	s.renderPage(c, status, "password", data)
}
