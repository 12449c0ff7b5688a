package main

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"learngate/tenant"
)

// idpMetadata is the smallest SAML identity provider metadata the registry
// accepts: a signing key and a single sign-on service.
const idpMetadata = `<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://idp.example.test/saml">
<IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
<KeyDescriptor use="signing"><KeyInfo xmlns="http://www.w3.org/2000/09/xmldsig#"><X509Data><X509Certificate>MIIB</X509Certificate></X509Data></KeyInfo></KeyDescriptor>
<SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example.test/sso"/>
</IDPSSODescriptor></EntityDescriptor>`

// storedSecret is the client secret the registry holds for slug.
func storedSecret(t *testing.T, slug string) string {
	t.Helper()
	a, err := openApp(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	cfg, err := a.registry.ShowSSO(context.Background(), slug)
	if err != nil {
		t.Fatal(err)
	}
	return cfg.ClientSecret
}

// withStdin runs fn with standard input reading text.
func withStdin(t *testing.T, text string, fn func()) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		_, _ = w.WriteString(text)
		w.Close()
	}()
	stdin := os.Stdin
	os.Stdin = r
	defer func() { os.Stdin = stdin; r.Close() }()
	fn()
}

// TestSSOCommands: `learngate sso set|show|remove` set, show (never the
// secret) and remove a tenant's sign-in configuration, one tenant's
// configuration is not another's, and bad input is refused with the
// registry's message.
func TestSSOCommands(t *testing.T) {
	migratedCLIEnv(t)
	mustRun(t, "migrate", "-q")
	mustRun(t, "tenant", "create", "acme", "--name", "Acme")
	mustRun(t, "tenant", "create", "globex")
	const secret = "oidc-secret-0123456789"
	t.Setenv("ACME_OIDC_SECRET", secret)

	mustFail(t, "no sign-in configuration", "sso", "show", "acme")
	out := mustRun(t, "sso", "set", "acme", "--protocol", "oidc", "--issuer", "https://idp.example.test",
		"--client-id", "learngate-app", "--client-secret-env", "ACME_OIDC_SECRET", "--match", "user_name", "--jit")
	var set tenant.SSOView
	decodeStrict(t, out, &set)
	want := tenant.SSOView{Protocol: "oidc", Issuer: "https://idp.example.test", ClientID: "learngate-app", ClientSecretSet: true,
		Scopes: []string{"openid", "email", "profile"}, Match: "user_name", JIT: true, UpdatedAt: set.UpdatedAt,
		PasswordTrustedNetworks: []string{}, EndIdPSession: true}
	if !reflect.DeepEqual(set, want) || set.UpdatedAt == "" {
		t.Fatalf("set = %+v, want %+v", set, want)
	}
	if got := storedSecret(t, "acme"); got != secret {
		t.Fatalf("stored secret = %q", got)
	}
	shown := mustRun(t, "sso", "show", "acme")
	if shown != out || strings.Contains(shown, secret) {
		t.Fatalf("show = %q, want %q without the secret", shown, out)
	}
	mustFail(t, "no sign-in configuration", "sso", "show", "globex")

	t.Run("secret kept, then read from stdin", func(t *testing.T) {
		out := mustRun(t, "sso", "set", "acme", "--protocol", "oidc", "--issuer", "https://idp.example.test",
			"--client-id", "learngate-app", "--scopes", "openid,email", "--password-login")
		if storedSecret(t, "acme") != secret || !strings.Contains(out, `"password_login": true`) || !strings.Contains(out, `"match": "email"`) {
			t.Fatalf("set without a secret: %s", out)
		}
		withStdin(t, "from-stdin-secret\n", func() {
			mustRun(t, "sso", "set", "acme", "--protocol", "oidc", "--issuer", "https://idp.example.test",
				"--client-id", "learngate-app", "--client-secret-stdin")
		})
		if got := storedSecret(t, "acme"); got != "from-stdin-secret" {
			t.Fatalf("secret from stdin = %q", got)
		}
	})
	t.Run("saml from a metadata file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "idp.xml")
		if err := os.WriteFile(file, []byte(idpMetadata), 0o600); err != nil {
			t.Fatal(err)
		}
		var got tenant.SSOView
		decodeStrict(t, mustRun(t, "sso", "set", "globex", "--protocol", "saml", "--metadata-xml", file), &got)
		if got.Protocol != "saml" || !got.MetadataXMLSet || got.ClientSecretSet || got.Match != "email" {
			t.Fatalf("saml = %+v", got)
		}
		bad := filepath.Join(t.TempDir(), "sp.xml")
		if err := os.WriteFile(bad, []byte(`<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata"/>`), 0o600); err != nil {
			t.Fatal(err)
		}
		mustFail(t, "metadata is not SAML 2.0 identity provider metadata with a signing certificate and a single sign-on service",
			"sso", "set", "globex", "--protocol", "saml", "--metadata-xml", bad)
		mustFail(t, "saml needs exactly one of metadata_xml and metadata_url", "sso", "set", "globex", "--protocol", "saml")
	})
	t.Run("bad input", func(t *testing.T) {
		mustFail(t, "protocol must be oidc, saml or none", "sso", "set", "acme", "--protocol", "ldap")
		mustFail(t, "match must be email or user_name", "sso", "set", "acme", "--protocol", "oidc",
			"--issuer", "https://idp.example.test", "--client-id", "x", "--match", "phone")
		mustFail(t, "give the client secret at most one way: --client-secret, --client-secret-env or --client-secret-stdin",
			"sso", "set", "acme", "--protocol", "oidc", "--client-secret", "a", "--client-secret-env", "ACME_OIDC_SECRET")
		mustFail(t, "environment variable NO_SUCH_SECRET_VAR is empty or not set",
			"sso", "set", "acme", "--protocol", "oidc", "--client-secret-env", "NO_SUCH_SECRET_VAR")
		mustFail(t, "tenant nosuch not found", "sso", "show", "nosuch")
		if storedSecret(t, "acme") != "from-stdin-secret" {
			t.Fatal("a refused set changed the configuration")
		}
	})
	t.Run("remove", func(t *testing.T) {
		if out := mustRun(t, "sso", "remove", "acme"); out != "removed the sign-in configuration of acme\n" {
			t.Fatalf("remove = %q", out)
		}
		mustFail(t, "no sign-in configuration", "sso", "show", "acme")
		mustFail(t, "no sign-in configuration", "sso", "remove", "acme")
		mustRun(t, "sso", "show", "globex") // the other tenant's is untouched
	})
}

