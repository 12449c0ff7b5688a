package web

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"learngate/store"
)

// newPasswordFixture: tenants acme and other (OIDC at a real provider and
// passwords allowed), each with carol (password Old9secret,
// force_pwd_reset_next_login), created through the API. acme also has
// bob (the provider's bob, login internal, flagged) and alice (the
// provider's alice, login external, flagged), and dora (German, flagged).
func newPasswordFixture(t *testing.T) (*harness, catalogTenant, catalogTenant, http.Handler) {
	t.Helper()
	h := newHarness(t, harnessOptions{})
	idp := startIdP(t, "acme", "other")
	acme, other := signInTenants(t, h, idp)
	for _, ct := range []catalogTenant{acme, other} {
		ct.call(t, http.MethodPost, "/papi/users", `{"user_name":"carol","first_name":"Carol","last_name":"Cole","email":"carol@example.org",
			"password":"Old9secret","force_pwd_reset_next_login":true}`, http.StatusOK, "")
	}
	acme.call(t, http.MethodPost, "/papi/users", `{"user_name":"bob","first_name":"Bob","last_name":"Bell","email":"bob@example.test",
		"force_pwd_reset_next_login":true}`, http.StatusOK, "")
	acme.call(t, http.MethodPost, "/papi/users", `{"user_name":"alice","first_name":"Alice","last_name":"Ames","email":"alice@example.test",
		"login":"external","force_pwd_reset_next_login":true}`, http.StatusOK, "")
	acme.call(t, http.MethodPost, "/papi/users", `{"user_name":"dora","first_name":"Dora","last_name":"Dietz","email":"dora@example.org",
		"password":"Old9secret","language":"de","force_pwd_reset_next_login":true}`, http.StatusOK, "")
	return h, acme, other, h.pagesRouter(t)
}

// forced reports whether slug's user name still has force_pwd_reset_next_login.
func forced(t *testing.T, h *harness, slug, name string) bool {
	t.Helper()
	u, err := store.GetUser(context.Background(), tenantHandle(t, h, slug), name)
	if err != nil {
		t.Fatal(err)
	}
	return u.ForcePwdResetNextLogin
}

// postNewPassword posts the /password form of host with the page's CSRF token.
func (b *browser) postNewPassword(host, password, confirmation string) string {
	b.t.Helper()
	page := wantStatus(b.t, b.do(http.MethodGet, host, "/password", nil), http.StatusOK, `action="/password"`)
	w := b.do(http.MethodPost, host, "/password", url.Values{"csrf": {csrf(b.t, page)}, "password": {password},
		"password_confirmation": {confirmation}})
	return w.Result().Status + " " + w.Header().Get("Location") + " " + w.Body.String()
}
