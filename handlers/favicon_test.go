package handlers

import (
	"bytes"
	"net/http"
	"os"
	"testing"
)

// TestFavicon (issue 27): /favicon.ico answers the embedded icon on every
// host, a tenant's, an unknown one and a bare address alike (it passes no
// tenant lookup), with its content type and a day's cache; never 404.
func TestFavicon(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.createTenant("acme")
	// The icon httpx embeds.
	faviconICO, err := os.ReadFile("httpx/favicon.ico")
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"acme.learngate.localhost", "nobody.learngate.localhost", "203.0.113.7:8080"} {
		t.Run(host, func(t *testing.T) {
			w := do(h.public, request{method: http.MethodGet, host: host, path: "/favicon.ico"})
			if w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), faviconICO) || len(faviconICO) < 22 {
				t.Fatalf("GET /favicon.ico = %d, %d bytes", w.Code, w.Body.Len())
			}
			for k, v := range map[string]string{
				"Content-Type":           "image/x-icon",
				"Cache-Control":          "public, max-age=86400",
				"X-Content-Type-Options": "nosniff",
			} {
				if got := w.Header().Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
		})
	}
}
