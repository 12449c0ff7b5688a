package web

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/crewjam/saml"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"learngate/store"
)

const (
	samlHost      = "samla.learngate.localhost"
	samlOtherHost = "samlb.learngate.localhost"
)

// samlFixture is a node with tenants samla (metadata by URL) and samlb
// (metadata as XML) on one IdP: alice active and bob inactive in samla.
func samlFixture(t *testing.T, opts harnessOptions) (*harness, *testSAMLIdP, *browser) {
	t.Helper()
	h := newHarness(t, opts)
	h.createTenant("samla")
	h.createTenant("samlb")
	app := h.pagesRouter(t)
	idp := startSAMLIdP(t, app)
	h.configureSAML(t, idp, "samla", true)
	h.configureSAML(t, idp, "samlb", false)
	seedLearner(t, h, "samla", "alice@example.test", true)
	seedLearner(t, h, "samla", "bob@example.test", false)
	return h, idp, newBrowser(t, app)
}

func (h *harness) refusals(reason string) float64 {
	return testutil.ToFloat64(h.gate.Metrics.SignIns.WithLabelValues("refused_" + reason))
}

func TestSAMLSignIn(t *testing.T) {
	t.Parallel()
	h, idp, b := samlFixture(t, harnessOptions{})

	t.Run("SP metadata", func(t *testing.T) {
		w := b.do(http.MethodGet, samlHost, "/sso/saml/metadata", nil)
		body := wantStatus(t, w, http.StatusOK, `entityID="http://samla.learngate.localhost/sso/saml/metadata"`)
		if !strings.Contains(body, `Location="http://samla.learngate.localhost/sso/saml/acs"`) || !strings.Contains(body, "X509Certificate") {
			t.Fatalf("metadata %s", body)
		}
		other := b.do(http.MethodGet, samlOtherHost, "/sso/saml/metadata", nil).Body.String()
		if other == body {
			t.Fatal("two tenants share SP metadata")
		}
	})
	t.Run("SP key encrypted at rest", func(t *testing.T) {
		tn, _ := h.registry.Show(context.Background(), "samla")
		stored, err := h.db.StoredSAMLKey(context.Background(), tn.ID)
		if err != nil || !strings.HasPrefix(stored, "lgenc1:") || strings.Contains(stored, "PRIVATE KEY") {
			t.Fatalf("stored key %.20q %v", stored, err)
		}
	})

	before := testutil.ToFloat64(h.gate.Metrics.SignIns.WithLabelValues("signed_in"))
	wantStatus(t, b.do(http.MethodGet, samlHost, "/login", nil), http.StatusOK, "Sign in with samla")
	pre := b.cookies[samlHost]
	redirect, reqID := b.samlStart(samlHost)
	form := idp.respond(redirect, "Alice@Example.test", nil)
	wantStatus(t, b.samlPost(samlHost, reqID, form), http.StatusSeeOther, "/learn")
	if b.cookies[samlHost] == pre {
		t.Fatal("session id kept across sign-in")
	}
	wantStatus(t, b.do(http.MethodGet, samlHost, "/learn", nil), http.StatusOK, "Signed in as Ada alice")
	u, err := store.GetUser(context.Background(), tenantHandle(t, h, "samla"), "alice")
	if err != nil || u.CurrentSignInAt == nil {
		t.Fatalf("current_sign_in_at not set: %v", err)
	}
	if testutil.ToFloat64(h.gate.Metrics.SignIns.WithLabelValues("signed_in"))-before != 1 {
		t.Fatal("sign-in not counted")
	}

	t.Run("replayed assertion", func(t *testing.T) {
		n := h.refusals("replayed_assertion")
		c := newBrowser(t, b.app)
		wantStatus(t, c.samlPost(samlHost, reqID, form), http.StatusForbidden, "This sign-in was already used.")
		if h.refusals("replayed_assertion")-n != 1 {
			t.Fatal("replay not counted")
		}
		wantStatus(t, c.do(http.MethodGet, samlHost, "/learn", nil), http.StatusSeeOther, "/login")
	})
	t.Run("response without the browser's request", func(t *testing.T) {
		c := newBrowser(t, b.app)
		redirect, _ := c.samlStart(samlHost)
		wantStatus(t, c.samlPost(samlHost, "", idp.respond(redirect, "alice@example.test", nil)), http.StatusBadRequest, "was not started here")
	})
}

