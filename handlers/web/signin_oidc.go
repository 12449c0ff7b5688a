package web

import (
	"context"
	"crypto/subtle"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/gin-gonic/gin"
	"golang.org/x/oauth2"

	"learngate"
	"learngate/handlers/httpx"
	"learngate/store"
	"learngate/tenant"
)

// The OIDC relying party (docs/decisions.md, "Sign-in"): the authorization
// code flow with PKCE, state and nonce kept in the session, the ID token
// verified by github.com/coreos/go-oidc/v3 (signature against the issuer's
// keys, issuer, audience = this tenant's client id, expiry).

// idProvider is a tenant's provider as a sign-in uses it: its endpoints
// (embedded: Endpoint, UserInfo), its discovery document and its keys,
// all from the provider cache (signin_provider.go).
type idProvider struct {
	*oidc.Provider
	doc  *discovered
	keys oidc.KeySet
}

// oidcProvider returns the tenant's provider from the provider cache,
// fetching its discovery document through the guard when it must (for as
// long as the learner's request lasts, at most 5 s).
func (s *Pages) oidcProvider(ctx context.Context, cfg tenant.SSOConfig) (*idProvider, error) {
	d, err := s.signIn.idp.discovery(ctx, cfg.Issuer)
	if err != nil {
		return nil, err
	}
	pc := oidc.ProviderConfig{IssuerURL: d.Issuer, AuthURL: d.AuthURL, TokenURL: d.TokenURL, UserInfoURL: d.UserInfoURL,
		JWKSURL: d.JWKSURL, Algorithms: d.Algorithms}
	return &idProvider{Provider: pc.NewProvider(oidc.ClientContext(ctx, s.signIn.idp.guard.Client())), doc: d,
		keys: cachedKeySet{cache: s.signIn.idp, jwksURL: d.JWKSURL}}, nil
}

// oauthConfig is the tenant's OAuth client on the request's host. The
// redirect URI keeps the host's port, if any (a local or test node), so
// that the provider sends the browser back to the same origin.
func (s *Pages) oauthConfig(c *gin.Context, cfg tenant.SSOConfig, p *idProvider) *oauth2.Config {
	scheme := s.deps.PublicScheme
	if scheme == "" {
		scheme = "https"
	}
	host := tenant.NormalizeHost(c.Request.Host)
	if _, port, err := net.SplitHostPort(c.Request.Host); err == nil && validPort(port) {
		host = net.JoinHostPort(host, port)
	}
	return &oauth2.Config{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, Endpoint: p.Endpoint(),
		RedirectURL: scheme + "://" + host + "/sso/oidc/callback", Scopes: cfg.Scopes}
}

// validPort reports whether p is a decimal TCP port.
func validPort(p string) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n > 0 && n < 65536 && strconv.Itoa(n) == p
}

// startOIDC answers GET /sso/start: to the provider, with state, nonce and
// a PKCE challenge whose secrets stay in the browser's sealed flow cookie.
func (s *Pages) startOIDC(c *gin.Context) {
	ctx := c.Request.Context()
	cfg, err := s.gate.Registry.SSO(ctx, httpx.CurrentTenant(c).ID)
	if err == nil && cfg.Protocol == "saml" {
		s.startSAML(c, cfg)
		return
	}
	if learngate.IsCode(err, learngate.NotFound) || (err == nil && cfg.Protocol != "oidc") {
		s.pageError(c, http.StatusNotFound, "Sign-in is not set up for this organisation. Please ask your administrator.", nil)
		return
	}
	if err != nil {
		s.pageError(c, http.StatusInternalServerError, "Something went wrong. Please try again.", err)
		return
	}
	p, err := s.oidcProvider(ctx, cfg)
	if err != nil {
		s.providerUnavailable(c, err)
		return
	}
	flow := oidcFlow{State: randomToken(), Nonce: randomToken(), Verifier: oauth2.GenerateVerifier(), Next: safeNext(c.Query("next"))}
	sealed, err := s.sealFlow(c, oidcFlowCookie, flow)
	if err != nil {
		s.pageError(c, http.StatusInternalServerError, "Something went wrong. Please try again.", err)
		return
	}
	s.setFlowCookie(c, oidcFlowCookie, "/sso/oidc/callback", sealed, false)
	s.redirectPage(c, s.oauthConfig(c, cfg, p).AuthCodeURL(flow.State, oidc.Nonce(flow.Nonce), oauth2.S256ChallengeOption(flow.Verifier)))
}

