package web

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/beevik/etree"
	"github.com/crewjam/saml/xmlenc"
)

// TestSAMLEncryptedPlaintextBounds: the plaintext of an encrypted
// assertion (anyone may encrypt one: the SP's key is in its metadata) is
// held to the same bounds before the library parses it.
func TestSAMLEncryptedPlaintextBounds(t *testing.T) {
	t.Parallel()
	h, idp, b := samlFixture(t, harnessOptions{})
	tn, _ := h.registry.Show(context.Background(), "samla")
	cfg, err := h.db.TenantSSO(context.Background(), tn.ID)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode([]byte(cfg.SAMLCert))
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	// encrypted is a response for request reqID, as complete as an attacker
	// can make it without the IdP's key, carrying plaintext encrypted.
	encrypted := func(reqID, plaintext string) string {
		enc := xmlenc.OAEP()
		enc.BlockCipher = xmlenc.AES128CBC
		enc.DigestMethod = &xmlenc.SHA1
		data, err := enc.Encrypt(cert, []byte(plaintext), nil)
		if err != nil {
			t.Fatal(err)
		}
		ea := etree.NewElement("saml:EncryptedAssertion")
		ea.AddChild(data)
		doc := etree.NewDocument()
		doc.SetRoot(ea)
		s, _ := doc.WriteToString()
		return `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="r1" Version="2.0"` +
			` IssueInstant="` + time.Now().UTC().Format(time.RFC3339) + `" Destination="http://` + samlHost + `/sso/saml/acs" InResponseTo="` + reqID + `">` +
			`<saml:Issuer>` + idp.metadata + `</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
			s + `</samlp:Response>`
	}
	for _, tc := range []struct{ name, plaintext, reason string }{
		{"nested 10,000 deep", nestedXML(10_000), "saml_too_deep"},
		{"6,000 elements", "<r>" + strings.Repeat("<a/>", 6000) + "</r>", "saml_too_many_elements"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, reqID := b.samlStart(samlHost)
			n := h.refusals(tc.reason)
			began := time.Now()
			w := b.samlPost(samlHost, reqID, samlResponseForm(encrypted(reqID, tc.plaintext)))
			if took := time.Since(began); took > samlRefusalBound {
				t.Errorf("refused after %v, want under %v", took, samlRefusalBound)
			}
			wantStatus(t, w, http.StatusBadRequest, "Your sign-in could not be verified.")
			if h.refusals(tc.reason)-n != 1 {
				t.Errorf("refusal not counted as %s", tc.reason)
			}
		})
	}
}

// waitFor polls ok for up to 10 s.
func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached within 10 s")
		}
	}
}

// TestSAMLRefusedResponsesThrottled: an address whose responses to a
// tenant were refused 20 times in a minute gets the 429 page for that
// tenant's ACS before its body is read; other addresses and other tenants
// are served.
func TestSAMLRefusedResponsesThrottled(t *testing.T) {
	t.Parallel()
	h, idp, b := samlFixture(t, harnessOptions{})
	postFrom := func(host, remote, reqID string, form string) *httptest.ResponseRecorder {
		return do(b.app, request{method: http.MethodPost, host: host, path: "/sso/saml/acs", body: form, remote: remote,
			headers: map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Cookie": samlRequestCookie + "=" + reqID}})
	}
	_, reqID := b.samlStart(samlHost)
	bad := samlResponseForm(nestedXML(100)).Encode()
	for i := range 20 {
		if w := postFrom(samlHost, "198.51.100.7:1000", reqID, bad); w.Code != http.StatusBadRequest {
			t.Fatalf("refusal %d: %d", i+1, w.Code)
		}
	}
	n := h.refusals("saml_throttled")
	w := postFrom(samlHost, "198.51.100.7:1000", reqID, bad)
	wantStatus(t, w, http.StatusTooManyRequests, "Too many sign-in attempts from your network.")
	if ra := w.Header().Get("Retry-After"); ra == "" || ra == "0" || h.refusals("saml_throttled")-n != 1 {
		t.Fatalf("Retry-After %q, counted %v", ra, h.refusals("saml_throttled")-n)
	}
	t.Run("other tenants are served", func(t *testing.T) {
		_, reqB := b.samlStart(samlOtherHost)
		wantStatus(t, postFrom(samlOtherHost, "198.51.100.7:1000", reqB, bad), http.StatusBadRequest, "could not be verified")
	})
	t.Run("other addresses are served", func(t *testing.T) {
		c := newBrowser(t, b.app)
		redirect, reqID := c.samlStart(samlHost)
		w := postFrom(samlHost, "198.51.100.8:1000", reqID, idp.respond(redirect, "alice@example.test", nil).Encode())
		wantStatus(t, w, http.StatusSeeOther, "/learn")
	})
}

// TestTarpitBoundsItsWaiters: a throttled post waits, but at most slots
// of them at once; the others, and one whose client leaves, go on at once.
func TestTarpitBoundsItsWaiters(t *testing.T) {
	var tp tarpit
	first := make(chan struct{})
	go func() {
		tp.wait(context.Background(), time.Hour, 1)
		close(first)
	}()
	deadline := time.Now().Add(5 * time.Second)
	for tp.waiting(1) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the first waiter never took its slot")
		}
		time.Sleep(time.Millisecond)
	}
	done := make(chan struct{})
	go func() { tp.wait(context.Background(), time.Hour, 1); close(done) }()
	select {
	case <-done: // the one slot is taken: no wait
	case <-time.After(5 * time.Second):
		t.Fatal("a waiter beyond the slots was held")
	}
	select {
	case <-first:
		t.Fatal("the first waiter went on before its time")
	default:
	}
	ctx, cancel := context.WithCancel(context.Background())
	var solo tarpit
	left := make(chan struct{})
	go func() { solo.wait(ctx, time.Hour, 4); close(left) }()
	cancel()
	select {
	case <-left:
	case <-time.After(5 * time.Second):
		t.Fatal("a waiter whose client left was held")
	}
}