func TestSAMLRefusals(t *testing.T) {
	t.Parallel()
	h, idp, b := samlFixture(t, harnessOptions{})
	cases := []struct {
		name, email, reason, page string
		status                    int
		mutate                    func(*saml.Assertion)
		tamper                    bool
	}{
		{name: "unknown user", email: "carol@example.test", reason: "unknown_user", status: http.StatusForbidden, page: "There is no learngate account"},
		{name: "inactive user", email: "bob@example.test", reason: "inactive", status: http.StatusForbidden, page: "Your account is not active."},
		{name: "tampered signature", email: "alice@example.test", reason: "bad_assertion", status: http.StatusForbidden,
			page: "could not be verified", tamper: true},
		{name: "another tenant's audience", email: "alice@example.test", reason: "bad_assertion", status: http.StatusForbidden,
			page: "could not be verified", mutate: func(a *saml.Assertion) {
				a.Conditions.AudienceRestrictions[0].Audience.Value = "http://" + samlOtherHost + "/sso/saml/metadata"
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := h.refusals(tc.reason)
			redirect, reqID := b.samlStart(samlHost)
			idp.plain = tc.tamper
			form := idp.respond(redirect, tc.email, tc.mutate)
			idp.plain = false
			if tc.tamper {
				raw, err := base64.StdEncoding.DecodeString(form.Get("SAMLResponse"))
				if err != nil || !strings.Contains(string(raw), "alice@example.test") {
					t.Fatalf("response %v", err)
				}
				form.Set("SAMLResponse", base64.StdEncoding.EncodeToString([]byte(strings.ReplaceAll(string(raw), "alice@example.test", "bob@example.test"))))
			}
			wantStatus(t, b.samlPost(samlHost, reqID, form), tc.status, tc.page)
			if h.refusals(tc.reason)-n != 1 {
				t.Fatalf("%s not counted", tc.reason)
			}
			wantStatus(t, b.do(http.MethodGet, samlHost, "/learn", nil), http.StatusSeeOther, "/login")
		})
	}
	t.Run("nothing written for refused users", func(t *testing.T) {
		if _, err := store.GetUser(context.Background(), tenantHandle(t, h, "samla"), "carol"); err == nil {
			t.Fatal("unknown user created without jit")
		}
		u, _ := store.GetUser(context.Background(), tenantHandle(t, h, "samla"), "bob")
		if u.CurrentSignInAt != nil {
			t.Fatal("inactive user's sign-in recorded")
		}
	})
	t.Run("assertion for samla refused on samlb", func(t *testing.T) {
		seedLearner(t, h, "samlb", "alice@example.test", true)
		redirect, _ := b.samlStart(samlHost)
		_, reqB := b.samlStart(samlOtherHost)
		wantStatus(t, b.samlPost(samlOtherHost, reqB, idp.respond(redirect, "alice@example.test", nil)), http.StatusForbidden, "could not be verified")
	})
}

func TestSAMLExpiredAssertion(t *testing.T) {
	t.Parallel()
	clock := newManualClock()
	h, idp, b := samlFixture(t, harnessOptions{Now: clock.Now})
	redirect, reqID := b.samlStart(samlHost)
	form := idp.respond(redirect, "alice@example.test", nil)
	// Past the assertion's window (90 s and 180 s of skew), within the
	// started sign-in's 10 minutes.
	clock.advance(6 * time.Minute)
	n := h.refusals("bad_assertion")
	wantStatus(t, b.samlPost(samlHost, reqID, form), http.StatusForbidden, "could not be verified")
	if h.refusals("bad_assertion")-n != 1 {
		t.Fatal("expired assertion not counted")
	}
	wantStatus(t, b.do(http.MethodGet, samlHost, "/learn", nil), http.StatusSeeOther, "/login")
}

func TestOpsSSOSAMLConfiguration(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.createTenant("samlops")
	for _, tc := range []struct{ name, body, want string }{
		{"neither", `{"protocol":"saml"}`, "saml needs exactly one of metadata_xml and metadata_url"},
		{"not metadata", `{"protocol":"saml","metadata_xml":"<x/>"}`, "metadata is not SAML 2.0 identity provider metadata"},
		{"bad url", `{"protocol":"saml","metadata_url":"http://example.com/md"}`, "metadata_url must use https; plain http is allowed only for a loopback address"},
		{"oidc field", `{"protocol":"saml","metadata_xml":"<x/>","client_id":"c"}`, "for oidc only"},
	} {
		w := h.opsRaw(http.MethodPut, "/ops/v1/tenants/samlops/sso", tc.body)
		if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), tc.want) {
			t.Errorf("%s: %d %s", tc.name, w.Code, w.Body.String())
		}
	}
	idp := startSAMLIdP(t, h.pagesRouter(t))
	w := h.opsRaw(http.MethodPut, "/ops/v1/tenants/samlops/sso", `{"protocol":"saml","metadata_url":"`+idp.metadata+`","jit":true}`)
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"metadata_url":"`+idp.metadata+`","metadata_xml_set":true`) {
		t.Fatalf("put: %d %s", w.Code, w.Body.String())
	}
	// The key pair is kept across changes.
	tn, _ := h.registry.Show(context.Background(), "samlops")
	k1, _ := h.db.StoredSAMLKey(context.Background(), tn.ID)
	cfg1, _ := h.db.TenantSSO(context.Background(), tn.ID)
	h.opsRaw(http.MethodPut, "/ops/v1/tenants/samlops/sso", `{"protocol":"saml","metadata_url":"`+idp.metadata+`","jit":false}`)
	cfg2, _ := h.db.TenantSSO(context.Background(), tn.ID)
	k2, _ := h.db.StoredSAMLKey(context.Background(), tn.ID)
	if cfg1.SAMLKey == "" || cfg1.SAMLKey != cfg2.SAMLKey || cfg1.SAMLCert != cfg2.SAMLCert || k1 == "" || k2 == "" {
		t.Fatal("SP key pair changed or missing")
	}
}

// TestSAMLStartedSignInExpires: the sealed request cookie lasts 10
// minutes; after that the post is refused before it is read.
func TestSAMLStartedSignInExpires(t *testing.T) {
	t.Parallel()
	clock := newManualClock()
	h, idp, b := samlFixture(t, harnessOptions{Now: clock.Now})
	redirect, reqID := b.samlStart(samlHost)
	form := idp.respond(redirect, "alice@example.test", nil)
	clock.advance(11 * time.Minute)
	n := h.refusals("bad_state")
	wantStatus(t, b.samlPost(samlHost, reqID, form), http.StatusBadRequest, "This sign-in has expired or was not started here.")
	if h.refusals("bad_state")-n != 1 {
		t.Fatal("expired request cookie not counted as bad_state")
	}
}
