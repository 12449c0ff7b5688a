package webhook_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"learngate/webhook"
)

// The Standard Webhooks reference vector: a receiver's library verifies
// what we send only if we reproduce it exactly.
func TestSignMatchesTheStandardWebhooksVector(t *testing.T) {
	got, err := webhook.Sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek",
		1614265330, []byte(`{"test": 2432232314}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Fatalf("Sign = %q, want %q", got, want)
	}
}

func TestSignatureHeaderSignsWithEverySecret(t *testing.T) {
	cur, old := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_"+base64.StdEncoding.EncodeToString([]byte("previous secret 0123456789abcd"))
	h, err := webhook.SignatureHeader([]string{cur, old}, "evt_1", 1700000000, []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(h, " ")
	a, _ := webhook.Sign(cur, "evt_1", 1700000000, []byte("{}"))
	b, _ := webhook.Sign(old, "evt_1", 1700000000, []byte("{}"))
	if len(parts) != 2 || parts[0] != a || parts[1] != b || a == b {
		t.Fatalf("header = %q, want %q and %q", h, a, b)
	}
	if _, err := webhook.SignatureHeader(nil, "evt_1", 1, nil); err == nil {
		t.Error("SignatureHeader without secrets succeeded")
	}
}

func TestSignRefusesMalformedSecrets(t *testing.T) {
	for _, s := range []string{"", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_", "whsec_not base64!"} {
		if _, err := webhook.Sign(s, "evt_1", 1, nil); err == nil {
			t.Errorf("Sign with secret %q succeeded", s)
		}
	}
}

func TestNewSecret(t *testing.T) {
	a, err := webhook.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := webhook.NewSecret()
	raw, ok := strings.CutPrefix(a, "whsec_")
	key, err := base64.StdEncoding.DecodeString(raw)
	if !ok || err != nil || len(key) != 32 {
		t.Fatalf("secret %q: want whsec_ and the base64 of 32 bytes", a)
	}
	if a == b {
		t.Fatal("two secrets are equal")
	}
}
