package tenant

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
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

// The protocols of a sign-in configuration.
const (
	ProtocolOIDC = "oidc"
	ProtocolSAML = "saml"
	// ProtocolNone is password sign-in alone, for an organisation without
	// an identity provider: no SSO button, password_login required.
	ProtocolNone = "none"
)

// NameIDUnspecified is the SAML NameID format asked for when ops set none.
const NameIDUnspecified = "urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified"

// nameIDFormats are the NameID format URNs of SAML 2.0 core (8.3) that a
// tenant may ask its identity provider for. encrypted (an EncryptedID) and
// entity (a provider, not a person) are left out.
var nameIDFormats = []string{
	NameIDUnspecified,
	"urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
	"urn:oasis:names:tc:SAML:1.1:nameid-format:X509SubjectName",
	"urn:oasis:names:tc:SAML:1.1:nameid-format:WindowsDomainQualifiedName",
	"urn:oasis:names:tc:SAML:2.0:nameid-format:kerberos",
	"urn:oasis:names:tc:SAML:2.0:nameid-format:persistent",
	"urn:oasis:names:tc:SAML:2.0:nameid-format:transient",
}

// maxTrustedNetworks bounds password_trusted_networks.
const maxTrustedNetworks = 100

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
	// PasswordTrustedNetworks are CIDR prefixes (or single addresses)
	// exempt from the per-address password throttle.
	PasswordTrustedNetworks []string
	// EndIdPSession (default true) makes sign-out end the provider's session.
	EndIdPSession *bool
	// NameIDFormat (SAML only) is the NameID format to ask for; "" is
	// NameIDUnspecified.
	NameIDFormat string
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
	// NameIDFormat is shown for SAML only.
	NameIDFormat            string   `json:"name_id_format,omitempty"`
	PasswordTrustedNetworks []string `json:"password_trusted_networks"`
	EndIdPSession           bool     `json:"end_idp_session"`
	UpdatedAt               string   `json:"updated_at"`
}

