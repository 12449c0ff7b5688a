package tenant

import (
	"reflect"
	"testing"

	"learngate"
)

// TestTrustedNetworksNormalised: password_trusted_networks take CIDR
// prefixes or single addresses, normalised (host bits cleared, /32 or
// /128, IPv4-mapped as IPv4, no repeats); anything else is Invalid.
func TestTrustedNetworksNormalised(t *testing.T) {
	got, err := trustedNetworks([]string{"192.0.2.77/24", " 198.51.100.7 ", "2001:db8::1", "2001:db8:1::5/48",
		"::ffff:203.0.113.0/120", "192.0.2.0/24"})
	want := []string{"192.0.2.0/24", "198.51.100.7/32", "2001:db8::1/128", "2001:db8:1::/48", "203.0.113.0/24"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("trustedNetworks = %v, %v; want %v", got, err, want)
	}
	if got, err := trustedNetworks(nil); err != nil || got == nil || len(got) != 0 {
		t.Fatalf("nil = %#v, %v", got, err)
	}
	for _, bad := range []string{"", "10.0.0.0/33", "school.example.org", "10.0.0.0/-1", "fe80::1%eth0", "::ffff:1.2.3.4/64", "1.2.3"} {
		if _, err := trustedNetworks([]string{bad}); !learngate.IsCode(err, learngate.Invalid) {
			t.Errorf("%q: err = %v, want Invalid", bad, err)
		}
	}
	many := make([]string, maxTrustedNetworks+1)
	for i := range many {
		many[i] = "10.0.0.1"
	}
	if _, err := trustedNetworks(many); !learngate.IsCode(err, learngate.Invalid) {
		t.Fatalf("%d networks: %v", len(many), err)
	}
}

// TestSSOSettingsValidated: end_idp_session defaults to true, a SAML
// configuration asks for the unspecified NameID format unless given a
// standard one, and protocol none needs password_login.
func TestSSOSettingsValidated(t *testing.T) {
	on, off := true, false
	cfg, err := validateSSO(SSOInput{Protocol: ProtocolNone, PasswordLogin: &on}, nil)
	if err != nil || !cfg.EndIdPSession || cfg.NameIDFormat != "" || !cfg.PasswordLogin {
		t.Fatalf("none = %+v, %v", cfg, err)
	}
	cfg, err = validateSSO(SSOInput{Protocol: ProtocolSAML, EndIdPSession: &off}, nil)
	if err != nil || cfg.EndIdPSession || cfg.NameIDFormat != NameIDUnspecified {
		t.Fatalf("saml = %+v, %v", cfg, err)
	}
	persistent := "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent"
	if cfg, err = validateSSO(SSOInput{Protocol: ProtocolSAML, NameIDFormat: persistent}, nil); err != nil || cfg.NameIDFormat != persistent {
		t.Fatalf("saml persistent = %+v, %v", cfg, err)
	}
	for _, in := range []SSOInput{
		{Protocol: ProtocolSAML, NameIDFormat: "urn:oasis:names:tc:SAML:2.0:nameid-format:encrypted"},
		{Protocol: ProtocolSAML, NameIDFormat: "persistent"},
		{Protocol: ProtocolNone},
		{Protocol: ProtocolNone, PasswordLogin: &off},
		{Protocol: ProtocolNone, PasswordLogin: &on, Scopes: []string{"openid"}},
		{Protocol: ""},
	} {
		if _, err := validateSSO(in, nil); !learngate.IsCode(err, learngate.Invalid) {
			t.Errorf("%+v: err = %v, want Invalid", in, err)
		}
	}
}
