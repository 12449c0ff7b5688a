package handlers

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
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

// TestSAMLParseConcurrency: at most 4 SAML parses run at once; a fifth
// response waits for a slot, stops when its client leaves, and answers the
// "busy" page when none frees within the wait.
func TestSAMLParseConcurrency(t *testing.T) {
	t.Parallel()
	h, idp, b := samlFixture(t, harnessOptions{})
	var running, most, entered atomic.Int64
	release := make(chan struct{})
	h.server.samlParses.wait = 300 * time.Millisecond
	h.server.samlParses.hold = func() {
		now := running.Add(1)
		defer running.Add(-1)
		entered.Add(1)
		for old := most.Load(); now > old && !most.CompareAndSwap(old, now); old = most.Load() {
		}
		<-release
	}
	post := func(c *browser) func() *httptest.ResponseRecorder {
		redirect, reqID := c.samlStart(samlHost)
		form := idp.respond(redirect, "alice@example.test", nil)
		return func() *httptest.ResponseRecorder { return c.samlPost(samlHost, reqID, form) }
	}
	var sends []func() *httptest.ResponseRecorder
	for range 5 {
		sends = append(sends, post(newBrowser(t, b.app)))
	}
	codes := make([]int, 5)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() { codes[i] = sends[i]().Code })
	}
	waitFor(t, func() bool { return entered.Load() == 4 })

	t.Run("a fifth waits, and stops when its client leaves", func(t *testing.T) {
		n := h.refusals("saml_busy")
		redirect, reqID := b.samlStart(samlHost)
		form := idp.respond(redirect, "alice@example.test", nil)
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		r := httptest.NewRequestWithContext(ctx, http.MethodPost, "/sso/saml/acs", strings.NewReader(form.Encode()))
		r.Host = samlHost
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.Header.Set("Cookie", samlRequestCookie+"="+reqID)
		w := httptest.NewRecorder()
		began := time.Now()
		b.app.ServeHTTP(w, r)
		if took := time.Since(began); took > 250*time.Millisecond {
			t.Errorf("a left request waited %v for a slot", took)
		}
		if w.Code != http.StatusServiceUnavailable || entered.Load() != 4 || h.refusals("saml_busy")-n != 1 {
			t.Errorf("left request: %d, %d parses entered, want 503 and 4", w.Code, entered.Load())
		}
	})
	t.Run("no slot within the wait: busy page", func(t *testing.T) {
		began := time.Now()
		w := sends[4]()
		if took := time.Since(began); took < 250*time.Millisecond {
			t.Errorf("answered after %v, before the wait", took)
		}
		wantStatus(t, w, http.StatusServiceUnavailable, "Sign-in is busy. Please try again in a moment.")
		if w.Header().Get("Retry-After") != "5" || entered.Load() != 4 {
			t.Errorf("Retry-After %q, %d parses entered", w.Header().Get("Retry-After"), entered.Load())
		}
	})
	close(release)
	wg.Wait()
	for i, code := range codes[:4] {
		if code != http.StatusSeeOther {
			t.Errorf("held response %d answered %d, want 303", i, code)
		}
	}
	if most.Load() != samlParseSlots {
		t.Errorf("at most %d parses ran at once, want %d", most.Load(), samlParseSlots)
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
