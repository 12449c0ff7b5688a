package web

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/jmoiron/sqlx"
)

// logLines collects a Server's JSON log lines, safe for the goroutines of
// a test's requests.
type logLines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends one or more log lines.
func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// errorsOf returns the ERROR lines of request id.
func (l *logLines) errorsOf(t *testing.T, id string) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var found []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.buf.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if rec["level"] == "ERROR" && rec["request_id"] == id {
			found = append(found, rec)
		}
	}
	return found
}

// captureLogs makes h's server log into the returned lines.
func captureLogs(h *harness) *logLines {
	logs := &logLines{}
	h.gate.Logger = slog.New(slog.NewJSONHandler(logs, nil))
	return logs
}

// wantErrorPage checks that w is the learner pages' 500 page, without
// any of leaks, and that its request was logged as an error exactly once;
// it returns that log line.
func wantErrorPage(t *testing.T, w interface {
	Result() *http.Response
}, logs *logLines, leaks ...string) map[string]any {
	t.Helper()
	resp := w.Result()
	body := readAll(resp)
	if resp.StatusCode != http.StatusInternalServerError || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("status %d, Content-Type %q, body %s; want the 500 page", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if !strings.HasPrefix(body, "<!DOCTYPE html>") || !strings.Contains(body, `<p class="notice" role="alert">Something went wrong. Please try again.</p>`) ||
		!strings.Contains(body, `<a href="/login">Sign in</a>`) {
		t.Fatalf("not the error page: %s", body)
	}
	if resp.Header.Get("Content-Security-Policy") == "" || resp.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("error page headers %v", resp.Header)
	}
	for _, leak := range leaks {
		if strings.Contains(body, leak) {
			t.Fatalf("the page shows %q: %s", leak, body)
		}
	}
	id := resp.Header.Get("X-Request-Id")
	lines := logs.errorsOf(t, id)
	if id == "" || len(lines) != 1 {
		t.Fatalf("request %q logged %d errors, want 1: %v", id, len(lines), lines)
	}
	return lines[0]
}

// TestLearnerPagePanicIsAPage: a learner page that panics answers the 500
// page (HTML, nothing of the panic) through the real router, logged once
// with its request id; an API route's panic stays JSON.
func TestLearnerPagePanicIsAPage(t *testing.T) {
	t.Parallel()
	h, _ := passwordFixture(t)
	logs := captureLogs(h)
	r := h.pagesRouter(t)
	// Test-only routes: the router's own middleware and recovery, and a
	// handler that panics.
	boom := func(*gin.Context) { panic("pq: secret internal detail") }
	r.GET("/learn/test-panic", boom)
	r.GET("/sso/test-panic", boom)
	r.GET("/papi/test-panic", boom)

	for _, path := range []string{"/learn/test-panic", "/sso/test-panic"} {
		line := wantErrorPage(t, do(r, request{method: http.MethodGet, host: pwHost, path: path}), logs, "secret", "pq:", "panic")
		if line["msg"] != "panic" || line["panic"] != "pq: secret internal detail" {
			t.Fatalf("%s logged %v", path, line)
		}
	}
	w := do(r, request{method: http.MethodGet, host: pwHost, path: "/papi/test-panic"})
	if w.Code != http.StatusInternalServerError || w.Body.String() != `{"error":"internal error"}` {
		t.Fatalf("API panic: %d %s", w.Code, w.Body.String())
	}
}

// TestLearnerPageInternalErrorIsAPage: My learning failing inside (its
// tenant lost a table) answers the 500 page, logged once with the cause
// for the operator; the other tenant's learner is not affected.
func TestLearnerPageInternalErrorIsAPage(t *testing.T) {
	t.Parallel()
	h, b := passwordFixture(t)
	logs := captureLogs(h)
	setPasswordLogin(t, h, "pwb", true)
	wantStatus(t, b.passwordPost(pwHost, "alice", "correct horse"), http.StatusSeeOther, "/learn")
	other := newBrowser(t, b.app)
	wantStatus(t, other.passwordPost(pwOtherHost, "alice", "correct horse"), http.StatusSeeOther, "/learn")
	wantStatus(t, b.do(http.MethodGet, pwHost, "/learn", nil), http.StatusOK, "Signed in as Ada alice")

	if err := tenantHandle(t, h, "pwa").Tx(context.Background(), func(tx *sqlx.Tx) error {
		_, err := tx.Exec(`DROP TABLE topic_enrolments CASCADE`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	line := wantErrorPage(t, b.do(http.MethodGet, pwHost, "/learn", nil), logs, "topic_enrolments", "relation", "pq:")
	if line["msg"] != "learner page failed" || !strings.Contains(line["err"].(string), "topic_enrolments") {
		t.Fatalf("logged %v, want the cause", line)
	}
	wantStatus(t, other.do(http.MethodGet, pwOtherHost, "/learn", nil), http.StatusOK, "Signed in as Ada alice")
}