// oidcFlow is a started OIDC sign-in, kept in the browser's sealed
// oidcFlowCookie (signin_state.go) until the callback.
type oidcFlow struct {
	State    string `json:"s"`
	Nonce    string `json:"n"`
	Verifier string `json:"v"`
	Next     string `json:"x"`
}

// takeOIDCFlow returns the browser's started OIDC sign-in and removes its
// cookie (one callback per start); ok is false when there is none valid.
func (s *Pages) takeOIDCFlow(c *gin.Context) (oidcFlow, bool) {
	var flow oidcFlow
	ck, err := c.Request.Cookie(oidcFlowCookie)
	if err != nil {
		return flow, false
	}
	s.setFlowCookie(c, oidcFlowCookie, "/sso/oidc/callback", "", false)
	return flow, s.openFlow(c, oidcFlowCookie, ck.Value, &flow) == nil
}

// idClaims are the claims that find or create the learner.
type idClaims struct {
	Subject           string `json:"sub"`
	Email             string `json:"email"`
	EmailVerified     *bool  `json:"email_verified"`
	PreferredUsername string `json:"preferred_username"`
	GivenName         string `json:"given_name"`
	FamilyName        string `json:"family_name"`
}

// oidcCallback answers GET /sso/oidc/callback: checks state, exchanges
// the code with the PKCE verifier, verifies the ID token and its nonce,
// finds (or creates) the learner, and signs them in under a new session id.
func (s *Pages) oidcCallback(c *gin.Context) {
	ctx := c.Request.Context()
	flow, ok := s.takeOIDCFlow(c)
	if !ok || subtle.ConstantTimeCompare([]byte(c.Query("state")), []byte(flow.State)) != 1 {
		s.refuse(c, http.StatusBadRequest, "bad_state", "This sign-in link has expired or was not started here. Please sign in again.", 0, nil)
		return
	}
	if c.Query("error") != "" {
		s.refuse(c, http.StatusForbidden, "provider_refused", "Your organisation's sign-in service did not sign you in.", 0, nil)
		return
	}
	cfg, err := s.gate.Registry.SSO(ctx, httpx.CurrentTenant(c).ID)
	if err != nil || cfg.Protocol != "oidc" {
		s.refuse(c, http.StatusNotFound, "not_configured", "Sign-in is not set up for this organisation. Please ask your administrator.", 0, nil)
		return
	}
	p, err := s.oidcProvider(ctx, cfg)
	if err != nil {
		s.providerUnavailable(c, err)
		return
	}
	claims, err := s.verifiedClaims(c, cfg, p, flow.Verifier, flow.Nonce)
	if err != nil {
		s.refuse(c, http.StatusForbidden, "bad_token", "Your sign-in could not be verified. Please sign in again.", 0, err)
		return
	}
	user, ok := s.signInUser(c, cfg, claims)
	if !ok {
		return
	}
	s.completeSignIn(c, user, "oidc", flow.Next)
}

// verifiedClaims exchanges the callback's code and returns the claims of
// the verified ID token, completed from the userinfo endpoint (same
// subject) when it lacks the email or user name.
func (s *Pages) verifiedClaims(c *gin.Context, cfg tenant.SSOConfig, p *idProvider, verifier, nonce string) (idClaims, error) {
	ctx := oidc.ClientContext(c.Request.Context(), s.signIn.idp.guard.Client())
	oc := s.oauthConfig(c, cfg, p)
	tok, err := oc.Exchange(ctx, c.Query("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		return idClaims{}, errors.New("code exchange refused by the provider")
	}
	raw, ok := tok.Extra("id_token").(string)
	if !ok || raw == "" {
		return idClaims{}, errors.New("no id_token in the token response")
	}
	idt, err := s.verifyIDToken(ctx, cfg, p, raw, nonce)
	if err != nil {
		return idClaims{}, err
	}
	c.Set(idTokenKey, raw) // kept in the session by completeSignIn: the hint of RP-initiated logout
	var claims idClaims
	if err := idt.Claims(&claims); err != nil {
		return idClaims{}, err
	}
	if claims.Email == "" || claims.PreferredUsername == "" {
		info, err := p.UserInfo(ctx, oauth2.StaticTokenSource(tok))
		if err == nil && info.Subject == idt.Subject {
			var more idClaims
			if info.Claims(&more) == nil {
				fill(&claims.Email, more.Email)
				fill(&claims.PreferredUsername, more.PreferredUsername)
				fill(&claims.GivenName, more.GivenName)
				fill(&claims.FamilyName, more.FamilyName)
				if claims.EmailVerified == nil {
					claims.EmailVerified = more.EmailVerified
				}
			}
		}
	}
	return claims, nil
}

// verifyIDToken checks a raw ID token for the tenant: signed by one of the
// issuer's published keys, issued by cfg.Issuer, with this tenant's client
// id in its audience (a token the provider issued to another tenant's
// client is refused), not expired by s.gate.Now, and carrying the session's
// nonce.
func (s *Pages) verifyIDToken(ctx context.Context, cfg tenant.SSOConfig, p *idProvider, raw, nonce string) (*oidc.IDToken, error) {
	idt, err := oidc.NewVerifier(p.doc.Issuer, p.keys, &oidc.Config{ClientID: cfg.ClientID, Now: s.gate.Now,
		SupportedSigningAlgs: p.doc.Algorithms}).Verify(ctx, raw)
	if err != nil {
		return nil, err
	}
	if err := checkAuthorizedParty(idt, cfg.ClientID); err != nil {
		return nil, err
	}
	if nonce == "" || subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(nonce)) != 1 {
		return nil, errors.New("id token nonce does not match the session's")
	}
	return idt, nil
}

