//go:build slow

package web

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/crewjam/saml"

	"learngate/tenant"
)

// samlBrowserSession is the test SAML IdP's signed-in person: every
// authentication request is answered for them (no login form).
type samlBrowserSession struct{ email string }

func (s samlBrowserSession) GetSession(_ http.ResponseWriter, _ *http.Request, _ *saml.IdpAuthnRequest) *saml.Session {
	return &saml.Session{ID: "browser", NameID: s.email, NameIDFormat: string(saml.EmailAddressNameIDFormat),
		UserEmail: s.email, UserGivenName: "Sam", UserSurname: "Learner", CreateTime: time.Now(), ExpireTime: time.Now().Add(time.Hour)}
}

// TestSignInAcrossSitesInBrowser (DECISIONS section 19): learngate under
// https on the tenants' hosts, the identity providers on another site
// (http://127.0.0.1), as organisations run them. Headless Chromium signs a
// learner in through OIDC (the sealed flow cookie comes back on the
// provider's redirect) and signs out, which ends the provider's session
// too (RP-initiated logout: its session cookie is gone and it saw the
// logout); then through SAML, whose IdP posts the response cross-site (the
// request cookie is SameSite=None; Secure), and signs out. The anonymous
// form's CSRF cookie is __Host- prefixed under https.
func TestSignInAcrossSitesInBrowser(t *testing.T) {
	exe := chromiumPath(t)
	h := newHarness(t, harnessOptions{})
	h.createTenant("ssoa")
	h.createTenant("samla")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	oidcIdP := startIdPFor(t, port, "ssoa")
	secret := "ssoa-secret"
	if _, err := h.registry.SetSSO(context.Background(), "ssoa", tenant.SSOInput{Protocol: "oidc", Issuer: oidcIdP.issuer,
		ClientID: "ssoa-client", ClientSecret: &secret}); err != nil {
		t.Fatal(err)
	}
	seedLearner(t, h, "ssoa", "alice@example.test", true)
	seedLearner(t, h, "samla", "sam@example.test", true)

	h.web.PublicScheme = "https"
	app := h.pagesRouter(t)
	samlIdP := startSAMLIdP(t, app)
	samlIdP.idp.SessionProvider = samlBrowserSession{email: "sam@example.test"}
	h.configureSAML(t, samlIdP, "samla", false)
	srv := httptest.NewUnstartedServer(app)
	srv.Listener.Close()
	srv.Listener = ln
	srv.StartTLS()
	t.Cleanup(srv.Close)

	ctx := newChromiumWith(t, exe, chromedp.Flag("ignore-certificate-errors", true))
	run := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			loc, _ := chromedp.Run(ctx, chromedp.Location())
			body, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
			t.Fatalf("%s: %v (at %s: %.500s)", what, err, loc, body)
		}
	}
	location := func() string {
		t.Helper()
		loc, err := chromedp.Run(ctx, chromedp.Location())
		if err != nil {
			t.Fatal(err)
		}
		return loc
	}
	cookies := func(url string) map[string]*network.Cookie {
		t.Helper()
		res, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{url}})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]*network.Cookie{}
		for _, c := range res.Cookies {
			out[c.Name] = c
		}
		return out
	}

	// OIDC, provider on another site.
	oidcOrigin := "https://" + acmeHost + ":" + port
	run("open the OIDC tenant's login page", chromedp.Navigate(oidcOrigin+"/login"), chromedp.WaitVisible(chromedp.CSS("main a.button")))
	if ck := cookies(oidcOrigin + "/")["__Host-"+anonCSRFCookie]; ck == nil || !ck.Secure || !ck.HTTPOnly || ck.Path != "/" {
		t.Errorf("anonymous CSRF cookie under https: %+v", ck)
	}
	run("go to the provider", chromedp.Click(chromedp.CSS("main a.button")), chromedp.WaitVisible(chromedp.ID("username")))
	if loc := location(); !strings.HasPrefix(loc, oidcIdP.issuer) {
		t.Fatalf("at %s, want the provider %s", loc, oidcIdP.issuer)
	}
	run("sign in at the provider", chromedp.SendKeys(chromedp.ID("username"), "alice@example.test"),
		chromedp.SendKeys(chromedp.ID("password"), "verysecure"), chromedp.Submit(chromedp.ID("password")),
		chromedp.WaitVisible(chromedp.CSS("header form.logout button")))
	if loc := location(); loc != oidcOrigin+"/learn" {
		t.Fatalf("OIDC sign-in landed on %s, want %s/learn", loc, oidcOrigin)
	}
	if ck := cookies(oidcOrigin + "/")[sessionCookie]; ck == nil || !ck.Secure || !ck.HTTPOnly || ck.SameSite != network.CookieSameSiteLax {
		t.Errorf("session cookie under https: %+v", ck)
	}
	if cookies(oidcIdP.issuer + "/")[idpSessionCookie] == nil {
		t.Fatal("the provider kept no session of the sign-in")
	}
	run("sign out", chromedp.Click(chromedp.CSS("header form.logout button")), chromedp.WaitVisible(chromedp.CSS("main a.button")))
	if loc := location(); loc != oidcOrigin+"/login" {
		t.Errorf("after sign-out at %s, want %s/login", loc, oidcOrigin)
	}
	if oidcIdP.logouts.Load() != 1 || cookies(oidcIdP.issuer + "/")[idpSessionCookie] != nil {
		t.Errorf("the provider's session did not end: %d logouts, cookie %+v", oidcIdP.logouts.Load(), cookies(oidcIdP.issuer + "/")[idpSessionCookie])
	}
	run("My learning after sign-out", chromedp.Navigate(oidcOrigin+"/learn"), chromedp.WaitVisible(chromedp.CSS("main a.button")))
	if loc := location(); !strings.HasPrefix(loc, oidcOrigin+"/login") {
		t.Errorf("My learning after sign-out went to %s, want the login page", loc)
	}

	// SAML, the IdP on another site posts the response cross-site.
	samlOrigin := "https://" + samlHost + ":" + port
	run("open the SAML tenant's login page", chromedp.Navigate(samlOrigin+"/login"), chromedp.WaitVisible(chromedp.CSS("main a.button")))
	run("sign in through the SAML IdP", chromedp.Click(chromedp.CSS("main a.button")),
		chromedp.WaitVisible(chromedp.CSS("header form.logout button")))
	if loc := location(); loc != samlOrigin+"/learn" {
		t.Fatalf("SAML sign-in landed on %s, want %s/learn", loc, samlOrigin)
	}
	body, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("main")))
	if err != nil || !strings.Contains(body, "My learning") {
		t.Fatalf("My learning after SAML: %v %s", err, body)
	}
	run("sign out of the SAML tenant", chromedp.Click(chromedp.CSS("header form.logout button")), chromedp.WaitVisible(chromedp.CSS("main a.button")))
	if loc := location(); loc != samlOrigin+"/login" {
		t.Errorf("after SAML sign-out at %s, want %s/login", loc, samlOrigin)
	}
}
