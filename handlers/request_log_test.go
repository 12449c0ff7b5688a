package handlers

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"learngate/handlers/httpx"
)

// TestRequestLogClientIP checks the client_ip of the request log line: the
// caller's address behind a trusted proxy (LEARNGATE_TRUSTED_PROXIES), and
// the connection's own address when the sender is not a trusted proxy,
// whatever X-Forwarded-For it sends.
func TestRequestLogClientIP(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	s := &Server{Gate: &httpx.Gate{Logger: slog.New(slog.NewJSONHandler(&logs, nil)), Metrics: httpx.NewMetrics()},
		TrustedProxies: []string{"10.0.0.1"}}
	public, err := s.PublicRouter()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, remote, forwarded, want string
	}{
		{"no proxy", "198.51.100.7:40000", "", "198.51.100.7"},
		{"trusted proxy", "10.0.0.1:40000", "203.0.113.9", "203.0.113.9"},
		{"trusted proxy, forged first hop", "10.0.0.1:40000", "192.0.2.66, 203.0.113.9", "203.0.113.9"},
		{"untrusted sender with a forged header", "198.51.100.7:40000", "203.0.113.9", "198.51.100.7"},
		{"ipv6", "[2001:db8::5]:40000", "", "2001:db8::5"},
	} {
		t.Run(c.name, func(t *testing.T) {
			logs.Reset()
			req := httptest.NewRequest(http.MethodGet, "/healthz", nil)
			req.RemoteAddr = c.remote
			if c.forwarded != "" {
				req.Header.Set("X-Forwarded-For", c.forwarded)
			}
			w := httptest.NewRecorder()
			public.ServeHTTP(w, req)
			if w.Code != http.StatusOK {
				t.Fatalf("GET /healthz: %d", w.Code)
			}
			var line struct {
				Msg      string `json:"msg"`
				Route    string `json:"route"`
				ClientIP string `json:"client_ip"`
			}
			if err := json.Unmarshal([]byte(strings.TrimSpace(logs.String())), &line); err != nil {
				t.Fatalf("log %q: %v", logs.String(), err)
			}
			if line.Msg != "request" || line.Route != "/healthz" || line.ClientIP != c.want {
				t.Fatalf("log line %+v, want client_ip %s", line, c.want)
			}
		})
	}
}
