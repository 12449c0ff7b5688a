package web

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/base64"
	"io"
	"learngate"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/crewjam/saml"

	"learngate/store"
	"learngate/tenant"
)

// Interoperability with real identity providers (issue 27; DECISIONS
// section 19): which NameID and attributes find the learner, the NameID
// format asked for, and the SP metadata an IdP imports.

// withNameID makes the assertion carry only a NameID of format and value
// and the attributes given (name → value).
func withNameID(format, value string, attrs map[string]string) func(*saml.Assertion) {
	return func(a *saml.Assertion) {
		a.Subject.NameID.Format, a.Subject.NameID.Value = format, value
		var st saml.AttributeStatement
		for name, v := range attrs {
			st.Attributes = append(st.Attributes, saml.Attribute{Name: name, NameFormat: "urn:oasis:names:tc:SAML:2.0:attrname-format:basic",
				Values: []saml.AttributeValue{{Type: "xs:string", Value: v}}})
		}
		a.AttributeStatements = nil
		if len(attrs) > 0 {
			a.AttributeStatements = []saml.AttributeStatement{st}
		}
	}
}

func TestSAMLNameIDMatching(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.createTenant("samlu")
	h.createTenant("samle")
	app := h.pagesRouter(t)
	idp := startSAMLIdP(t, app)
	byUserName, byEmail := store.MatchUserName, store.MatchEmail
	md := idp.metadataXML()
	for slug, match := range map[string]*string{"samlu": &byUserName, "samle": &byEmail} {
		if _, err := h.registry.SetSSO(context.Background(), slug, tenant.SSOInput{Protocol: "saml", MetadataXML: md, Match: match}); err != nil {
			t.Fatal(err)
		}
	}
	// In samlu, dana's user_name is her address; in samle, erin's address
	// is erin@example.test and her user_name erin.
	for slug, who := range map[string][2]string{"samlu": {"dana@example.test", "dana@mail.example"}, "samle": {"erin", "erin@example.test"}} {
		tn, _ := h.registry.Show(context.Background(), slug)
		tdb, _ := h.db.Tenant(tn.Schema)
		first, last, tz := "Ada", "L", "UTC"
		if _, err := store.CreateUser(context.Background(), tdb, learngate.UserInput{UserName: &who[0], FirstName: &first, LastName: &last,
			Email: &who[1], Timezone: &tz}, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	const (
		email       = string(saml.EmailAddressNameIDFormat)
		persistent  = string(saml.PersistentNameIDFormat)
		unspecified = string(saml.UnspecifiedNameIDFormat)
		transient   = string(saml.TransientNameIDFormat)
	)
	cases := []struct {
		name, slug, format, nameID string
		attrs                      map[string]string
		signedIn                   bool
	}{
		{name: "user_name: an emailAddress NameID, no uid", slug: "samlu", format: email, nameID: "dana@example.test", signedIn: true},
		{name: "user_name: a persistent NameID", slug: "samlu", format: persistent, nameID: "DANA@example.test", signedIn: true},
		{name: "user_name: uid before the NameID", slug: "samlu", format: persistent, nameID: "8f2a61", attrs: map[string]string{"uid": "dana@example.test"}, signedIn: true},
		{name: "user_name: the email attribute is not a user name", slug: "samlu", format: transient, nameID: "_x1", attrs: map[string]string{"mail": "dana@example.test"}},
		{name: "email: the mail attribute", slug: "samle", format: persistent, nameID: "8f2a61", attrs: map[string]string{"mail": "erin@example.test"}, signedIn: true},
		{name: "email: an emailAddress NameID", slug: "samle", format: email, nameID: "Erin@example.test", signedIn: true},
		{name: "email: an address as unspecified NameID", slug: "samle", format: unspecified, nameID: "erin@example.test", signedIn: true},
		{name: "email: a persistent NameID is not an address", slug: "samle", format: persistent, nameID: "erin@example.test"},
		{name: "email: a uid is not an address", slug: "samle", format: transient, nameID: "_x2", attrs: map[string]string{"uid": "erin@example.test"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newBrowser(t, app)
			host := tc.slug + ".learngate.localhost"
			redirect, reqID := b.samlStart(host)
			w := b.samlPost(host, reqID, idp.respond(redirect, "x@example.test", withNameID(tc.format, tc.nameID, tc.attrs)))
			if tc.signedIn {
				wantStatus(t, w, http.StatusSeeOther, "/learn")
				wantStatus(t, b.do(http.MethodGet, host, "/learn", nil), http.StatusOK, "Signed in as Ada")
			} else {
				wantStatus(t, w, http.StatusForbidden, "There is no learngate account for you")
			}
		})
	}
	t.Run("another tenant's learner is not found", func(t *testing.T) {
		b := newBrowser(t, app)
		redirect, reqID := b.samlStart("samle.learngate.localhost")
		wantStatus(t, b.samlPost("samle.learngate.localhost", reqID, idp.respond(redirect, "x@example.test",
			withNameID(email, "dana@mail.example", nil))), http.StatusForbidden, "There is no learngate account for you")
	})
}

// authnRequest is the XML of the SAMLRequest in an HTTP-Redirect URL.
func authnRequest(t *testing.T, redirect string) string {
	t.Helper()
	u, err := url.Parse(redirect)
	if err != nil {
		t.Fatal(err)
	}
	deflated, err := base64.StdEncoding.DecodeString(u.Query().Get("SAMLRequest"))
	if err != nil {
		t.Fatal(err)
	}
	xml, err := io.ReadAll(flate.NewReader(bytes.NewReader(deflated)))
	if err != nil {
		t.Fatal(err)
	}
	return string(xml)
}

func TestSAMLRequestAndMetadataInterop(t *testing.T) {
	t.Parallel()
	h, idp, b := samlFixture(t, harnessOptions{})
	t.Run("the request asks for an unspecified NameID", func(t *testing.T) {
		redirect, _ := b.samlStart(samlHost)
		req := authnRequest(t, redirect)
		if !strings.Contains(req, `Format="urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified"`) || strings.Contains(req, "transient") {
			t.Fatalf("AuthnRequest %s", req)
		}
	})
	t.Run("the request asks for the tenant's name_id_format", func(t *testing.T) {
		format := "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent"
		in := tenant.SSOInput{Protocol: "saml", MetadataXML: idp.metadataXML(), NameIDFormat: format}
		if _, err := h.registry.SetSSO(context.Background(), "samlb", in); err != nil {
			t.Fatal(err)
		}
		redirect, _ := b.samlStart(samlOtherHost)
		if req := authnRequest(t, redirect); !strings.Contains(req, `Format="`+format+`"`) {
			t.Fatalf("AuthnRequest %s", req)
		}
		redirect, _ = b.samlStart(samlHost) // the other tenant still asks for unspecified
		if req := authnRequest(t, redirect); !strings.Contains(req, `nameid-format:unspecified"`) {
			t.Fatalf("AuthnRequest %s", req)
		}
	})
	t.Run("metadata", func(t *testing.T) {
		body := wantStatus(t, b.do(http.MethodGet, samlHost, "/sso/saml/metadata", nil), http.StatusOK, `cacheDuration="PT48H"`)
		for _, want := range []string{
			"<NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</NameIDFormat>",
			"<NameIDFormat>urn:oasis:names:tc:SAML:2.0:nameid-format:persistent</NameIDFormat>",
			"<NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified</NameIDFormat>",
			`<AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="http://samla.learngate.localhost/sso/saml/acs" index="1"`,
		} {
			if !strings.Contains(body, want) {
				t.Errorf("metadata lacks %s:\n%s", want, body)
			}
		}
		for _, not := range []string{"validUntil", "HTTP-Artifact", "<NameIDFormat></NameIDFormat>"} {
			if strings.Contains(body, not) {
				t.Errorf("metadata has %s:\n%s", not, body)
			}
		}
		if strings.Count(body, "<AssertionConsumerService ") != 1 {
			t.Errorf("metadata offers several ACS:\n%s", body)
		}
	})
}
