package handlers

import (
	"net/http"
	"testing"
)

// TestStrictTransportSecurity (issue 27, finding 7): under the public
// scheme https every answer of the public listener carries
// Strict-Transport-Security, the HTML pages (learner pages, /docs) and
// their redirects first; under http none does.
func TestStrictTransportSecurity(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.createTenant("acme")
	for _, c := range []struct{ scheme, want string }{
		{"https", "max-age=31536000"},
		{"http", ""},
	} {
		t.Run(c.scheme, func(t *testing.T) {
			h.server.PublicScheme = c.scheme
			router, err := h.server.PublicRouter()
			if err != nil {
				t.Fatal(err)
			}
			for _, path := range []string{"/login", "/learn", "/logout", "/docs", "/favicon.ico", "/papi/ping"} {
				for _, host := range []string{"acme.learngate.localhost", "nobody.learngate.localhost"} {
					w := do(router, request{method: http.MethodGet, host: host, path: path})
					if got := w.Header().Get("Strict-Transport-Security"); got != c.want {
						t.Errorf("GET %s on %s (%d): Strict-Transport-Security = %q, want %q", path, host, w.Code, got, c.want)
					}
				}
			}
		})
	}
}