// ViewSSO returns cfg as ops see it (SSOView).
func ViewSSO(cfg SSOConfig) SSOView {
	v := SSOView{Protocol: cfg.Protocol, Issuer: cfg.Issuer, ClientID: cfg.ClientID, ClientSecretSet: cfg.ClientSecret != "",
		Scopes: cfg.Scopes, Match: cfg.Match, JIT: cfg.JIT, PasswordLogin: cfg.PasswordLogin, MetadataURL: cfg.SAMLMetadataURL,
		MetadataXMLSet: cfg.SAMLMetadataXML != "", PasswordTrustedNetworks: cfg.PasswordTrustedNetworks,
		EndIdPSession: cfg.EndIdPSession, UpdatedAt: cfg.UpdatedAt.UTC().Format(learngate.TimestampLayout)}
	if v.PasswordTrustedNetworks == nil {
		v.PasswordTrustedNetworks = []string{}
	}
	if cfg.Protocol == ProtocolSAML {
		v.NameIDFormat = cfg.NameIDFormat
		if v.NameIDFormat == "" {
			v.NameIDFormat = NameIDUnspecified
		}
	}
	return v
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
	if cfg.Protocol == ProtocolOIDC && in.ClientSecret == nil && (err != nil || old.ClientSecret == "") {
		return SSOConfig{}, learngate.Errorf(learngate.Invalid, "client_secret is required")
	}
	if cfg.Protocol == ProtocolSAML {
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
	case ProtocolOIDC:
	case ProtocolSAML:
		cfg.Scopes = []string{}
		return validateCommon(cfg, in)
	case ProtocolNone:
		return validateNone(cfg, in)
	case "":
		return cfg, learngate.Errorf(learngate.Invalid,
			`protocol is required: oidc, saml, or none for password sign-in alone ({"protocol":"none","password_login":true})`)
	default:
		return cfg, learngate.Errorf(learngate.Invalid, "protocol must be oidc, saml or none")
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

// validateNone checks the configuration of password sign-in alone: it
// needs password_login true and takes no identity provider setting.
func validateNone(cfg SSOConfig, in SSOInput) (SSOConfig, error) {
	if in.PasswordLogin == nil || !*in.PasswordLogin {
		return cfg, learngate.Errorf(learngate.Invalid,
			"protocol none needs password_login true (password sign-in is then the only way in)")
	}
	if cfg.Issuer != "" || cfg.ClientID != "" || in.ClientSecret != nil || len(in.Scopes) > 0 ||
		strings.TrimSpace(in.MetadataXML) != "" || strings.TrimSpace(in.MetadataURL) != "" {
		return cfg, learngate.Errorf(learngate.Invalid,
			"issuer, client_id, client_secret, scopes, metadata_xml and metadata_url are not used with protocol none")
	}
	if in.JIT != nil && *in.JIT {
		return cfg, learngate.Errorf(learngate.Invalid, "jit needs an identity provider (protocol oidc or saml)")
	}
	cfg.Scopes = []string{}
	return validateCommon(cfg, in)
}

// validateCommon checks and fills the settings of every protocol.
func validateCommon(cfg SSOConfig, in SSOInput) (SSOConfig, error) {
	nets, err := trustedNetworks(in.PasswordTrustedNetworks)
	if err != nil {
		return cfg, err
	}
	cfg.PasswordTrustedNetworks = nets
	cfg.EndIdPSession = in.EndIdPSession == nil || *in.EndIdPSession
	format := strings.TrimSpace(in.NameIDFormat)
	switch {
	case format != "" && cfg.Protocol != ProtocolSAML:
		return cfg, learngate.Errorf(learngate.Invalid, "name_id_format is for saml only")
	case format != "" && !slices.Contains(nameIDFormats, format):
		return cfg, learngate.Errorf(learngate.Invalid, "name_id_format must be one of %s", strings.Join(nameIDFormats, ", "))
	case cfg.Protocol == ProtocolSAML && format == "":
		format = NameIDUnspecified
	}
	cfg.NameIDFormat = format
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

// trustedNetworks validates password_trusted_networks: CIDR prefixes or
// single addresses, returned normalised (host bits cleared, a single
// address as /32 or /128, IPv4-mapped IPv6 as IPv4), without repeats.
func trustedNetworks(in []string) ([]string, error) {
	if len(in) > maxTrustedNetworks {
		return nil, learngate.Errorf(learngate.Invalid, "password_trusted_networks holds at most %d networks", maxTrustedNetworks)
	}
	out := make([]string, 0, len(in))
	for _, s := range in {
		p, err := ParseTrustedNetwork(s)
		if err != nil {
			return nil, err
		}
		if n := p.String(); !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

// ParseTrustedNetwork reads one entry of password_trusted_networks: a
// CIDR prefix ("192.0.2.0/24", "2001:db8::/48") or a single address,
// normalised as trustedNetworks does. Invalid, naming the entry, otherwise.
func ParseTrustedNetwork(s string) (netip.Prefix, error) {
	s = strings.TrimSpace(s)
	var p netip.Prefix
	var err error
	if strings.Contains(s, "/") {
		p, err = netip.ParsePrefix(s)
	} else {
		var a netip.Addr
		if a, err = netip.ParseAddr(s); err == nil && a.Zone() == "" {
			p, err = a.Prefix(a.BitLen())
		} else if err == nil {
			err = errors.New("zone")
		}
	}
	if err != nil {
		return netip.Prefix{}, learngate.Errorf(learngate.Invalid,
			"password_trusted_networks: %q is not a CIDR network (like 192.0.2.0/24 or 2001:db8::/48)", truncate(s, 64))
	}
	if p.Addr().Is4In6() {
		bits := p.Bits() - 96
		if bits < 0 {
			return netip.Prefix{}, learngate.Errorf(learngate.Invalid,
				"password_trusted_networks: %q is not a CIDR network (like 192.0.2.0/24 or 2001:db8::/48)", truncate(s, 64))
		}
		p = netip.PrefixFrom(p.Addr().Unmap(), bits)
	}
	return p.Masked(), nil
}

// truncate shortens s to at most n bytes for a message.
func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func isPrintableASCII(s string) bool {
	for _, r := range s {
		if r < 0x21 || r > 0x7e {
			return false
		}
	}
	return true
}
