package tenant

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"learngate"
	"learngate/store"
)

// A tenant's sign-in configuration (docs/decisions.md, "Sign-in") is set by
// ops and read on every sign-in; it is cached like hosts and keys and
// dropped on every node by the same invalidation (a change bumps the
// registry generation and is announced on Redis).

// SSOConfig is a tenant's sign-in configuration.
type SSOConfig = store.SSOConfig

// SSOInput is what ops give to set a tenant's sign-in configuration; nil
// fields take their defaults. A nil ClientSecret keeps the stored one.
type SSOInput struct {
	Protocol      string
	Issuer        string
	ClientID      string
	ClientSecret  *string
	Scopes        []string
	Match         *string
	JIT           *bool
	PasswordLogin *bool
	// MetadataXML or MetadataURL is the SAML identity provider's metadata.
	MetadataXML, MetadataURL string
}

// SSOView is a sign-in configuration as the ops API and the CLI show it:
// whether a client secret is stored, never the secret.
type SSOView struct {
	Protocol        string   `json:"protocol"`
	Issuer          string   `json:"issuer"`
	ClientID        string   `json:"client_id"`
	ClientSecretSet bool     `json:"client_secret_set"`
	Scopes          []string `json:"scopes"`
	Match           string   `json:"match"`
	JIT             bool     `json:"jit"`
	PasswordLogin   bool     `json:"password_login"`
	// SAML only: where the metadata came from, whether it is stored.
	MetadataURL    string `json:"metadata_url,omitempty"`
	MetadataXMLSet bool   `json:"metadata_xml_set,omitempty"`
	UpdatedAt      string `json:"updated_at"`
}

// ViewSSO returns cfg as ops see it (SSOView).
func ViewSSO(cfg SSOConfig) SSOView {
	return SSOView{Protocol: cfg.Protocol, Issuer: cfg.Issuer, ClientID: cfg.ClientID, ClientSecretSet: cfg.ClientSecret != "",
		Scopes: cfg.Scopes, Match: cfg.Match, JIT: cfg.JIT, PasswordLogin: cfg.PasswordLogin, MetadataURL: cfg.SAMLMetadataURL,
		MetadataXMLSet: cfg.SAMLMetadataXML != "", UpdatedAt: cfg.UpdatedAt.UTC().Format(store.TimestampLayout)}
}

// DefaultScopes are the OIDC scopes asked for when ops give none.
var DefaultScopes = []string{"openid", "email", "profile"}

// ssoEntry is a cached configuration; found is false for a tenant without one.
type ssoEntry struct {
	cfg   SSOConfig
	found bool
}

// SetSSO validates in and stores it as the tenant's sign-in configuration.
// The change reaches every node within a second.
func (r *Registry) SetSSO(ctx context.Context, slug string, in SSOInput) (SSOConfig, error) {
	t, err := r.Show(ctx, slug)
	if err != nil {
		return SSOConfig{}, err
	}
	cfg, err := validateSSO(in, r.idp)
	if err != nil {
		return SSOConfig{}, err
	}
	cfg.TenantID = t.ID
	old, err := r.db.TenantSSO(ctx, t.ID)
	if err != nil && !learngate.IsCode(err, learngate.NotFound) {
		return SSOConfig{}, err
	}
	if cfg.Protocol == "oidc" && in.ClientSecret == nil && (err != nil || old.ClientSecret == "") {
		return SSOConfig{}, learngate.Errorf(learngate.Invalid, "client_secret is required")
	}
	if cfg.Protocol == "saml" {
		if err := validateSAML(ctx, r.idp, &cfg, in); err != nil {
			return SSOConfig{}, err
		}
		if old.SAMLKey == "" { // the key pair is made once and kept
			if cfg.SAMLKey, cfg.SAMLCert, err = newSPKeyPair(t.Slug, time.Now()); err != nil {
				return SSOConfig{}, fmt.Errorf("make SAML key pair: %w", err)
			}
		}
	}
	saved, err := r.db.PutTenantSSO(ctx, cfg, in.ClientSecret)
	if err != nil {
		return SSOConfig{}, err
	}
	r.changed(ctx)
	return saved, nil
}

// ShowSSO returns the tenant's sign-in configuration; NotFound when none is set.
func (r *Registry) ShowSSO(ctx context.Context, slug string) (SSOConfig, error) {
	t, err := r.Show(ctx, slug)
	if err != nil {
		return SSOConfig{}, err
	}
	return r.db.TenantSSO(ctx, t.ID)
}

