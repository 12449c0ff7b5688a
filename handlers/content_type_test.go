package handlers

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"learngate/webhook/webhooktest"
)

// bodylessPost sends an authenticated POST with no body and no
// Content-Type to ct's host.
func bodylessPost(ct catalogTenant, path string) *httptest.ResponseRecorder {
	return do(ct.h.public, request{method: http.MethodPost, host: ct.host, path: path,
		headers: map[string]string{"Authorization": ct.key}})
}

// The POST operations that take no body (rotate a secret, send a test
// event, retry a delivery) need no Content-Type when they send none: the
// 406 is for requests that carry a body (docs/api.md, "JSON").
func TestBodylessPostsNeedNoContentType(t *testing.T) {
	e := newHooksEnv(t)
	rc := webhooktest.NewReceiver(t, func(n int) webhooktest.Answer {
		if n == 0 {
			return webhooktest.Answer{Status: 500}
		}
		return webhooktest.Answer{Status: 204}
	})
	register(t, e.acme, `{"url":"`+rc.URL("/")+`","events":["*"]}`)

	if w := bodylessPost(e.acme, "/papi/webhooks/1/rotate_secret"); w.Code != http.StatusOK {
		t.Fatalf("rotate_secret without a body: %d %s", w.Code, w.Body.String())
	}
	if w := bodylessPost(e.acme, "/papi/webhooks/1/test"); w.Code != http.StatusAccepted {
		t.Fatalf("test without a body: %d %s", w.Code, w.Body.String())
	}
	rc.Wait(t, 1, 20*time.Second)
	waitStatus(t, e.acme, "failed")
	if w := bodylessPost(e.acme, "/papi/webhooks/1/deliveries/1/retry"); w.Code != http.StatusAccepted {
		t.Fatalf("retry without a body: %d %s", w.Code, w.Body.String())
	}
	rc.Wait(t, 2, 20*time.Second)
	waitStatus(t, e.acme, "succeeded")

	// The other tenant's bodyless calls reach the handler and find nothing.
	for _, path := range []string{"/papi/webhooks/1/rotate_secret", "/papi/webhooks/1/test", "/papi/webhooks/1/deliveries/1/retry"} {
		assertResponse(t, bodylessPost(e.other, path), http.StatusNotFound, notFoundBody)
	}
}

// Every POST and PUT of the Public API refuses a body that is not declared
// application/json, whether its length is given (Content-Length) or not
// (chunked), and whether the Content-Type is missing or another type; the
// same request without a body reaches the route.
func TestBodiesNeedJSONOnEveryRoute(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	key := h.createTenant("acme")
	param := regexp.MustCompile(`\{[a-z_]+\}`)
	var routes []string
	for _, r := range routerRoutes(t) {
		method, path, _ := strings.Cut(r, " ")
		if (method == http.MethodPost || method == http.MethodPut) && strings.HasPrefix(path, "/papi/") {
			routes = append(routes, method+" "+param.ReplaceAllString(path, "1"))
		}
	}
	if len(routes) < 20 {
		t.Fatalf("only %d POST and PUT routes found", len(routes))
	}
	for _, r := range routes {
		method, path, _ := strings.Cut(r, " ")
		// Without a body the Content-Type is not asked for: the route answers
		// (a 400 for a missing body, a 404 for an unknown id), never 406 or 5xx.
		w := do(h.public, request{method: method, host: "acme.learngate.localhost", path: path,
			headers: map[string]string{"Authorization": key}})
		if w.Code == http.StatusNotAcceptable || w.Code >= 500 {
			t.Errorf("%s without a body or Content-Type: %d %s", r, w.Code, w.Body.String())
		}
		for _, contentType := range []string{"", "text/plain", "application/x-www-form-urlencoded"} {
			for _, chunked := range []bool{false, true} {
				req := httptest.NewRequest(method, path, strings.NewReader(`{}`))
				req.Host = "acme.learngate.localhost"
				req.Header.Set("Authorization", key)
				if contentType != "" {
					req.Header.Set("Content-Type", contentType)
				}
				if chunked {
					req.ContentLength, req.TransferEncoding = -1, []string{"chunked"}
					req.Body = io.NopCloser(strings.NewReader(`{}`))
				}
				w := httptest.NewRecorder()
				h.public.ServeHTTP(w, req)
				if w.Code != http.StatusNotAcceptable || w.Body.String() != notJSONBody {
					t.Errorf("%s Content-Type %q chunked %v: %d %s, want 406", r, contentType, chunked, w.Code, w.Body.String())
				}
			}
		}
	}
}
