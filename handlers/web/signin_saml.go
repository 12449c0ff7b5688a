package web

import (
	"context"
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/crewjam/saml"
	"github.com/gin-gonic/gin"

	"learngate"
	"learngate/handlers/httpx"
	"learngate/tenant"
)

// The SAML 2.0 service provider (docs/decisions.md, "Sign-in"), with
// github.com/crewjam/saml: SP-initiated sign-in from /sso/start (HTTP
// redirect binding), the assertion posted to /sso/saml/acs and checked by
// the library (signature against the IdP's metadata certificate, audience
// = this host's SP entity ID, recipient, InResponseTo = the request this
// browser started, validity window), then against our clock and the
// used-assertion table (replays).

// samlRequestCookie carries the id of the authentication request this
// browser started. It is its own cookie, not the session's: the IdP's
// form is a cross-site POST, on which browsers do not send the session's
// SameSite=Lax cookie.
const samlRequestCookie = "lg_saml_request"

// SAMLReplayStore remembers used assertion IDs; a *store.DB is one.
type SAMLReplayStore interface {
	UseSAMLAssertion(ctx context.Context, tenantID int64, id string, expires, now time.Time) error
}

// publicBase is scheme://host[:port] of the request's tenant host.
func (s *Pages) publicBase(c *gin.Context) string {
	scheme := s.deps.PublicScheme
	if scheme == "" {
		scheme = "https"
	}
	host := tenant.NormalizeHost(c.Request.Host)
	if _, port, err := net.SplitHostPort(c.Request.Host); err == nil && validPort(port) {
		host = net.JoinHostPort(host, port)
	}
	return scheme + "://" + host
}

// samlProvider is the tenant's service provider on the request's host:
// its entity ID is the host's metadata URL.
func (s *Pages) samlProvider(c *gin.Context, cfg tenant.SSOConfig) (*saml.ServiceProvider, error) {
	md, err := tenant.ParseIdPMetadata(cfg.SAMLMetadataXML)
	if err != nil {
		return nil, err
	}
	pair, err := tls.X509KeyPair([]byte(cfg.SAMLCert), []byte(cfg.SAMLKey))
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode([]byte(cfg.SAMLCert))
	if block == nil {
		return nil, errors.New("SAML certificate is not PEM")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return nil, err
	}
	base, err := url.Parse(s.publicBase(c))
	if err != nil {
		return nil, err
	}
	metadataURL, acsURL := *base, *base
	metadataURL.Path, acsURL.Path = "/sso/saml/metadata", "/sso/saml/acs"
	key, ok := pair.PrivateKey.(crypto.Signer)
	if !ok {
		return nil, errors.New("SAML key cannot sign")
	}
	return &saml.ServiceProvider{EntityID: metadataURL.String(), Key: key, Certificate: cert, MetadataURL: metadataURL,
		AcsURL: acsURL, IDPMetadata: md, AllowIDPInitiated: false, HTTPClient: s.signIn.idp.guard.Client()}, nil
}

// samlConfig returns the tenant's configuration when it is SAML; it
// answers the page itself and reports false otherwise.
func (s *Pages) samlConfig(c *gin.Context) (tenant.SSOConfig, bool) {
	cfg, err := s.gate.Registry.SSO(c.Request.Context(), httpx.CurrentTenant(c).ID)
	if learngate.IsCode(err, learngate.NotFound) || (err == nil && cfg.Protocol != "saml") {
		s.pageError(c, http.StatusNotFound, "Sign-in is not set up for this organisation. Please ask your administrator.", nil)
		return cfg, false
	}
	if err != nil {
		s.pageError(c, http.StatusInternalServerError, "Something went wrong. Please try again.", err)
		return cfg, false
	}
	return cfg, true
}

// samlMetadata answers GET /sso/saml/metadata: this host's SP metadata.
func (s *Pages) samlMetadata(c *gin.Context) {
	cfg, ok := s.samlConfig(c)
	if !ok {
		return
	}
	sp, err := s.samlProvider(c, cfg)
	if err != nil {
		s.pageError(c, http.StatusInternalServerError, "Something went wrong. Please try again.", err)
		return
	}
	out, err := spMetadataXML(sp)
	if err != nil {
		s.pageError(c, http.StatusInternalServerError, "Something went wrong. Please try again.", err)
		return
	}
	c.Header("Cache-Control", "no-store")
	c.Data(http.StatusOK, "application/samlmetadata+xml", out)
	c.Abort()
}

