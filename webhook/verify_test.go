package webhook_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"learngate/webhook"
	"learngate/webhook/webhooktest"
)

// vectorSecret and the rest are the Standard Webhooks reference vector.
const (
	vectorSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	vectorID     = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	vectorTS     = 1614265330
	vectorSig    = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
	vectorBody   = `{"test": 2432232314}`
)

func vectorHeader(id, ts, sig string) http.Header {
	h := http.Header{}
	for k, v := range map[string]string{webhook.HeaderID: id, webhook.HeaderTimestamp: ts, webhook.HeaderSignature: sig} {
		if v != "" {
			h.Set(k, v)
		}
	}
	return h
}

func TestVerify(t *testing.T) {
	at := time.Unix(vectorTS, 0)
	other := "whsec_" + strings.Repeat("A", 43) + "="
	tests := []struct {
		name    string
		secret  string
		header  http.Header
		body    string
		now     time.Time
		wantErr string // "" when the delivery verifies
	}{
		{"reference vector", vectorSecret, vectorHeader(vectorID, "1614265330", vectorSig), vectorBody, at, ""},
		{"4 min 59 s late", vectorSecret, vectorHeader(vectorID, "1614265330", vectorSig), vectorBody, at.Add(299 * time.Second), ""},
		{"clock 4 min behind", vectorSecret, vectorHeader(vectorID, "1614265330", vectorSig), vectorBody, at.Add(-4 * time.Minute), ""},
		{"rotation: second signature matches", vectorSecret,
			vectorHeader(vectorID, "1614265330", "v1,bm90IGl0 "+vectorSig), vectorBody, at, ""},
		{"other versions skipped", vectorSecret,
			vectorHeader(vectorID, "1614265330", "v1a,xyz "+vectorSig), vectorBody, at, ""},
		{"wrong secret", other, vectorHeader(vectorID, "1614265330", vectorSig), vectorBody, at,
			"no signature of webhook-signature matches the secret"},
		{"body changed", vectorSecret, vectorHeader(vectorID, "1614265330", vectorSig), `{"test": 2432232315}`, at,
			"no signature of webhook-signature matches the secret"},
		{"id changed", vectorSecret, vectorHeader("msg_other", "1614265330", vectorSig), vectorBody, at,
			"no signature of webhook-signature matches the secret"},
		{"signature without version", vectorSecret,
			vectorHeader(vectorID, "1614265330", strings.TrimPrefix(vectorSig, "v1,")), vectorBody, at,
			"no signature of webhook-signature matches the secret"},
		{"too old", vectorSecret, vectorHeader(vectorID, "1614265330", vectorSig), vectorBody, at.Add(6 * time.Minute),
			"webhook-timestamp 1614265330 is 6m0s away from now (more than 5m0s)"},
		{"from the future", vectorSecret, vectorHeader(vectorID, "1614265330", vectorSig), vectorBody, at.Add(-10 * time.Minute),
			"webhook-timestamp 1614265330 is 10m0s away from now (more than 5m0s)"},
		{"timestamp not a number", vectorSecret, vectorHeader(vectorID, "2021-02-25", vectorSig), vectorBody, at,
			`webhook-timestamp "2021-02-25" is not a Unix time in seconds`},
		{"no id", vectorSecret, vectorHeader("", "1614265330", vectorSig), vectorBody, at,
			"missing webhook-id, webhook-timestamp or webhook-signature header"},
		{"no signature", vectorSecret, vectorHeader(vectorID, "1614265330", ""), vectorBody, at,
			"missing webhook-id, webhook-timestamp or webhook-signature header"},
		{"malformed secret", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", vectorHeader(vectorID, "1614265330", vectorSig), vectorBody, at,
			"webhook secret does not start with whsec_"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := webhook.Verify(tt.secret, tt.header, []byte(tt.body), tt.now, webhook.DefaultTolerance)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Verify = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr):
				t.Fatalf("Verify = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// TestVerifyAgreesWithAnIndependentReceiver: what SignatureHeader sends
// (two secrets during a rotation) verifies with either secret by Verify and
// by webhooktest's check, written without package webhook.
func TestVerifyAgreesWithAnIndependentReceiver(t *testing.T) {
	cur, old := vectorSecret, "whsec_"+strings.Repeat("B", 43)+"="
	now := time.Now()
	body := []byte(`{"type":"ping","data":{}}`)
	sigs, err := webhook.SignatureHeader([]string{cur, old}, "evt_1", now.Unix(), body)
	if err != nil {
		t.Fatal(err)
	}
	h := vectorHeader("evt_1", strconv.FormatInt(now.Unix(), 10), sigs)
	for _, s := range []string{cur, old} {
		if err := webhook.Verify(s, h, body, now, webhook.DefaultTolerance); err != nil {
			t.Errorf("Verify with %s: %v", s[:10], err)
		}
	}
	got := webhooktest.VerifySignatures(t, webhooktest.Request{Header: h, Body: body}, cur, old)
	if len(got) != 2 || got[0] != cur || got[1] != old {
		t.Fatalf("independent check matched %d secrets", len(got))
	}
}
