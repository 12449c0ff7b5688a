// Package webhooktest is a webhook receiver for tests: an HTTP server on
// 127.0.0.1 that records what it gets and answers as a test scripts it,
// and a Standard Webhooks signature check written apart from package
// webhook, as a customer's receiver would have it.
package webhooktest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Request is a request a Receiver got.
type Request struct {
	Header http.Header
	Body   []byte
	At     time.Time
}

// ID is the request's webhook-id.
func (r Request) ID() string { return r.Header.Get("webhook-id") }

// Event decodes the request's body, a JSON object.
func (r Request) Event(tb testing.TB) map[string]json.RawMessage {
	tb.Helper()
	var ev map[string]json.RawMessage
	if err := json.Unmarshal(r.Body, &ev); err != nil {
		tb.Fatalf("body %s: %v", r.Body, err)
	}
	return ev
}

// Field returns a string field of the request's body.
func (r Request) Field(tb testing.TB, name string) string {
	tb.Helper()
	var s string
	if err := json.Unmarshal(r.Event(tb)[name], &s); err != nil {
		tb.Fatalf("%s of %s: %v", name, r.Body, err)
	}
	return s
}

// AssertEvent checks that r is an event of type typ of organisation org,
// signed once with secret, whose id is its webhook-id header and whose
// data is exactly want.
func AssertEvent(tb testing.TB, r Request, secret, typ, org, want string) {
	tb.Helper()
	if len(VerifySignatures(tb, r, secret)) != 1 {
		tb.Fatalf("%s: the signature does not verify", typ)
	}
	if r.Field(tb, "type") != typ || r.Field(tb, "organisation") != org || r.Field(tb, "id") != r.ID() {
		tb.Fatalf("event %s, want type %s of %s", r.Body, typ, org)
	}
	if got := string(r.Event(tb)["data"]); got != want {
		tb.Fatalf("%s data\n%s\nwant\n%s", typ, got, want)
	}
}

// Answer is how a Receiver answers one request.
type Answer struct {
	Status int
	Header map[string]string
	// Block holds the request until Unblock or until the client gives up.
	Block bool
}

// Receiver records the requests it gets and answers its n-th (0-based)
// with Script(n); 200 without a script.
type Receiver struct {
	srv    *httptest.Server
	script func(n int) Answer
	// Entered gets a value when a request starts to block.
	Entered chan struct{}

	mu      sync.Mutex
	got     []Request
	release chan struct{}
}

// NewReceiver starts a Receiver, closed when the test ends.
func NewReceiver(tb testing.TB, script func(n int) Answer) *Receiver {
	tb.Helper()
	rc := &Receiver{script: script, Entered: make(chan struct{}, 100), release: make(chan struct{})}
	rc.srv = httptest.NewServer(http.HandlerFunc(rc.serve))
	tb.Cleanup(func() {
		rc.Unblock()
		rc.srv.Close()
	})
	return rc
}

func (rc *Receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	n := len(rc.got)
	rc.got = append(rc.got, Request{Header: r.Header.Clone(), Body: body, At: time.Now()})
	release := rc.release
	rc.mu.Unlock()
	a := Answer{Status: http.StatusOK}
	if rc.script != nil {
		a = rc.script(n)
	}
	if a.Block {
		rc.Entered <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
	}
	for k, v := range a.Header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(a.Status)
}

// Unblock lets blocked requests go on.
func (rc *Receiver) Unblock() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	select {
	case <-rc.release:
	default:
		close(rc.release)
	}
}

// URL is the receiver's address followed by path.
func (rc *Receiver) URL(path string) string { return rc.srv.URL + path }

// Requests returns what the receiver got so far, in order.
func (rc *Receiver) Requests() []Request {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]Request(nil), rc.got...)
}

// Wait waits up to timeout for n requests and returns them all.
func (rc *Receiver) Wait(tb testing.TB, n int, timeout time.Duration) []Request {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for len(rc.Requests()) < n {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out after %s waiting for %d webhook requests (got %d)", timeout, n, len(rc.Requests()))
		}
		time.Sleep(20 * time.Millisecond)
	}
	return rc.Requests()
}

// VerifySignatures checks r the way a receiver does, without package
// webhook: the key is the base64 after "whsec_", the signed content
// "<webhook-id>.<webhook-timestamp>.<body>", the webhook-signature header a
// space-separated list of "v1,<base64 HMAC-SHA256>", and the timestamp
// within 5 minutes of now. It returns the secrets that verify, in the
// order of the header's signatures.
func VerifySignatures(tb testing.TB, r Request, secrets ...string) []string {
	tb.Helper()
	id, ts := r.Header.Get("webhook-id"), r.Header.Get("webhook-timestamp")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || time.Since(time.Unix(sec, 0)).Abs() > 5*time.Minute {
		tb.Fatalf("webhook-timestamp %q is not a recent Unix time", ts)
	}
	if id == "" {
		tb.Fatal("no webhook-id")
	}
	var matched []string
	for _, sig := range strings.Split(r.Header.Get("webhook-signature"), " ") {
		version, value, ok := strings.Cut(sig, ",")
		if !ok || version != "v1" {
			tb.Fatalf("signature %q is not v1,<base64>", sig)
		}
		given, err := base64.StdEncoding.DecodeString(value)
		if err != nil {
			tb.Fatalf("signature %q: %v", sig, err)
		}
		for _, secret := range secrets {
			key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
			if err != nil {
				tb.Fatalf("secret %q: %v", secret, err)
			}
			mac := hmac.New(sha256.New, key)
			mac.Write([]byte(id + "." + ts + "."))
			mac.Write(r.Body)
			if hmac.Equal(mac.Sum(nil), given) {
				matched = append(matched, secret)
			}
		}
	}
	return matched
}
