package handlers

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"learngate/tenant"
)

// TestOpsSSORefusesPrivateProviders (finding 5, interoperability): without
// LEARNGATE_SSO_ALLOW_PRIVATE, PUT /ops/v1/tenants/{slug}/sso refuses an
// issuer or metadata URL on a private, loopback or odd numeric address and
// plain http, and says which setting allows them; with it, plain http
// passes for a loopback host only. A SAML metadata_url redirecting to
// another host is not followed; one with a query (Entra ID's) is fetched.
func TestOpsSSORefusesPrivateProviders(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.createTenant("ssoa")
	relaxed := h.server.Registry
	strict := tenant.NewRegistry(h.db, tenant.Options{BaseDomains: []string{"learngate.localhost"}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	const allow = "LEARNGATE_SSO_ALLOW_PRIVATE=true lets an identity provider on a private or loopback address through"
	oidc := func(issuer string) string {
		return `{"protocol":"oidc","issuer":"` + issuer + `","client_id":"x","client_secret":"y"}`
	}
	saml := func(u string) string { return `{"protocol":"saml","metadata_url":"` + u + `"}` }
	cases := []struct {
		name     string
		registry *tenant.Registry
		body     string
		want     string
	}{
		{"http loopback, switch off", strict, oidc("http://127.0.0.1:8080"),
			"issuer must use https; plain http is allowed only for a loopback address, with LEARNGATE_SSO_ALLOW_PRIVATE=true"},
		{"https loopback, switch off", strict, oidc("https://127.0.0.1"), "issuer must not point to a loopback address (127.0.0.1); " + allow},
		{"private, switch off", strict, oidc("https://10.1.2.3/realms/x"), "issuer must not point to a private address (10.1.2.3); " + allow},
		{"localhost, switch off", strict, oidc("https://idp.localhost"), "issuer must not point to localhost; " + allow},
		{"IPv6 loopback metadata, switch off", strict, saml("https://[::1]/md"), "metadata_url must not point to a loopback address (::1); " + allow},
		{"http metadata, switch off", strict, saml("http://127.0.0.1:1/md"),
			"metadata_url must use https; plain http is allowed only for a loopback address, with LEARNGATE_SSO_ALLOW_PRIVATE=true"},
		{"cloud metadata, switch on", relaxed, oidc("https://169.254.169.254"), "issuer must not point to a cloud metadata address (169.254.169.254)"},
		{"decimal address", relaxed, oidc("https://2130706433"), "issuer must name its host by a DNS name or a dotted IP address"},
		{"short address", relaxed, oidc("https://127.1"), "issuer must name its host by a DNS name or a dotted IP address"},
		{"hex address", relaxed, oidc("https://0x7f000001"), "issuer must name its host by a DNS name or a dotted IP address"},
		{"http private, switch on", relaxed, oidc("http://10.1.2.3"),
			"issuer must use https; plain http is allowed only for a loopback address, with LEARNGATE_SSO_ALLOW_PRIVATE=true"},
		{"query", relaxed, oidc("https://idp.example.org/?x=1"), "issuer must be an https URL without query or fragment"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h.useRegistry(t, c.registry)
			defer h.useRegistry(t, relaxed)
			assertResponse(t, h.opsRaw(http.MethodPut, "/ops/v1/tenants/ssoa/sso", c.body), http.StatusBadRequest, `{"error":"`+c.want+`"}`)
		})
	}
	t.Run("http loopback, switch on", func(t *testing.T) {
		if w := h.opsRaw(http.MethodPut, "/ops/v1/tenants/ssoa/sso", oidc("http://127.0.0.1:8080")); w.Code != http.StatusOK {
			t.Fatalf("PUT = %d %s", w.Code, w.Body.String())
		}
	})
	t.Run("metadata URL with a query (Entra ID's ?appid=)", func(t *testing.T) {
		metadata := samlMetadataServer(t) + "/metadata"
		if w := h.opsRaw(http.MethodPut, "/ops/v1/tenants/ssoa/sso", saml(metadata+"?appid=0f1e2d")); w.Code != http.StatusOK {
			t.Fatalf("PUT = %d %s", w.Code, w.Body.String())
		}
	})
	t.Run("metadata redirected to another host", func(t *testing.T) {
		other, hits := counter(t)
		md := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+"/md", http.StatusFound)
		}))
		t.Cleanup(md.Close)
		assertResponse(t, h.opsRaw(http.MethodPut, "/ops/v1/tenants/ssoa/sso", saml(md.URL+"/md")), http.StatusBadRequest,
			`{"error":"metadata_url could not be fetched: identity provider redirected to another host: not followed"}`)
		if hits.Load() != 0 {
			t.Fatal("the redirect was followed")
		}
	})
	t.Run("metadata larger than 1 MiB", func(t *testing.T) {
		md := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte("<a>" + strings.Repeat("x", 1<<20) + "</a>"))
		}))
		t.Cleanup(md.Close)
		assertResponse(t, h.opsRaw(http.MethodPut, "/ops/v1/tenants/ssoa/sso", saml(md.URL+"/md")), http.StatusBadRequest,
			`{"error":"metadata_url could not be fetched: metadata larger than 1 MiB"}`)
	})
}

// useRegistry makes r the node's registry, the shared chain's and the ops
// API's, and rebuilds the ops router over it.
func (h *harness) useRegistry(t testing.TB, r *tenant.Registry) {
	h.server.Registry = r
	h.server.Ops.Tenants = r
	h.ops = checkContract(t, h.server.OpsRouter(), opsListener)
}
