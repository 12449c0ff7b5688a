package web

import (
	"context"
	"encoding/xml"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/crewjam/saml"
	samllog "github.com/crewjam/saml/logger"

	"learngate/handlers/handlertest"
	"learngate/tenant"
)

// A SAML identity provider for the sign-in tests: crewjam/saml's
// IdentityProvider with its own key pair, its metadata served on
// 127.0.0.1; the tests drive its response making directly (no login form).

// testSAMLIdP is a running identity provider.
type testSAMLIdP struct {
	t        *testing.T
	idp      *saml.IdentityProvider
	metadata string // URL of its metadata
	app      http.Handler
	// plain: assertions are not encrypted for the SP.
	plain bool
}

// spByFetch finds a service provider's metadata by fetching its entity ID
// (learngate's metadata URL) from the app in-process.
// With plain set it hides the SP's encryption key, so that the IdP sends
// the assertion unencrypted (the tampering test edits it).
type spByFetch struct {
	app   http.Handler
	plain *bool
}

func (s spByFetch) GetServiceProvider(_ *http.Request, id string) (*saml.EntityDescriptor, error) {
	u, err := url.Parse(id)
	if err != nil {
		return nil, os.ErrNotExist
	}
	w := do(s.app, request{method: http.MethodGet, host: u.Host, path: u.Path})
	if w.Code != http.StatusOK {
		return nil, os.ErrNotExist
	}
	md := &saml.EntityDescriptor{}
	if err := xml.Unmarshal(w.Body.Bytes(), md); err != nil {
		return nil, err
	}
	if *s.plain {
		for i := range md.SPSSODescriptors {
			var keep []saml.KeyDescriptor
			for _, k := range md.SPSSODescriptors[i].KeyDescriptors {
				if k.Use != "encryption" {
					keep = append(keep, k)
				}
			}
			md.SPSSODescriptors[i].KeyDescriptors = keep
		}
	}
	return md, nil
}

// startSAMLIdP runs an identity provider for the app.
func startSAMLIdP(t *testing.T, app http.Handler) *testSAMLIdP {
	t.Helper()
	key, cert := handlertest.IdPKey(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	mdURL, _ := url.Parse(base + "/metadata")
	ssoURL, _ := url.Parse(base + "/sso")
	p := &testSAMLIdP{t: t, metadata: mdURL.String(), app: app}
	p.idp = &saml.IdentityProvider{Key: key, Certificate: cert, MetadataURL: *mdURL, SSOURL: *ssoURL,
		Logger: samllog.DefaultLogger, ServiceProviderProvider: spByFetch{app: app, plain: &p.plain}}
	// /sso answers a browser's authentication request (the browser test)
	// once a SessionProvider is set; everything else is the metadata.
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/sso" && p.idp.SessionProvider != nil {
			p.idp.ServeSSO(w, r)
			return
		}
		p.idp.ServeMetadata(w, r)
	}))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return p
}

// metadataXML returns the provider's metadata document.
func (p *testSAMLIdP) metadataXML() string {
	p.t.Helper()
	resp, err := http.Get(p.metadata)
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// respond answers the authentication request in redirect (the IdP URL
// /sso/start sent the browser to) for email, letting mutate change the
// assertion before it is signed; it returns the form the browser posts.
func (p *testSAMLIdP) respond(redirect, email string, mutate func(*saml.Assertion)) url.Values {
	p.t.Helper()
	r := httptest.NewRequest(http.MethodGet, redirect, nil)
	req, err := saml.NewIdpAuthnRequest(p.idp, r)
	if err != nil {
		p.t.Fatal(err)
	}
	if err := req.Validate(); err != nil {
		p.t.Fatalf("idp: %v", err)
	}
	sess := &saml.Session{ID: "s1", NameID: email, NameIDFormat: string(saml.EmailAddressNameIDFormat),
		UserEmail: email, UserGivenName: "Sam", UserSurname: "Learner", CreateTime: time.Now(), ExpireTime: time.Now().Add(time.Hour)}
	if err := (saml.DefaultAssertionMaker{}).MakeAssertion(req, sess); err != nil {
		p.t.Fatal(err)
	}
	if mutate != nil {
		mutate(req.Assertion)
	}
	if err := req.MakeResponse(); err != nil {
		p.t.Fatal(err)
	}
	form, err := req.PostBinding()
	if err != nil {
		p.t.Fatal(err)
	}
	return url.Values{"SAMLResponse": {form.SAMLResponse}, "RelayState": {form.RelayState}}
}

// configureSAML sets slug's SAML identity provider through the registry,
// by metadata URL or XML.
func (h *harness) configureSAML(t *testing.T, p *testSAMLIdP, slug string, byURL bool) {
	t.Helper()
	in := tenant.SSOInput{Protocol: "saml"}
	if byURL {
		in.MetadataURL = p.metadata
	} else {
		in.MetadataXML = p.metadataXML()
	}
	if _, err := h.registry.SetSSO(context.Background(), slug, in); err != nil {
		t.Fatal(err)
	}
}

// samlStart opens /sso/start on host and returns the IdP URL and the
// request cookie.
func (b *browser) samlStart(host string) (string, string) {
	b.t.Helper()
	w := b.do(http.MethodGet, host, "/sso/start?next=%2Flearn", nil)
	if w.Code != http.StatusSeeOther {
		b.t.Fatalf("start = %d %s", w.Code, w.Body.String())
	}
	for _, ck := range w.Result().Cookies() {
		if ck.Name == samlRequestCookie {
			return w.Header().Get("Location"), ck.Value
		}
	}
	b.t.Fatal("no SAML request cookie")
	return "", ""
}

// samlPost posts form to host's ACS with the request cookie reqID (and
// no session cookie: a cross-site POST does not carry it).
func (b *browser) samlPost(host, reqID string, form url.Values) *httptest.ResponseRecorder {
	b.t.Helper()
	r := request{method: http.MethodPost, host: host, path: "/sso/saml/acs", body: form.Encode(),
		headers: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}}
	if reqID != "" {
		r.headers["Cookie"] = samlRequestCookie + "=" + reqID
	}
	w := do(b.app, r)
	b.keep(host, w)
	return w
}
