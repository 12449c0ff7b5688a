package web

import (
	"net/http"
	"strings"
	"testing"
)

// TestOpsSSOProtocolNone (interoperability): PUT .../sso with protocol
// none and password_login gives password sign-in alone: the login page
// shows the password form and no SSO button, /sso/start answers the "not
// set up" page, and a learner signs in with their password. Trusted
// networks and the SAML settings are validated and normalised; bad input
// is a 400 with a clear message and changes nothing; the other tenant's
// configuration is untouched.
func TestOpsSSOProtocolNone(t *testing.T) {
	t.Parallel()
	h, _ := passwordFixture(t)
	app := h.pagesRouter(t)
	put := func(slug, body string) *httpResult {
		w := h.opsRaw(http.MethodPut, "/ops/v1/tenants/"+slug+"/sso", body)
		return &httpResult{code: w.Code, body: stripField(t, w.Body.Bytes(), "updated_at")}
	}
	got := put("pwa", `{"protocol":"none","password_login":true,"password_trusted_networks":["192.0.2.77/24"," 2001:db8::1 ","192.0.2.0/24"]}`)
	want := `{"client_id":"","client_secret_set":true,"end_idp_session":true,"issuer":"","jit":false,"match":"email","password_login":true,"password_trusted_networks":["192.0.2.0/24","2001:db8::1/128"],"protocol":"none","scopes":[]}`
	if got.code != http.StatusOK || got.body != want {
		t.Fatalf("PUT none = %d %s\nwant %s", got.code, got.body, want)
	}

	page := wantStatus(t, newBrowser(t, app).do(http.MethodGet, pwHost, "/login", nil), http.StatusOK, `type="password"`)
	if strings.Contains(page, "/sso/start") {
		t.Fatalf("SSO button on a tenant without an identity provider: %s", page)
	}
	wantStatus(t, newBrowser(t, app).do(http.MethodGet, pwHost, "/sso/start?next=/learn", nil), http.StatusNotFound,
		"Sign-in is not set up for this organisation.")
	b := newBrowser(t, app)
	wantStatus(t, b.passwordPost(pwHost, "alice", "wrong"), http.StatusUnauthorized, "wrong")
	if strings.Contains(b.passwordPost(pwHost, "alice", "wrong").Body.String(), "/sso/start") {
		t.Fatal("SSO button on the refused password form")
	}
	wantStatus(t, b.passwordPost(pwHost, "alice", "correct horse"), http.StatusSeeOther, "/learn")

	for _, tt := range []struct{ name, body, want string }{
		{"password_login without a protocol", `{"password_login":true}`,
			`{"error":"protocol is required: oidc, saml, or none for password sign-in alone ({\"protocol\":\"none\",\"password_login\":true})"}`},
		{"empty protocol", `{"protocol":"","password_login":true}`,
			`{"error":"protocol is required: oidc, saml, or none for password sign-in alone ({\"protocol\":\"none\",\"password_login\":true})"}`},
		{"protocol in capitals", `{"protocol":"NONE","password_login":true}`, `{"error":"protocol must be oidc, saml or none"}`},
		{"protocol not a string", `{"protocol":true,"password_login":true}`, `{"error":"invalid value for \"protocol\": expected string"}`},
		{"password_login not a boolean", `{"protocol":"none","password_login":"yes"}`, `{"error":"invalid value for \"password_login\": expected bool"}`},
		{"none without password_login", `{"protocol":"none"}`,
			`{"error":"protocol none needs password_login true (password sign-in is then the only way in)"}`},
		{"none with password_login false", `{"protocol":"none","password_login":false}`,
			`{"error":"protocol none needs password_login true (password sign-in is then the only way in)"}`},
		{"none with an issuer", `{"protocol":"none","password_login":true,"issuer":"https://idp.example.org"}`,
			`{"error":"issuer, client_id, client_secret, scopes, metadata_xml and metadata_url are not used with protocol none"}`},
		{"none with metadata", `{"protocol":"none","password_login":true,"metadata_url":"https://idp.example.org/md"}`,
			`{"error":"issuer, client_id, client_secret, scopes, metadata_xml and metadata_url are not used with protocol none"}`},
		{"none with jit", `{"protocol":"none","password_login":true,"jit":true}`,
			`{"error":"jit needs an identity provider (protocol oidc or saml)"}`},
		{"bad CIDR", `{"protocol":"none","password_login":true,"password_trusted_networks":["10.0.0.0/33"]}`,
			`{"error":"password_trusted_networks: \"10.0.0.0/33\" is not a CIDR network (like 192.0.2.0/24 or 2001:db8::/48)"}`},
		{"not an address", `{"protocol":"none","password_login":true,"password_trusted_networks":["school.example.org"]}`,
			`{"error":"password_trusted_networks: \"school.example.org\" is not a CIDR network (like 192.0.2.0/24 or 2001:db8::/48)"}`},
		{"name_id_format on oidc", `{"protocol":"oidc","issuer":"https://idp.example.org","client_id":"x","client_secret":"y",
			"name_id_format":"urn:oasis:names:tc:SAML:2.0:nameid-format:persistent"}`, `{"error":"name_id_format is for saml only"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assertResponse(t, h.opsRaw(http.MethodPut, "/ops/v1/tenants/pwa/sso", tt.body), http.StatusBadRequest, tt.want)
		})
	}
	if got := put("pwa", `{"protocol":"none","password_login":true,"name_id_format":"urn:x"}`); got.code != http.StatusBadRequest ||
		!strings.Contains(got.body, "name_id_format is for saml only") {
		t.Fatalf("name_id_format on none = %d %s", got.code, got.body)
	}
	w := h.opsRaw(http.MethodGet, "/ops/v1/tenants/pwa/sso", "")
	if body := stripField(t, w.Body.Bytes(), "updated_at"); body != want {
		t.Fatalf("a refused PUT changed the configuration: %s", body)
	}
	// pwb keeps its OIDC configuration and SSO button.
	w = h.opsRaw(http.MethodGet, "/ops/v1/tenants/pwb/sso", "")
	if !strings.Contains(w.Body.String(), `"protocol":"oidc"`) {
		t.Fatalf("pwb = %s", w.Body.String())
	}
	wantStatus(t, newBrowser(t, app).do(http.MethodGet, pwOtherHost, "/login", nil), http.StatusOK, "/sso/start")
}

// httpResult is a status and a body.
type httpResult struct {
	code int
	body string
}
