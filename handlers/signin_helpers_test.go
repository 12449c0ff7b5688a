package handlers

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/crewjam/saml"
	samllog "github.com/crewjam/saml/logger"

	"learngate/handlers/handlertest"
)

// What the tests of package handlers need of sign-in: the learner pages'
// own tests, with their identity providers and browsers, are package
// web's (handlers/web).

var loginCSRF = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// passwordSignIn signs userName in with password on host through the
// node's public router, as a browser does: GET /login for the form and its
// CSRF cookie, then POST /login with both. It returns the POST's answer.
func (h *harness) passwordSignIn(t *testing.T, host, userName, password string) *httptest.ResponseRecorder {
	t.Helper()
	app, err := h.server.PublicRouter()
	if err != nil {
		t.Fatal(err)
	}
	page := do(app, request{host: host, path: "/login"})
	m := loginCSRF.FindStringSubmatch(page.Body.String())
	if page.Code != http.StatusOK || m == nil {
		t.Fatalf("GET /login = %d %s", page.Code, page.Body.String())
	}
	var cookies []string
	for _, ck := range page.Result().Cookies() {
		cookies = append(cookies, ck.Name+"="+ck.Value)
	}
	form := url.Values{"csrf": {m[1]}, "user_name": {userName}, "password": {password}, "next": {"/learn"}}
	return do(app, request{method: http.MethodPost, host: host, path: "/login", body: form.Encode(),
		headers: map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Cookie": strings.Join(cookies, "; ")}})
}

// counter is a server that counts its requests and answers each with a
// token endpoint's or key set's body.
func counter(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n.Add(1)
		_, _ = w.Write([]byte(`{"access_token":"x","token_type":"Bearer","id_token":"x","keys":[]}`))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// samlMetadataServer serves a SAML identity provider's metadata (a fresh
// signing key and certificate) at every path, and returns its base URL.
func samlMetadataServer(t *testing.T) string {
	t.Helper()
	key, cert := handlertest.IdPKey(t)
	idp := &saml.IdentityProvider{Key: key, Certificate: cert, Logger: samllog.DefaultLogger}
	srv := httptest.NewServer(http.HandlerFunc(idp.ServeMetadata))
	t.Cleanup(srv.Close)
	mdURL, _ := url.Parse(srv.URL + "/metadata")
	ssoURL, _ := url.Parse(srv.URL + "/sso")
	idp.MetadataURL, idp.SSOURL = *mdURL, *ssoURL
	return srv.URL
}