func fill(dst *string, v string) {
	if *dst == "" {
		*dst = v
	}
}

// signInUser finds the learner the claims name in this tenant, or creates
// one (JIT); it answers the refusal page itself and reports false.
func (s *Pages) signInUser(c *gin.Context, cfg tenant.SSOConfig, claims idClaims) (learngate.User, bool) {
	ctx := c.Request.Context()
	value := claims.Email
	if cfg.Match == store.MatchUserName {
		value = claims.PreferredUsername
	} else if claims.EmailVerified != nil && !*claims.EmailVerified {
		// An absent email_verified counts as verified (Entra ID sends none).
		s.refuse(c, http.StatusForbidden, "email_not_verified", "Your organisation's sign-in service has not verified your email address. Please verify it there, or ask your administrator.", 0, nil)
		return learngate.User{}, false
	}
	user, err := store.UserForSignIn(ctx, httpx.TenantDB(c), cfg.Match, value)
	if err == nil {
		if !user.Active {
			s.refuse(c, http.StatusForbidden, "inactive", "Your account is not active. Please ask your administrator.", user.ID, nil)
			return learngate.User{}, false
		}
		return user, true
	}
	if !learngate.IsCode(err, learngate.NotFound) {
		s.pageError(c, http.StatusInternalServerError, "Something went wrong. Please try again.", err)
		return learngate.User{}, false
	}
	if !cfg.JIT || value == "" || claims.Email == "" {
		s.refuse(c, http.StatusForbidden, "unknown_user", "There is no learngate account for you in this organisation. Please ask your administrator.", 0, nil)
		return learngate.User{}, false
	}
	user, err = store.CreateSignInUser(ctx, httpx.TenantDB(c), jitInput(claims, httpx.CurrentTenant(c).Timezone), s.gate.Now())
	if err != nil {
		s.refuse(c, http.StatusForbidden, "jit_failed", "Your account could not be created. Please ask your administrator.", 0, err)
		return learngate.User{}, false
	}
	s.signInMetric("created")
	s.gate.Logger.Info("learner created on first sign-in", "request_id", httpx.RequestID(c), "tenant", httpx.CurrentTenant(c).Slug, "user_id", user.ID)
	return user, true
}

// jitInput is the new learner the claims describe: login external, names
// and email from the claims.
func jitInput(claims idClaims, timezone string) learngate.UserInput {
	userName := strings.ToLower(claims.PreferredUsername)
	if userName == "" {
		userName = strings.ToLower(claims.Email)
	}
	first, last := claims.GivenName, claims.FamilyName
	local, _, _ := strings.Cut(claims.Email, "@")
	fill(&first, local)
	fill(&last, "-")
	login := "external"
	return learngate.UserInput{UserName: &userName, FirstName: &first, LastName: &last, Email: &claims.Email,
		Timezone: &timezone, Login: &login}
}

// refuse logs and counts a refused sign-in and answers its page. No token,
// code or claim is logged.
func (s *Pages) refuse(c *gin.Context, status int, reason, message string, userID int64, err error) {
	s.signInMetric("refused_" + reason)
	args := []any{"request_id", httpx.RequestID(c), "tenant", httpx.CurrentTenant(c).Slug, "reason", reason}
	if userID != 0 {
		args = append(args, "user_id", userID)
	}
	if err != nil {
		args = append(args, "err", err.Error())
	}
	s.gate.Logger.Warn("sign-in refused", args...)
	data := s.newPageData(c, languageEnglish, "Sign in")
	data.Message = message
	data.Link, data.LinkText = "/login", data.T("Sign in")
	s.renderPage(c, status, "message", data)
}
