package webhook_test

import (
	"context"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"learngate/webhook"
	"learngate/webhook/webhooktest"
)

// ipLike matches anything that looks like an IPv4 or IPv6 address.
var ipLike = regexp.MustCompile(`\d+\.\d+\.\d+\.\d+|[0-9a-fA-F]*:[0-9a-fA-F]*:[0-9a-fA-F:]*`)

// closedPort returns an address on 127.0.0.1 where nothing listens.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// closingServer accepts connections, reads the request's first bytes and
// closes them without answering.
func closingServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			_, _ = c.Read(make([]byte, 64))
			c.Close()
		}
	}()
	return l.Addr().String()
}

// A failed attempt's Reason is a fixed text that names no address (of the
// resolver least of all); Err keeps the detail for the log.
func TestSendGivesAFixedReason(t *testing.T) {
	release := make(chan struct{})
	slow, _ := countingServer(t, false, func(w http.ResponseWriter, r *http.Request) { <-release })
	defer close(release)
	badCert, _ := countingServer(t, true, func(w http.ResponseWriter, r *http.Request) {})
	plain, _ := countingServer(t, false, func(w http.ResponseWriter, r *http.Request) {})
	failing, _ := countingServer(t, false, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) })
	redirect, _ := countingServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/elsewhere", http.StatusFound)
	})
	relaxed := webhook.Policy{AllowPrivate: true, Resolver: webhooktest.NXDomainResolver(t)}
	strict := webhook.Policy{Resolver: webhooktest.NXDomainResolver(t)}
	for _, c := range []struct {
		name, url string
		policy    webhook.Policy
		want      string
		// detail is in Err, for the operators' log.
		detail string
	}{
		{"unresolvable", "https://hooks.does-not-exist.example/h", relaxed, "could not resolve host", "no such host"},
		{"closed port", "http://" + closedPort(t) + "/h", relaxed, "connection refused", "connection refused"},
		{"bad certificate", badCert.URL + "/h", relaxed, "TLS error", "certificate"},
		// net/http replaces the TLS record error by a plain one: the fallback.
		{"not TLS", strings.Replace(plain.URL, "http:", "https:", 1) + "/h", relaxed, "delivery failed", "HTTP response"},
		{"slow", slow.URL + "/h", relaxed, "timed out", "timed out"},
		// Closed with the request partly unread: a reset (or EOF, by timing).
		{"closed without answer", "http://" + closingServer(t) + "/h", relaxed, "connection reset", ""},
		{"refused address", "https://[2001::1]/h", strict, "refused address", "2001::1 is not allowed (Teredo address)"},
		{"refused after resolution", "https://localhost:1/h", strict, "refused address", "is not allowed (loopback address)"},
		{"refused 6to4 relay", "https://192.88.99.1/h", strict, "refused address", "is not allowed (6to4 relay address)"},
		{"refused NAT64", "https://[64:ff9b:1::1]/h", strict, "refused address", "is not allowed (NAT64 address)"},
		{"metadata", "http://169.254.169.254/", relaxed, "refused address", "cloud metadata"},
		{"http", "http://hooks.example.com/h", strict, "url must use https", "url must use https"},
		{"HTTP 503", failing.URL + "/h", relaxed, "HTTP 503", "HTTP 503"},
		{"redirect", redirect.URL + "/h", relaxed, "HTTP 302: redirects are not followed", "HTTP 302"},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Only "slow" is about the timeout; the others get one no loaded
			// machine reaches (a TLS handshake took over 300 ms under make test).
			timeout := 10 * time.Second
			if c.name == "slow" {
				timeout = 300 * time.Millisecond
			}
			start := time.Now()
			res := webhook.NewSender(c.policy, timeout).Send(context.Background(), message(c.url))
			if res.Reason != c.want {
				t.Errorf("Reason %q, want %q (err %v)", res.Reason, c.want, res.Err)
			}
			if ipLike.MatchString(res.Reason) {
				t.Errorf("Reason %q names an address", res.Reason)
			}
			if res.Err == nil || !strings.Contains(res.Err.Error(), c.detail) {
				t.Errorf("Err %v, want it to say %q", res.Err, c.detail)
			}
			if time.Since(start) > timeout+5*time.Second {
				t.Errorf("took %s", time.Since(start))
			}
		})
	}
	// A success has no reason.
	ok, _ := countingServer(t, false, func(w http.ResponseWriter, r *http.Request) {})
	if res := webhook.NewSender(relaxed, 0).Send(context.Background(), message(ok.URL)); res.Err != nil || res.Reason != "" {
		t.Fatalf("success: %+v", res)
	}
}

// Reason classifies by error type, whatever the error's text.
func TestReasonOfWrappedErrors(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&net.DNSError{Err: "no such host", Name: "x", Server: "10.255.255.53:53", IsNotFound: true}, "could not resolve host"},
		{&net.OpError{Op: "dial", Net: "tcp", Err: &webhook.AddressError{What: "a private"}}, "refused address"},
		{context.DeadlineExceeded, "timed out"},
		{&net.OpError{Op: "read", Err: errTimeout{}}, "timed out"},
		{net.ErrClosed, "delivery failed"},
	} {
		if got := webhook.Reason(context.Background(), c.err); got != c.want {
			t.Errorf("Reason(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}

// errTimeout is a net.Error that timed out.
type errTimeout struct{}

func (errTimeout) Error() string   { return "i/o timeout on 10.1.2.3:443" }
func (errTimeout) Timeout() bool   { return true }
func (errTimeout) Temporary() bool { return true }
