package jobs_test

import (
	"context"
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

	"learngate/jobs"
	"learngate/store"
	"learngate/webhook"
)

// allowPrivate is the policy of the tests' local receivers.
var allowPrivate = webhook.Policy{AllowPrivate: true}

// quickRetries replace the hours of DECISIONS.md section 10 in tests: the
// same number of attempts (8), a few milliseconds apart.
var quickRetries = []time.Duration{
	50 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond,
	50 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond,
}

// delivery is a request a receiver got.
type delivery struct {
	Header http.Header
	Body   []byte
	At     time.Time
}

// event decodes the delivery's body.
func (d delivery) event(t *testing.T) map[string]json.RawMessage {
	t.Helper()
	var ev map[string]json.RawMessage
	if err := json.Unmarshal(d.Body, &ev); err != nil {
		t.Fatalf("body %s: %v", d.Body, err)
	}
	return ev
}

// field returns a string field of the delivery's body.
func (d delivery) field(t *testing.T, name string) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(d.event(t)[name], &s); err != nil {
		t.Fatalf("%s of %s: %v", name, d.Body, err)
	}
	return s
}

// answer is how a receiver answers one request.
type answer struct {
	status int
	header map[string]string
	// block holds the request until the test releases it or the client goes.
	block bool
}

// receiver is an HTTP server on 127.0.0.1 that records what it gets and
// answers with script(n) for its n-th request (0-based); 200 by default.
type receiver struct {
	srv     *httptest.Server
	mu      sync.Mutex
	got     []delivery
	script  func(n int) answer
	entered chan struct{}
	release chan struct{}
}

func newReceiver(t *testing.T, script func(n int) answer) *receiver {
	t.Helper()
	rc := &receiver{script: script, entered: make(chan struct{}, 100), release: make(chan struct{})}
	rc.srv = httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(func() {
		rc.unblock()
		rc.srv.Close()
	})
	return rc
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	n := len(rc.got)
	rc.got = append(rc.got, delivery{Header: r.Header.Clone(), Body: body, At: time.Now()})
	rc.mu.Unlock()
	a := answer{status: http.StatusOK}
	if rc.script != nil {
		a = rc.script(n)
	}
	if a.block {
		rc.entered <- struct{}{}
		select {
		case <-rc.release:
		case <-r.Context().Done():
			return
		}
	}
	for k, v := range a.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(a.status)
}

// unblock lets blocked requests go on.
func (rc *receiver) unblock() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	select {
	case <-rc.release:
	default:
		close(rc.release)
	}
}

// URL is the receiver's address with path.
func (rc *receiver) URL(path string) string { return rc.srv.URL + path }

// deliveries returns what the receiver got so far.
func (rc *receiver) deliveries() []delivery {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]delivery(nil), rc.got...)
}

// wait waits until the receiver got n requests and returns them.
func (rc *receiver) wait(t *testing.T, n int, timeout time.Duration) []delivery {
	t.Helper()
	waitFor(t, timeout, strconv.Itoa(n)+" webhook requests", func() bool { return len(rc.deliveries()) >= n })
	return rc.deliveries()
}

// verifySignatures checks d the way a receiver does, with an implementation
// of the Standard Webhooks verification independent of package webhook:
// the key is the base64 after whsec_, the signed content "id.timestamp.body",
// the header a space-separated list of "v1,<base64 HMAC-SHA256>". It returns
// which of secrets verify, in the order of the header's signatures.
func verifySignatures(t *testing.T, d delivery, secrets ...string) []string {
	t.Helper()
	id, ts := d.Header.Get("webhook-id"), d.Header.Get("webhook-timestamp")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || time.Since(time.Unix(sec, 0)).Abs() > 5*time.Minute {
		t.Fatalf("webhook-timestamp %q is not a recent Unix time", ts)
	}
	var matched []string
	for _, sig := range strings.Split(d.Header.Get("webhook-signature"), " ") {
		version, value, ok := strings.Cut(sig, ",")
		if !ok || version != "v1" {
			t.Fatalf("signature %q is not v1,<base64>", sig)
		}
		given, err := base64.StdEncoding.DecodeString(value)
		if err != nil {
			t.Fatalf("signature %q: %v", sig, err)
		}
		for _, secret := range secrets {
			key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
			if err != nil {
				t.Fatalf("secret %q: %v", secret, err)
			}
			mac := hmac.New(sha256.New, key)
			mac.Write([]byte(id + "." + ts + "."))
			mac.Write(d.Body)
			if hmac.Equal(mac.Sum(nil), given) {
				matched = append(matched, secret)
			}
		}
	}
	return matched
}

// newWebhook registers an endpoint of tdb for events at url.
func newWebhook(t *testing.T, tdb *store.TenantDB, url string, events ...string) store.Webhook {
	t.Helper()
	w, err := store.CreateWebhook(context.Background(), tdb, store.WebhookInput{URL: &url, Events: events}, allowPrivate, time.Now())
	if err != nil {
		t.Fatalf("create webhook: %v", err)
	}
	return w
}

// webhookWorker starts a worker for the webhook tests: private addresses
// allowed, and quick retries unless cfg gives some.
func webhookWorker(t *testing.T, cfg jobs.Config) *runningWorker {
	t.Helper()
	cfg.WebhookPolicy = allowPrivate
	if cfg.WebhookRetries == nil {
		cfg.WebhookRetries = quickRetries
	}
	return startWorker(t, cfg)
}

// listDeliveries returns the deliveries of webhook id, newest first.
func listDeliveries(t *testing.T, tdb *store.TenantDB, id int64) []store.Delivery {
	t.Helper()
	ds, _, err := store.ListWebhookDeliveries(context.Background(), tdb, id, store.Page{Number: 1, Size: 100})
	if err != nil {
		t.Fatalf("list deliveries: %v", err)
	}
	return ds
}

// waitDelivery waits until the newest delivery of webhook id has status.
func waitDelivery(t *testing.T, tdb *store.TenantDB, id int64, status string) store.Delivery {
	t.Helper()
	var d store.Delivery
	waitFor(t, 20*time.Second, "a "+status+" delivery", func() bool {
		ds := listDeliveries(t, tdb, id)
		if len(ds) == 0 {
			return false
		}
		d = ds[0]
		return d.Status == status
	})
	return d
}

// jsonMarshal and jsonUnmarshal are encoding/json's, named for the tests' reading.
var (
	jsonMarshal   = json.Marshal
	jsonUnmarshal = json.Unmarshal
)