// startSAML sends the browser to the IdP with a new authentication
// request whose id it keeps in samlRequestCookie.
func (s *Pages) startSAML(c *gin.Context, cfg tenant.SSOConfig) {
	sp, err := s.samlProvider(c, cfg)
	if err != nil {
		s.pageError(c, http.StatusInternalServerError, "Something went wrong. Please try again.", err)
		return
	}
	req, err := sp.MakeAuthenticationRequest(sp.GetSSOBindingLocation(saml.HTTPRedirectBinding), saml.HTTPRedirectBinding, saml.HTTPPostBinding)
	if err != nil {
		s.refuse(c, http.StatusBadGateway, "provider_unusable", "Your organisation's sign-in service cannot be used. Please ask your administrator.", 0, err)
		return
	}
	format := nameIDFormat(cfg)
	req.NameIDPolicy.Format = &format
	next := safeNext(c.Query("next"))
	if len(next) > 80 { // RelayState is at most 80 bytes
		next = "/learn"
	}
	to, err := req.Redirect(next, sp)
	if err != nil {
		s.pageError(c, http.StatusInternalServerError, "Something went wrong. Please try again.", err)
		return
	}
	sealed, err := s.sealFlow(c, samlRequestCookie, req.ID)
	if err != nil {
		s.pageError(c, http.StatusInternalServerError, "Something went wrong. Please try again.", err)
		return
	}
	s.setSAMLCookie(c, sealed)
	s.redirectPage(c, to.String())
}

// setSAMLCookie sets the sealed request cookie (signin_state.go), or
// removes it when value is "". Under https it is SameSite=None so that
// the IdP's cross-site POST carries it; plain http (a local node) cannot
// have SameSite=None and uses Lax: the IdP must then share the site
// (docs/sign-in.md).
func (s *Pages) setSAMLCookie(c *gin.Context, value string) {
	s.setFlowCookie(c, samlRequestCookie, "/sso/saml/acs", value, true)
}

// samlRequestID returns the id of the authentication request this browser
// started, from its sealed cookie; "" when it has none valid.
func (s *Pages) samlRequestID(c *gin.Context) string {
	ck, err := c.Request.Cookie(samlRequestCookie)
	if err != nil {
		return ""
	}
	var id string
	if s.openFlow(c, samlRequestCookie, ck.Value, &id) != nil {
		return ""
	}
	return id
}

// samlACS answers POST /sso/saml/acs.
func (s *Pages) samlACS(c *gin.Context) {
	cfg, ok := s.samlConfig(c)
	if !ok || s.samlThrottled(c) {
		return
	}
	// The sealed request cookie is checked before anything costs: a post
	// without a valid, unexpired cookie of this host is refused unread.
	reqID := s.samlRequestID(c)
	s.setSAMLCookie(c, "") // one response per request
	if reqID == "" {
		s.refuse(c, http.StatusBadRequest, "bad_state", "This sign-in has expired or was not started here. Please sign in again.", 0, nil)
		return
	}
	requestIDs := []string{reqID}
	// Bounded before anything costly (signin_saml_bounds.go): the form's
	// size, the response's shape, then its encrypted assertion's.
	raw, ok := s.readSAMLResponse(c)
	if !ok {
		return
	}
	shape, err := checkSAMLShape(raw, maxSAMLElements)
	if s.refuseSAMLShape(c, err) {
		return
	}
	sp, err := s.samlProvider(c, cfg)
	if err != nil {
		s.pageError(c, http.StatusInternalServerError, "Something went wrong. Please try again.", err)
		return
	}
	if s.refuseSAMLShape(c, checkSAMLPlaintext(sp, shape)) {
		return
	}
	assertion, err := s.parseSAMLResponse(c, sp, raw, requestIDs)
	if errors.Is(err, errSAMLBusy) || c.Request.Context().Err() != nil {
		c.Header("Retry-After", "5")
		s.refuse(c, http.StatusServiceUnavailable, "saml_busy", "Sign-in is busy. Please try again in a moment.", 0, err)
		return
	}
	if err != nil {
		var ire *saml.InvalidResponseError
		if errors.As(err, &ire) {
			err = ire.PrivateErr
		}
		s.refuseSAML(c, http.StatusForbidden, "bad_assertion", err)
		return
	}
	expires, err := s.checkAssertionWindow(assertion)
	if err != nil {
		s.refuseSAML(c, http.StatusForbidden, "bad_assertion", err)
		return
	}
	if s.deps.SAMLReplays == nil {
		s.pageError(c, http.StatusInternalServerError, "Something went wrong. Please try again.", errors.New("no store for used SAML assertions"))
		return
	}
	err = s.deps.SAMLReplays.UseSAMLAssertion(c.Request.Context(), httpx.CurrentTenant(c).ID, assertion.ID, expires, s.gate.Now())
	if learngate.IsCode(err, learngate.Conflict) {
		s.refuse(c, http.StatusForbidden, "replayed_assertion", "This sign-in was already used. Please sign in again.", 0, nil)
		return
	}
	if err != nil {
		s.pageError(c, http.StatusInternalServerError, "Something went wrong. Please try again.", err)
		return
	}
	user, ok := s.signInUser(c, cfg, samlClaims(assertion))
	if !ok {
		return
	}
	s.completeSignIn(c, user, "saml", c.Request.PostForm.Get("RelayState"))
}

