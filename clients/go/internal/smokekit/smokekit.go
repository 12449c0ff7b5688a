// Package smokekit holds what the Go smoke tests of `make clients` share,
// whichever generator made their client: the organisation's Host on every
// request, a local receiver of webhook deliveries, the Standard Webhooks
// signature check, and the cursor of a list page's `Link: rel="next"`.
package smokekit

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Step fails unless a response has the status wanted, and prints the step
// under the client's name otherwise.
func Step(client, step string, got int, body []byte, want int) error {
	if got != want {
		return fmt.Errorf("%s: status %d, want %d: %s", step, got, want, body)
	}
	fmt.Printf("%s: %s: %d\n", client, step, got)
	return nil
}

// HostClient is an http.Client that sends every request to the server it
// names with Host set to host: the organisation is chosen by Host, and the
// server listens on 127.0.0.1.
func HostClient(host string) *http.Client {
	return &http.Client{Timeout: 30 * time.Second, Transport: hostTransport{host: host, next: http.DefaultTransport}}
}

// hostTransport sets Host on each request it sends.
type hostTransport struct {
	host string
	next http.RoundTripper
}

// RoundTrip sends a copy of r with the organisation's Host.
func (t hostTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Host = t.host
	return t.next.RoundTrip(r)
}

// Delivery is one webhook request as the receiver got it.
type Delivery struct {
	Header http.Header
	Body   []byte
}

// Receiver is a local HTTP server that keeps every webhook delivery.
type Receiver struct {
	// URL is where deliveries go: http://127.0.0.1:<port>/hook.
	URL        string
	deliveries chan Delivery
	srv        *http.Server
}

// NewReceiver starts a receiver on a free port of 127.0.0.1.
func NewReceiver() (*Receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &Receiver{URL: "http://" + ln.Addr().String() + "/hook", deliveries: make(chan Delivery, 16)}
	r.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(req.Body, 1<<20))
		select {
		case r.deliveries <- Delivery{Header: req.Header.Clone(), Body: body}:
		default:
		}
		w.WriteHeader(http.StatusNoContent)
	}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

// Next waits for the next delivery.
func (r *Receiver) Next(ctx context.Context) (Delivery, error) {
	select {
	case d := <-r.deliveries:
		return d, nil
	case <-ctx.Done():
		return Delivery{}, fmt.Errorf("no webhook delivery arrived: %w", ctx.Err())
	}
}

// Close stops the receiver.
func (r *Receiver) Close() error { return r.srv.Close() }

// Verify checks a Standard Webhooks signature: HMAC-SHA256 over
// "<webhook-id>.<webhook-timestamp>.<body>" keyed with the base64 part of
// the secret after whsec_.
func Verify(secret string, h http.Header, body []byte) error {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return fmt.Errorf("secret: %w", err)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(h.Get("webhook-id") + "." + h.Get("webhook-timestamp") + "."))
	mac.Write(body)
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	if !slices.Contains(strings.Fields(h.Get("webhook-signature")), want) {
		return fmt.Errorf("webhook-signature %q does not verify", h.Get("webhook-signature"))
	}
	return nil
}

// nextLink finds the URL of rel="next" in a Link header.
var nextLink = regexp.MustCompile(`<([^>]+)>; rel="next"`)

// NextCursor returns the cursor of the next page a Link header names, and
// false on the last page (no rel="next"). The cursor is taken from the
// link, never built.
func NextCursor(link string) (string, bool, error) {
	m := nextLink.FindStringSubmatch(link)
	if m == nil {
		return "", false, nil
	}
	u, err := url.Parse(m[1])
	if err != nil {
		return "", false, fmt.Errorf("link %q: %w", link, err)
	}
	cursor := u.Query().Get("cursor")
	if cursor == "" {
		return "", false, fmt.Errorf("link %q: rel=next without a cursor", link)
	}
	return cursor, true, nil
}

// Walk follows a list from its first page: page fetches the page at cursor
// ("" for the first) and returns its Link header and its records' names.
// It fails after max pages, so a link that never ends cannot loop.
func Walk(max int, page func(cursor string) (link string, names []string, err error)) ([]string, error) {
	var all []string
	cursor := ""
	for range max {
		link, names, err := page(cursor)
		if err != nil {
			return nil, err
		}
		all = append(all, names...)
		next, ok, err := NextCursor(link)
		if err != nil || !ok {
			return all, err
		}
		cursor = next
	}
	return nil, fmt.Errorf("the list did not end within %d pages: %v", max, all)
}
