package webhook_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"learngate/webhook"
)

const testSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

func message(url string) webhook.Message {
	return webhook.Message{URL: url, ID: "evt_1", Timestamp: time.Unix(1700000000, 0),
		Body: []byte(`{"id":"evt_1"}`), Secrets: []string{testSecret}}
}

// countingServer answers every request with handler and counts them.
func countingServer(t *testing.T, tls bool, handler http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		handler(w, r)
	})
	srv := httptest.NewUnstartedServer(h)
	if tls {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestSendSignsWithTheStandardWebhooksHeaders(t *testing.T) {
	var got *http.Request
	var body []byte
	srv, _ := countingServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		got = r
		body, _ = io.ReadAll(r.Body)
		w.WriteHeader(http.StatusNoContent)
	})
	res := webhook.NewSender(webhook.Policy{AllowPrivate: true}, 0).Send(context.Background(), message(srv.URL+"/hook"))
	if res.Err != nil || res.StatusCode != 204 {
		t.Fatalf("result %+v, want 204", res)
	}
	// Verified the way a receiver would, without the package's code.
	key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(testSecret, "whsec_"))
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte("evt_1.1700000000." + string(body)))
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	for h, v := range map[string]string{"webhook-id": "evt_1", "webhook-timestamp": "1700000000",
		"webhook-signature": want, "Content-Type": "application/json", "User-Agent": "learngate-webhooks/1"} {
		if got.Header.Get(h) != v {
			t.Errorf("%s = %q, want %q", h, got.Header.Get(h), v)
		}
	}
	if got.Method != http.MethodPost || string(body) != `{"id":"evt_1"}` {
		t.Errorf("%s with body %s", got.Method, body)
	}
}

func TestSendRefusesPrivateAddressesWhenConnecting(t *testing.T) {
	srv, hits := countingServer(t, true, func(w http.ResponseWriter, r *http.Request) {})
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	sender := webhook.NewSender(webhook.Policy{}, 2*time.Second)
	for _, c := range []struct{ url, refused string }{
		// A name is resolved first; what it resolves to is refused.
		{"https://localhost:" + port + "/hook", "loopback address"},
		{"https://127.0.0.1:" + port + "/hook", "address 127.0.0.1 is not allowed (loopback address)"},
		{"https://[::1]:" + port + "/hook", "address ::1 is not allowed (loopback address)"},
		{"https://10.255.255.1/hook", "address 10.255.255.1 is not allowed (private address)"},
		{"https://169.254.169.254/latest/meta-data", "address 169.254.169.254 is not allowed (cloud metadata address)"},
		{"https://[fd00:ec2::254]/latest/meta-data", "address fd00:ec2::254 is not allowed (cloud metadata address)"},
		{"http://93.184.216.34/hook", "url must use https"},
	} {
		res := sender.Send(context.Background(), message(c.url))
		if res.Err == nil || !strings.Contains(res.Err.Error(), c.refused) || res.StatusCode != 0 {
			t.Errorf("%s: result %+v, want refused with %q", c.url, res, c.refused)
		}
		var addrErr *webhook.AddressError
		if strings.HasPrefix(c.refused, "url") == errors.As(res.Err, &addrErr) {
			t.Errorf("%s: error %T %v", c.url, res.Err, res.Err)
		}
	}
	if hits.Load() != 0 {
		t.Fatalf("the refused server got %d requests", hits.Load())
	}
	// Metadata addresses stay refused with AllowPrivate.
	res := webhook.NewSender(webhook.Policy{AllowPrivate: true}, time.Second).Send(context.Background(), message("http://169.254.169.254/"))
	if res.Err == nil || !strings.Contains(res.Err.Error(), "cloud metadata") {
		t.Fatalf("metadata with AllowPrivate: %+v", res)
	}
}

func TestSendDoesNotFollowRedirects(t *testing.T) {
	target, targetHits := countingServer(t, false, func(w http.ResponseWriter, r *http.Request) {})
	srv, _ := countingServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/elsewhere", http.StatusTemporaryRedirect)
	})
	res := webhook.NewSender(webhook.Policy{AllowPrivate: true}, 0).Send(context.Background(), message(srv.URL))
	if res.StatusCode != 307 || res.Err == nil || res.Err.Error() != "HTTP 307: redirects are not followed" {
		t.Fatalf("result %+v, want a failed 307", res)
	}
	if targetHits.Load() != 0 {
		t.Fatal("the redirect was followed")
	}
}

func TestSendReadsRetryAfter(t *testing.T) {
	now := time.Now()
	for _, c := range []struct {
		status int
		header string
		min    time.Duration
		max    time.Duration
	}{
		{429, "120", 120 * time.Second, 120 * time.Second},
		{503, now.Add(time.Hour).UTC().Format(http.TimeFormat), 58 * time.Minute, time.Hour},
		{503, "99999999", 24 * time.Hour, 24 * time.Hour},
		{503, "soon", 0, 0},
		{500, "", 0, 0},
		{429, "-5", 0, 0},
	} {
		srv, _ := countingServer(t, false, func(w http.ResponseWriter, r *http.Request) {
			if c.header != "" {
				w.Header().Set("Retry-After", c.header)
			}
			w.WriteHeader(c.status)
		})
		res := webhook.NewSender(webhook.Policy{AllowPrivate: true}, 0).Send(context.Background(), message(srv.URL))
		if res.StatusCode != c.status || res.Err == nil || res.RetryAfter < c.min || res.RetryAfter > c.max {
			t.Errorf("%d Retry-After %q: %+v, want RetryAfter in [%s, %s]", c.status, c.header, res, c.min, c.max)
		}
	}
}

func TestSendTimesOut(t *testing.T) {
	release := make(chan struct{})
	srv, _ := countingServer(t, false, func(w http.ResponseWriter, r *http.Request) { <-release })
	defer close(release)
	start := time.Now()
	res := webhook.NewSender(webhook.Policy{AllowPrivate: true}, 200*time.Millisecond).Send(context.Background(), message(srv.URL))
	if res.Err == nil || res.Err.Error() != "timed out after 200ms" || time.Since(start) > 5*time.Second {
		t.Fatalf("result %+v after %s, want a timeout", res, time.Since(start))
	}
}
