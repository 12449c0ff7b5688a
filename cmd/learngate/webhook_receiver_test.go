package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"learngate/webhook"
)

// lockedBuffer is a strings.Builder safe for the receiver's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startReceiver serves a webhook receiver on a free port of 127.0.0.1 and
// returns its URL and the channel its result arrives on.
func startReceiver(t *testing.T, secret string, count int, out io.Writer) (string, chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	done := make(chan error, 1)
	go func() { done <- serveWebhookReceiver(ctx, ln, secret, count, out) }()
	return "http://" + ln.Addr().String(), done
}

// post sends body to url with headers and returns the status and body.
func post(t *testing.T, url string, headers map[string]string, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// TestWebhookReceiver: a delivery signed as learngate signs it verifies
// (204); a changed body and a request without the headers are refused
// (401 with the reason); each is printed with its body; the receiver stops
// by itself after --count requests.
func TestWebhookReceiver(t *testing.T) {
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	var out lockedBuffer
	url, done := startReceiver(t, secret, 3, &out)

	body := `{"type":"ping","timestamp":"2026-01-01T00:00:00Z","data":{"id":1}}`
	ts := time.Now().Unix()
	sig, err := webhook.SignatureHeader([]string{secret}, "evt_1", ts, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	headers := map[string]string{"webhook-id": "evt_1", "webhook-timestamp": strconv.FormatInt(ts, 10), "webhook-signature": sig}
	if code, got := post(t, url+"/hooks", headers, body); code != 204 || got != "" {
		t.Fatalf("signed delivery = %d %q, want 204", code, got)
	}
	changed := strings.Replace(body, `"id":1`, `"id":2`, 1)
	if code, got := post(t, url+"/hooks", headers, changed); code != 401 ||
		got != "signature REFUSED: no signature of webhook-signature matches the secret\n" {
		t.Fatalf("changed body = %d %q, want 401", code, got)
	}
	if code, got := post(t, url+"/other?x=1", nil, "not json"); code != 401 ||
		got != "signature REFUSED: missing webhook-id, webhook-timestamp or webhook-signature header\n" {
		t.Fatalf("unsigned = %d %q, want 401", code, got)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("receiver: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the receiver did not stop after 3 requests")
	}
	want := "POST /hooks webhook-id=evt_1 type=ping: signature verified\n" + body + "\n" +
		"POST /hooks webhook-id=evt_1 type=ping: signature REFUSED: no signature of webhook-signature matches the secret\n" + changed + "\n" +
		"POST /other?x=1 webhook-id= type=-: signature REFUSED: missing webhook-id, webhook-timestamp or webhook-signature header\nnot json\n"
	if got := out.String(); got != want {
		t.Fatalf("printed\n%s\nwant\n%s", got, want)
	}
	if _, err := http.Post(url+"/hooks", "application/json", strings.NewReader("{}")); err == nil {
		t.Fatal("the receiver still answers after stopping")
	}
}

// TestWebhookReceiverWithoutSecret answers 204 to anything and says the
// signature was not checked.
func TestWebhookReceiverWithoutSecret(t *testing.T) {
	var out lockedBuffer
	url, done := startReceiver(t, "", 1, &out)
	if code, _ := post(t, url+"/hooks", map[string]string{"webhook-id": "evt_9"}, `{"type":"user.created"}`); code != 204 {
		t.Fatalf("status %d, want 204", code)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if want := "POST /hooks webhook-id=evt_9 type=user.created: signature not checked (no --secret)\n{\"type\":\"user.created\"}\n"; out.String() != want {
		t.Fatalf("printed %q, want %q", out.String(), want)
	}
}

// TestWebhookReceiverFlags: bad flags are refused before listening, and a
// busy address is an error.
func TestWebhookReceiverFlags(t *testing.T) {
	clearServiceEnv(t)
	t.Setenv("LG_TEST_EMPTY", "")
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--secret", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}, "--secret: webhook secret does not start with whsec_"},
		{[]string{"--secret", "whsec_not base64!"}, "--secret: webhook secret is not base64 after whsec_"},
		{[]string{"--secret-env", "LG_TEST_EMPTY"}, "--secret-env LG_TEST_EMPTY: the variable is empty or not set"},
		{[]string{"--count", "-1"}, "--count must be 0 (no end) or more"},
		{[]string{"--addr", busy.Addr().String()}, "address already in use"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, err := run(t, append([]string{"webhook-receiver"}, tt.args...)...)
			if err == nil || !strings.Contains(message(err), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}
