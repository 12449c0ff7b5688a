package web

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/gin-gonic/gin"

	"learngate/handlers/httpx"
	"learngate/tenant"
)

// The relying party's side of a sign-in that is not the flow itself
// (docs/decisions.md, "Calls to identity providers"): the page when the
// provider cannot be used, the authorized party of an ID token, and
// RP-initiated logout.

// providerUnavailable answers the "sign-in service unavailable" page: 503
// with Retry-After, at once while a failed fetch is remembered. The failed
// fetch is logged (reason provider_unavailable); every answer is counted.
func (s *Pages) providerUnavailable(c *gin.Context, err error) {
	retry := providerFailureTTL
	var down *providerDownError
	if errors.As(err, &down) {
		retry = down.until.Sub(s.signIn.idp.now())
	}
	c.Header("Retry-After", strconv.Itoa(max(1, int(math.Ceil(retry.Seconds())))))
	const message = "Your organisation's sign-in service is not available at the moment. Please try again in a minute."
	if down == nil || !down.remembered {
		s.refuse(c, http.StatusServiceUnavailable, "provider_unavailable", message, 0, err)
		return
	}
	// A remembered failure was logged when its fetch failed: counted only,
	// so that a flood of sign-ins does not flood the log.
	s.signInMetric("refused_provider_unavailable")
	data := s.newPageData(c, languageEnglish, "Sign in")
	data.Message = message
	data.Link, data.LinkText = "/login", data.T("Sign in")
	s.renderPage(c, http.StatusServiceUnavailable, "message", data)
}

// checkAuthorizedParty refuses an ID token issued for several audiences
// without azp naming this client, or whose azp names another client
// (OpenID Connect Core 1.0, section 3.1.3.7).
func checkAuthorizedParty(idt *oidc.IDToken, clientID string) error {
	var claims struct {
		AZP string `json:"azp"`
	}
	if err := idt.Claims(&claims); err != nil {
		return err
	}
	if claims.AZP != "" && claims.AZP != clientID {
		return fmt.Errorf("id token azp %q is not this client", claims.AZP)
	}
	if len(idt.Audience) > 1 && claims.AZP == "" {
		return errors.New("id token has several audiences and no azp")
	}
	return nil
}

// idpLogoutURL is the provider's end_session_endpoint where a learner
// signing out goes next (RP-initiated logout, with id_token_hint and
// post_logout_redirect_uri back to this host's /login) when the learner
// signed in through OIDC (hint is the raw ID token kept in the session),
// the tenant ends provider sessions, and the discovery document names one;
// else "". A provider that cannot be reached is skipped: signing out of
// learngate never waits on it longer than one fetch.
func (s *Pages) idpLogoutURL(c *gin.Context, hint string) string {
	const local = ""
	if hint == "" {
		return local
	}
	ctx := c.Request.Context()
	cfg, err := s.gate.Registry.SSO(ctx, httpx.CurrentTenant(c).ID)
	if err != nil || cfg.Protocol != tenant.ProtocolOIDC || !cfg.EndIdPSession {
		return local
	}
	d, err := s.signIn.idp.discovery(ctx, cfg.Issuer)
	if err != nil || d.EndSessionURL == "" {
		return local
	}
	u, err := url.Parse(d.EndSessionURL)
	if err != nil {
		return local
	}
	q := u.Query()
	q.Set("id_token_hint", hint)
	q.Set("client_id", cfg.ClientID)
	q.Set("post_logout_redirect_uri", s.publicBase(c)+"/login")
	u.RawQuery = q.Encode()
	return u.String()
}

// providerLogoutPage answers a signed-out learner with a page that goes on
// at once (a Refresh header, and a link) to the provider's end-session URL.
// Not a redirect: the logout form's Content-Security-Policy (form-action
// 'self') would stop a form submission redirected to another origin.
func (s *Pages) providerLogoutPage(c *gin.Context, to string) {
	c.Header("Refresh", "0;url="+to)
	data := s.newPageData(c, languageEnglish, "Signed out")
	data.Message = "You are signed out. Now signing you out of your organisation's sign-in service."
	data.Link, data.LinkText = to, data.T("Continue")
	s.renderPage(c, http.StatusOK, "message", data)
}

// idTokenKey carries a verified raw ID token from the callback to
// completeSignIn, which keeps it in the new session (sessIDToken).
const idTokenKey = "learngate.id_token"
