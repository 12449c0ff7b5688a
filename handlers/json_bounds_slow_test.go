//go:build slow

package handlers

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"learngate/handlers/handlertest"
)

// TestBoundedDecodeRoutes sends every body route of both routers a body
// just past each bound (413 with the one body) and one just within them
// (anything but 413).
func TestBoundedDecodeRoutes(t *testing.T) {
	t.Parallel()
	e := newFuzzEnv(t)
	const tooLarge = `{"error":"request body too large"}`
	over := map[string]string{
		"100,001 values":    `{"name":` + handlertest.Array(99_998) + `}`,
		"depth 65":          `{"name":` + handlertest.Nested(64, true) + `}`,
		"depth 65 unclosed": `{"name":` + handlertest.Nested(64, false),
	}
	within := map[string]string{
		"100,000 values": `{"name":` + handlertest.Array(99_997) + `}`,
		"depth 64":       `{"name":` + handlertest.Nested(63, true) + `}`,
	}
	check := func(t *testing.T, send func(body string) *httptest.ResponseRecorder) {
		t.Helper()
		for name, body := range over {
			assertCase(t, name, send(body), http.StatusRequestEntityTooLarge, tooLarge)
		}
		for name, body := range within {
			if w := send(body); w.Code == http.StatusRequestEntityTooLarge || w.Code >= 500 {
				t.Fatalf("%s: %d %s", name, w.Code, w.Body.String())
			}
		}
	}
	for _, r := range bodyRoutes {
		t.Run(r.method+" "+r.path, func(t *testing.T) {
			before := e.fingerprint(t)
			check(t, func(body string) *httptest.ResponseRecorder { return e.send(t, e.bodyRequest(r, body)) })
			if e.fingerprint(t) != before {
				t.Fatal("refused bodies changed the tenant's rows")
			}
		})
	}
	for _, r := range opsBodyRoutes {
		if strings.HasSuffix(r.path, "/api_keys") {
			continue // takes no body and never reads one
		}
		t.Run(r.method+" "+r.path, func(t *testing.T) {
			check(t, func(body string) *httptest.ResponseRecorder {
				return e.h.opsCall(r.method, strings.Replace(r.path, "target", "fuzz", 1), body)
			})
		})
	}
}