// RemoveSSO removes the tenant's sign-in configuration: its learners can
// no longer sign in, on every node within a second.
func (r *Registry) RemoveSSO(ctx context.Context, slug string) error {
	t, err := r.Show(ctx, slug)
	if err != nil {
		return err
	}
	if err := r.db.DeleteTenantSSO(ctx, t.ID); err != nil {
		return err
	}
	r.changed(ctx)
	return nil
}

// SSO returns the sign-in configuration of tenant id for a sign-in, from
// the cache when it can; NotFound when it has none.
func (r *Registry) SSO(ctx context.Context, tenantID int64) (SSOConfig, error) {
	if e, ok := r.cache.sso.Get(tenantID); ok {
		return ssoResult(e)
	}
	epoch := r.cache.currentEpoch()
	cfg, err := r.db.TenantSSO(ctx, tenantID)
	if err != nil && !learngate.IsCode(err, learngate.NotFound) {
		return SSOConfig{}, err
	}
	e := ssoEntry{cfg: cfg, found: err == nil}
	r.cache.mu.Lock()
	if epoch == r.cache.epoch {
		r.cache.sso.Add(tenantID, e)
	}
	r.cache.mu.Unlock()
	return ssoResult(e)
}

func ssoResult(e ssoEntry) (SSOConfig, error) {
	if !e.found {
		return SSOConfig{}, learngate.Errorf(learngate.NotFound, "no sign-in configuration")
	}
	return e.cfg, nil
}

// validateSSO checks in and fills its defaults; the SAML metadata is
// checked by validateSAML.
func validateSSO(in SSOInput, g *IdPGuard) (SSOConfig, error) {
	cfg := SSOConfig{Protocol: in.Protocol, Issuer: strings.TrimSpace(in.Issuer), ClientID: strings.TrimSpace(in.ClientID),
		Scopes: in.Scopes, Match: "email"}
	switch in.Protocol {
	case "oidc":
	case "saml":
		cfg.Scopes = []string{}
		return validateCommon(cfg, in)
	default:
		return cfg, learngate.Errorf(learngate.Invalid, "protocol must be oidc or saml")
	}
	if in.MetadataXML != "" || in.MetadataURL != "" {
		return cfg, learngate.Errorf(learngate.Invalid, "metadata_xml and metadata_url are for saml only")
	}
	if err := validateIssuer(g, "issuer", cfg.Issuer); err != nil {
		return cfg, err
	}
	if cfg.ClientID == "" || len(cfg.ClientID) > 255 {
		return cfg, learngate.Errorf(learngate.Invalid, "client_id is required (at most 255 characters)")
	}
	if in.ClientSecret != nil && (*in.ClientSecret == "" || len(*in.ClientSecret) > 1024) {
		return cfg, learngate.Errorf(learngate.Invalid, "client_secret must not be empty (at most 1024 characters)")
	}
	if len(cfg.Scopes) == 0 {
		cfg.Scopes = slices.Clone(DefaultScopes)
	}
	for _, s := range cfg.Scopes {
		if s == "" || len(s) > 100 || strings.ContainsAny(s, " \"\\") || !isPrintableASCII(s) {
			return cfg, learngate.Errorf(learngate.Invalid, "scopes must be OAuth scope names")
		}
	}
	if !slices.Contains(cfg.Scopes, "openid") {
		return cfg, learngate.Errorf(learngate.Invalid, "scopes must include openid")
	}
	return validateCommon(cfg, in)
}

// validateCommon checks and fills the settings of both protocols.
func validateCommon(cfg SSOConfig, in SSOInput) (SSOConfig, error) {
	if in.Match != nil {
		if *in.Match != "email" && *in.Match != "user_name" {
			return cfg, learngate.Errorf(learngate.Invalid, "match must be email or user_name")
		}
		cfg.Match = *in.Match
	}
	if in.JIT != nil {
		cfg.JIT = *in.JIT
	}
	if in.PasswordLogin != nil {
		cfg.PasswordLogin = *in.PasswordLogin
	}
	return cfg, nil
}

// validateIssuer accepts an https URL without query or fragment whose host
// the identity-provider guard allows (CheckURL): plain http only for a
// loopback host, and private or loopback addresses only with
// LEARNGATE_SSO_ALLOW_PRIVATE, as the refusal says. what names the field.
func validateIssuer(g *IdPGuard, what, issuer string) error {
	if err := g.CheckURL(what, issuer); err != nil {
		return err
	}
	if u, _ := url.Parse(issuer); u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return learngate.Errorf(learngate.Invalid, "%s must be an https URL without query or fragment", what)
	}
	return nil
}

func isPrintableASCII(s string) bool {
	for _, r := range s {
		if r < 0x21 || r > 0x7e {
			return false
		}
	}
	return true
}
