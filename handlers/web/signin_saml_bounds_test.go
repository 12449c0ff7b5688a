package web

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// Finding 1 of issue 27: SAML responses are bounded before they are parsed
// (docs/decisions.md, "SAML responses bounded before they are parsed").

// samlRefusalBound is how long a refused hostile response may take to
// answer: generous for a loaded 2-core machine; the old code took seconds
// to minutes.
const samlRefusalBound = time.Second

// nestedXML is a document of depth elements <a> nested in each other.
func nestedXML(depth int) string {
	return strings.Repeat("<a>", depth) + strings.Repeat("</a>", depth)
}

// samlResponseForm is the form of a posted SAMLResponse holding doc.
func samlResponseForm(doc string) url.Values {
	return url.Values{"SAMLResponse": {base64.StdEncoding.EncodeToString([]byte(doc))}, "RelayState": {"/learn"}}
}

func TestSAMLResponseBounds(t *testing.T) {
	t.Parallel()
	h, idp, b := samlFixture(t, harnessOptions{})
	cases := []struct {
		name, doc, reason string
		form              url.Values
	}{
		{name: "nested 21,000 deep", doc: nestedXML(21_000), reason: "saml_too_deep"},
		{name: "nested 65 deep", doc: nestedXML(65), reason: "saml_too_deep"},
		{name: "6,000 elements", doc: "<r>" + strings.Repeat("<a/>", 6000) + "</r>", reason: "saml_too_many_elements"},
		{name: "form over 256 KiB", form: url.Values{"SAMLResponse": {strings.Repeat("PGE+", 70_000)}}, reason: "saml_too_large"},
		{name: "namespaces in scope", doc: func() string {
			var s strings.Builder
			for i := range 40 {
				fmt.Fprintf(&s, `<a xmlns:n%d="urn:x">`, i)
			}
			return s.String() + strings.Repeat("</a>", 40)
		}(), reason: "saml_too_complex"},
		{name: "two assertions", doc: `<p:Response xmlns:p="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:s="urn:oasis:names:tc:SAML:2.0:assertion">` +
			`<s:Assertion/><s:EncryptedAssertion/></p:Response>`, reason: "saml_too_complex"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, reqID := b.samlStart(samlHost)
			form := tc.form
			if form == nil {
				form = samlResponseForm(tc.doc)
			}
			if len(form.Encode()) > 256<<10 && tc.reason != "saml_too_large" {
				t.Fatalf("form of %d bytes is over the form bound", len(form.Encode()))
			}
			n := h.refusals(tc.reason)
			began := time.Now()
			w := b.samlPost(samlHost, reqID, form)
			took := time.Since(began)
			if took > samlRefusalBound {
				t.Errorf("refused after %v, want under %v", took, samlRefusalBound)
			}
			wantStatus(t, w, http.StatusBadRequest, "Your sign-in could not be verified.")
			if h.refusals(tc.reason)-n != 1 {
				t.Errorf("refusal not counted as %s", tc.reason)
			}
		})
	}
	t.Run("no cookie: refused before the body is read", func(t *testing.T) {
		n := h.refusals("bad_state")
		wantStatus(t, b.samlPost(samlHost, "", samlResponseForm(nestedXML(12_000))), http.StatusBadRequest, "was not started here")
		if h.refusals("bad_state")-n != 1 {
			t.Error("not counted as bad_state")
		}
	})
	t.Run("a signed response within the bounds still signs in", func(t *testing.T) {
		c := newBrowser(t, b.app)
		redirect, reqID := c.samlStart(samlHost)
		wantStatus(t, c.samlPost(samlHost, reqID, idp.respond(redirect, "alice@example.test", nil)), http.StatusSeeOther, "/learn")
		wantStatus(t, c.do(http.MethodGet, samlHost, "/learn", nil), http.StatusOK, "Signed in as Ada alice")
	})
}