// TestSSOCommandProtocolNone: `learngate sso set SLUG --protocol none
// --password-login` gives password sign-in alone, with trusted networks
// normalised; without --password-login, with an identity provider flag or
// with a bad network it is refused with a clear message, and the other
// tenant's configuration is untouched.
func TestSSOCommandProtocolNone(t *testing.T) {
	migratedCLIEnv(t)
	mustRun(t, "migrate", "-q")
	mustRun(t, "tenant", "create", "school")
	mustRun(t, "tenant", "create", "office")
	mustRun(t, "sso", "set", "office", "--protocol", "saml", "--metadata-xml", writeMetadata(t), "--name-id-format",
		"urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress", "--end-idp-session=false")

	var got tenant.SSOView
	decodeStrict(t, mustRun(t, "sso", "set", "school", "--protocol", "none", "--password-login",
		"--password-trusted-networks", "192.0.2.7/24,2001:db8::1"), &got)
	want := tenant.SSOView{Protocol: "none", Scopes: []string{}, Match: "email", PasswordLogin: true,
		PasswordTrustedNetworks: []string{"192.0.2.0/24", "2001:db8::1/128"}, EndIdPSession: true, UpdatedAt: got.UpdatedAt}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("none = %+v, want %+v", got, want)
	}
	mustFail(t, "protocol none needs password_login true (password sign-in is then the only way in)",
		"sso", "set", "school", "--protocol", "none")
	mustFail(t, "issuer, client_id, client_secret, scopes, metadata_xml and metadata_url are not used with protocol none",
		"sso", "set", "school", "--protocol", "none", "--password-login", "--issuer", "https://idp.example.test")
	mustFail(t, `password_trusted_networks: "10.0.0.0/33" is not a CIDR network (like 192.0.2.0/24 or 2001:db8::/48)`,
		"sso", "set", "school", "--protocol", "none", "--password-login", "--password-trusted-networks", "10.0.0.0/33")
	mustFail(t, "name_id_format is for saml only", "sso", "set", "school", "--protocol", "none", "--password-login",
		"--name-id-format", "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent")
	decodeStrict(t, mustRun(t, "sso", "show", "school"), &got)
	if got.Protocol != "none" || len(got.PasswordTrustedNetworks) != 2 {
		t.Fatalf("a refused set changed the configuration: %+v", got)
	}
	var office tenant.SSOView
	decodeStrict(t, mustRun(t, "sso", "show", "office"), &office)
	if office.Protocol != "saml" || office.EndIdPSession || office.NameIDFormat != "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress" ||
		len(office.PasswordTrustedNetworks) != 0 {
		t.Fatalf("office = %+v", office)
	}
}

// writeMetadata writes idpMetadata to a file of the test and returns its path.
func writeMetadata(t *testing.T) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "idp.xml")
	if err := os.WriteFile(file, []byte(idpMetadata), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}
