package handlertest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
)

// Request describes one HTTP call to a router.
type Request struct {
	Method  string // default GET
	Host    string
	Path    string
	Body    string
	Headers map[string]string
	Remote  string // client address, default 192.0.2.1:1234
}

// Do sends r through router and returns the recorded response.
func Do(router http.Handler, r Request) *httptest.ResponseRecorder {
	var body io.Reader
	if r.Body != "" {
		body = strings.NewReader(r.Body)
	}
	if r.Method == "" {
		r.Method = http.MethodGet
	}
	req := httptest.NewRequest(r.Method, r.Path, body)
	if r.Host != "" {
		req.Host = r.Host
	}
	req.RemoteAddr = "192.0.2.1:1234"
	if r.Remote != "" {
		req.RemoteAddr = r.Remote
	}
	for k, v := range r.Headers {
		req.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	router.ServeHTTP(w, req)
	return w
}
