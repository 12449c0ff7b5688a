package tenant

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
)

func TestGenerateKey(t *testing.T) {
	t.Parallel()
	const n = 1000
	seen := make(map[string]bool, n)
	for range n {
		text, stored, err := GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		if seen[text] {
			t.Fatalf("key %s... generated twice", text[:11])
		}
		seen[text] = true
		body, ok := strings.CutPrefix(text, "lg_")
		if !ok {
			t.Fatalf("key %q... lacks the lg_ prefix", text[:3])
		}
		raw, err := base64.RawURLEncoding.DecodeString(body)
		if err != nil || len(raw) < 32 {
			t.Fatalf("key body is %d bytes (%v), want 32+ random bytes", len(raw), err)
		}
		if want := sha256.Sum256([]byte(text)); !bytes.Equal(stored.Hash, want[:]) {
			t.Fatalf("stored hash is not the SHA-256 of the key")
		}
		if !strings.HasPrefix(text, stored.Prefix) || !strings.HasPrefix(stored.Prefix, "lg_") || len(stored.Prefix) >= len(text)/2 {
			t.Fatalf("prefix %q is not a short start of the key", stored.Prefix)
		}
	}
}

func TestHashKeyIsSHA256(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want string
	}{
		{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := hex.EncodeToString(HashKey(tt.in)); got != tt.want {
				t.Fatalf("HashKey(%q) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}
