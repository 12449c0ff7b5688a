//go:build slow

package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

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
