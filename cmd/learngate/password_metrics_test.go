package main

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// csrfField finds the CSRF token of a learner page's form.
var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// failPasswordSignIn turns slug to password sign-in alone (`sso set
// --protocol none --password-login`) and makes one failed password
// sign-in on host through public: the login form (its CSRF token and
// cookies), then an unknown user name (401), which
// learngate_password_failures_total counts.
func failPasswordSignIn(t *testing.T, public http.Handler, slug, host string) {
	t.Helper()
	mustRun(t, "sso", "set", slug, "--protocol", "none", "--password-login")
	get := httptest.NewRequest(http.MethodGet, "/login", nil)
	get.Host = host
	page := httptest.NewRecorder()
	public.ServeHTTP(page, get)
	m := csrfField.FindStringSubmatch(page.Body.String())
	if page.Code != http.StatusOK || m == nil {
		t.Fatalf("GET /login = %d without a form: %s", page.Code, page.Body)
	}
	form := url.Values{"csrf": {m[1]}, "user_name": {"nobody"}, "password": {"wrong"}}
	post := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(form.Encode()))
	post.Host = host
	post.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for _, c := range page.Result().Cookies() {
		post.AddCookie(c)
	}
	rec := httptest.NewRecorder()
	public.ServeHTTP(rec, post)
	if rec.Code != http.StatusUnauthorized {
		t.Fatalf("POST /login = %d, want 401: %s", rec.Code, rec.Body)
	}
}
