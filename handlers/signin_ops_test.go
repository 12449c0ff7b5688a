package handlers

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"learngate"
	"learngate/secrets"
	"learngate/tenant"
)

// opsRaw sends an ops call through the ops router itself.
func (h *harness) opsRaw(method, path, body string) *httptest.ResponseRecorder {
	headers := map[string]string{"Authorization": "Bearer " + testOpsToken}
	if body != "" {
		headers["Content-Type"] = "application/json"
	}
	return do(h.ops, request{method: method, path: path, body: body, headers: headers})
}

func TestOpsSSOConfiguration(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.createTenant("ssoacme")
	h.createTenant("ssoother")
	put := `{"protocol":"oidc","issuer":"https://login.example.org/tenant","client_id":"lg-acme",
		"client_secret":"s3cret-value","match":"user_name","jit":true}`

	t.Run("no configuration yet", func(t *testing.T) {
		assertResponse(t, h.opsRaw(http.MethodGet, "/ops/v1/tenants/ssoacme/sso", ""), http.StatusNotFound,
			`{"error":"no sign-in configuration"}`)
	})
	t.Run("set, shown without the secret", func(t *testing.T) {
		w := h.opsRaw(http.MethodPut, "/ops/v1/tenants/ssoacme/sso", put)
		if w.Code != http.StatusOK || strings.Contains(w.Body.String(), "s3cret") {
			t.Fatalf("PUT = %d %s", w.Code, w.Body.String())
		}
		w = h.opsRaw(http.MethodGet, "/ops/v1/tenants/ssoacme/sso", "")
		body := stripField(t, w.Body.Bytes(), "updated_at")
		if w.Code != http.StatusOK || body != `{"client_id":"lg-acme","client_secret_set":true,"end_idp_session":true,"issuer":"https://login.example.org/tenant","jit":true,"match":"user_name","password_login":false,"password_trusted_networks":[],"protocol":"oidc","scopes":["openid","email","profile"]}` {
			t.Fatalf("GET = %d %s", w.Code, body)
		}
	})
	t.Run("secret encrypted at rest", func(t *testing.T) {
		acme, _ := h.registry.Show(context.Background(), "ssoacme")
		stored, err := h.db.StoredClientSecret(context.Background(), acme.ID)
		if err != nil || !secrets.IsEncrypted(stored) || strings.Contains(stored, "s3cret") {
			t.Fatalf("stored secret %q, %v", stored, err)
		}
		cfg, err := h.registry.SSO(context.Background(), acme.ID)
		if err != nil || cfg.ClientSecret != "s3cret-value" {
			t.Fatalf("SSO = %+v, %v", cfg.ClientSecret, err)
		}
	})
	t.Run("update keeps the secret when none is sent", func(t *testing.T) {
		w := h.opsRaw(http.MethodPut, "/ops/v1/tenants/ssoacme/sso", `{"protocol":"oidc","issuer":"https://login.example.org/tenant","client_id":"lg-acme-2"}`)
		if w.Code != http.StatusOK {
			t.Fatalf("PUT = %d %s", w.Code, w.Body.String())
		}
		acme, _ := h.registry.Show(context.Background(), "ssoacme")
		cfg, err := h.registry.SSO(context.Background(), acme.ID)
		if err != nil || cfg.ClientSecret != "s3cret-value" || cfg.ClientID != "lg-acme-2" || cfg.JIT || cfg.Match != "email" {
			t.Fatalf("SSO = %+v, %v", cfg, err)
		}
	})
	t.Run("the other tenant has none", func(t *testing.T) {
		assertResponse(t, h.opsRaw(http.MethodGet, "/ops/v1/tenants/ssoother/sso", ""), http.StatusNotFound,
			`{"error":"no sign-in configuration"}`)
	})
	for _, tt := range []struct{ name, body, want string }{
		{"saml without metadata", `{"protocol":"saml"}`, `{"error":"saml needs exactly one of metadata_xml and metadata_url"}`},
		{"protocol", `{"protocol":"ldap"}`, `{"error":"protocol must be oidc, saml or none"}`},
		{"plain http issuer", `{"protocol":"oidc","issuer":"http://idp.example.org","client_id":"x","client_secret":"y"}`,
			`{"error":"issuer must use https; plain http is allowed only for a loopback address, with LEARNGATE_SSO_ALLOW_PRIVATE=true"}`},
		{"no client id", `{"protocol":"oidc","issuer":"https://idp.example.org","client_secret":"y"}`,
			`{"error":"client_id is required (at most 255 characters)"}`},
		{"no secret on first set", `{"protocol":"oidc","issuer":"https://idp.example.org","client_id":"x"}`,
			`{"error":"client_secret is required"}`},
		{"scopes without openid", `{"protocol":"oidc","issuer":"https://idp.example.org","client_id":"x","client_secret":"y","scopes":["email"]}`,
			`{"error":"scopes must include openid"}`},
		{"match", `{"protocol":"oidc","issuer":"https://idp.example.org","client_id":"x","client_secret":"y","match":"sub"}`,
			`{"error":"match must be email or user_name"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assertResponse(t, h.opsRaw(http.MethodPut, "/ops/v1/tenants/ssoother/sso", tt.body), http.StatusBadRequest, tt.want)
		})
	}
	t.Run("remove", func(t *testing.T) {
		assertResponse(t, h.opsRaw(http.MethodDelete, "/ops/v1/tenants/ssoacme/sso", ""), http.StatusNoContent, "")
		assertResponse(t, h.opsRaw(http.MethodDelete, "/ops/v1/tenants/ssoacme/sso", ""), http.StatusNotFound,
			`{"error":"no sign-in configuration"}`)
		assertResponse(t, h.opsRaw(http.MethodGet, "/ops/v1/tenants/nosuch/sso", ""), http.StatusNotFound,
			`{"error":"tenant nosuch not found"}`)
	})
}

// TestSSOConfigurationInvalidatedOnEveryNode: a second node that has the
// configuration cached sees a change made through the first within a second.
func TestSSOConfigurationInvalidatedOnEveryNode(t *testing.T) {
	t.Parallel()
	a := newHarness(t, harnessOptions{})
	b := newHarness(t, harnessOptions{DB: a.db, DBURL: a.dbURL})
	a.createTenant("ssonodes")
	secret := "first"
	if _, err := a.registry.SetSSO(context.Background(), "ssonodes", tenant.SSOInput{Protocol: "oidc",
		Issuer: "https://idp.example.org", ClientID: "one", ClientSecret: &secret}); err != nil {
		t.Fatal(err)
	}
	tn, _ := a.registry.Show(context.Background(), "ssonodes")
	if cfg, err := b.registry.SSO(context.Background(), tn.ID); err != nil || cfg.ClientID != "one" {
		t.Fatalf("node b: %+v %v", cfg, err)
	}
	if _, err := a.registry.SetSSO(context.Background(), "ssonodes", tenant.SSOInput{Protocol: "oidc",
		Issuer: "https://idp.example.org", ClientID: "two"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Second)
	for {
		cfg, err := b.registry.SSO(context.Background(), tn.ID)
		if err == nil && cfg.ClientID == "two" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("node b still has %+v, %v after 1 s", cfg.ClientID, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := a.registry.RemoveSSO(context.Background(), "ssonodes"); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(time.Second)
	for {
		_, err := b.registry.SSO(context.Background(), tn.ID)
		if learngate.IsCode(err, learngate.NotFound) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("node b still signs in with a removed configuration: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stripField returns the JSON object body without field, re-marshalled
// with sorted keys.
func stripField(t *testing.T, body []byte, field string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("body %q: %v", body, err)
	}
	delete(m, field)
	out, _ := json.Marshal(m)
	return string(out)
}