// parseSAMLResponse has the library parse and check raw in one of the
// process's parse slots, unless the request ends first.
func (s *Pages) parseSAMLResponse(c *gin.Context, sp *saml.ServiceProvider, raw []byte, requestIDs []string) (*saml.Assertion, error) {
	ctx := c.Request.Context()
	if err := s.samlParses.enter(ctx); err != nil {
		return nil, err
	}
	defer s.samlParses.leave()
	if s.samlParses.hold != nil {
		s.samlParses.hold()
	}
	if err := ctx.Err(); err != nil { // the client left while it waited
		return nil, err
	}
	return sp.ParseXMLResponse(raw, requestIDs, sp.AcsURL)
}

// checkAssertionWindow checks the assertion's validity window against our
// clock (the library checks it against the system's) and returns when it
// may be forgotten as used.
func (s *Pages) checkAssertionWindow(a *saml.Assertion) (time.Time, error) {
	now := s.gate.Now()
	if a.Conditions == nil || a.Conditions.NotOnOrAfter.IsZero() {
		return time.Time{}, errors.New("assertion without NotOnOrAfter")
	}
	if !now.Before(a.Conditions.NotOnOrAfter.Add(saml.MaxClockSkew)) {
		return time.Time{}, errors.New("assertion expired")
	}
	if !a.Conditions.NotBefore.IsZero() && now.Add(saml.MaxClockSkew).Before(a.Conditions.NotBefore) {
		return time.Time{}, errors.New("assertion not yet valid")
	}
	return a.Conditions.NotOnOrAfter.Add(saml.MaxClockSkew), nil
}

// SAML attribute names (and friendly names) of the claims learngate reads.
var (
	samlEmailNames = []string{"email", "mail", "emailaddress", "urn:oid:0.9.2342.19200300.100.1.3",
		"http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress"}
	samlUserNames = []string{"uid", "username", "user_name", "urn:oid:0.9.2342.19200300.100.1.1",
		"http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name"}
	samlGivenNames  = []string{"givenname", "urn:oid:2.5.4.42", "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname"}
	samlFamilyNames = []string{"sn", "surname", "urn:oid:2.5.4.4", "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname"}
)

// samlAttribute returns the first value of the first attribute named (or
// friendly-named, ignoring case) one of names.
func samlAttribute(a *saml.Assertion, names []string) string {
	for _, st := range a.AttributeStatements {
		for _, attr := range st.Attributes {
			for _, n := range names {
				if (strings.EqualFold(attr.Name, n) || strings.EqualFold(attr.FriendlyName, n)) && len(attr.Values) > 0 {
					return strings.TrimSpace(attr.Values[0].Value)
				}
			}
		}
	}
	return ""
}
