package secrets

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

// rawKey is a test key of n bytes, all b.
func rawKey(b byte, n int) []byte { return bytes.Repeat([]byte{b}, n) }

// b64 is raw in standard base64.
func b64(raw []byte) string { return base64.StdEncoding.EncodeToString(raw) }

func TestEncryptDecrypt(t *testing.T) {
	k, err := ParseKeyring(b64(rawKey(1, 32)))
	if err != nil {
		t.Fatal(err)
	}
	const secret = "whsec_c2VjcmV0IHRoYXQgbXVzdCBub3QgbGVhaw"
	a, err := k.Encrypt(secret)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := k.Encrypt(secret)
	if a == b {
		t.Fatal("two encryptions of one secret are equal: the nonce is not random")
	}
	for _, v := range []string{a, b} {
		if !IsEncrypted(v) || !strings.HasPrefix(v, Prefix+k.KeyIDs()[0]+":") {
			t.Fatalf("value %q lacks the format prefix and key id", v)
		}
		if strings.Contains(v, secret) || strings.Contains(v, "c2VjcmV0") {
			t.Fatalf("value %q shows the plain text", v)
		}
		got, err := k.Decrypt(v)
		if err != nil || got != secret {
			t.Fatalf("Decrypt = %q, %v; want the secret", got, err)
		}
	}
	if _, err := k.Decrypt(secret); !errors.Is(err, ErrNotEncrypted) {
		t.Fatalf("Decrypt(plain text) = %v, want ErrNotEncrypted", err)
	}
}

// TestRotation: the new key first, the old one second. Old values still
// decrypt, new ones are made with the new key, and a keyring with only the
// old key cannot read them.
func TestRotation(t *testing.T) {
	oldKey, newKey := b64(rawKey(1, 32)), b64(rawKey(2, 48))
	before, _ := ParseKeyring(oldKey)
	old, err := before.Encrypt("whsec_old")
	if err != nil {
		t.Fatal(err)
	}
	rotated, err := ParseKeyring(newKey + ", " + oldKey)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := rotated.Decrypt(old); err != nil || got != "whsec_old" {
		t.Fatalf("rotated keyring reads the old value as %q, %v", got, err)
	}
	fresh, _ := rotated.Encrypt("whsec_new")
	if !strings.HasPrefix(fresh, Prefix+rotated.KeyIDs()[0]+":") || rotated.KeyIDs()[0] == before.KeyIDs()[0] {
		t.Fatalf("new value %q is not made with the new key (ids %v, old %v)", fresh, rotated.KeyIDs(), before.KeyIDs())
	}
	if rotated.KeyIDs()[1] != before.KeyIDs()[0] {
		t.Fatalf("key ids %v: the old key's id must stay %s", rotated.KeyIDs(), before.KeyIDs()[0])
	}
	_, err = before.Decrypt(fresh)
	if !errors.Is(err, ErrUnknownKey) || !strings.Contains(err.Error(), rotated.KeyIDs()[0]) {
		t.Fatalf("old keyring on a new value: %v, want ErrUnknownKey naming key id %s", err, rotated.KeyIDs()[0])
	}
}

// TestWrongKeyFailsClearly: a value with a known key id but altered, and a
// value whose key is missing, fail with errors that say so.
func TestWrongKeyFailsClearly(t *testing.T) {
	k, _ := ParseKeyring(b64(rawKey(1, 32)))
	v, _ := k.Encrypt("whsec_x")
	wrong, _ := ParseKeyring(b64(rawKey(9, 32)))
	if _, err := wrong.Decrypt(v); !errors.Is(err, ErrUnknownKey) || !strings.Contains(err.Error(), k.KeyIDs()[0]) {
		t.Fatalf("wrong key: %v", err)
	}
	tampered := v[:len(v)-2] + map[bool]string{true: "AA", false: "BB"}[!strings.HasSuffix(v, "AA")]
	if _, err := k.Decrypt(tampered); !errors.Is(err, ErrDecrypt) {
		t.Fatalf("altered value: %v, want ErrDecrypt", err)
	}
	// A header moved to another key id does not open either (it is authenticated).
	other, _ := ParseKeyring(b64(rawKey(1, 32)) + "," + b64(rawKey(3, 32)))
	moved := strings.Replace(v, k.KeyIDs()[0], other.KeyIDs()[1], 1)
	if _, err := other.Decrypt(moved); !errors.Is(err, ErrDecrypt) {
		t.Fatalf("value under another key id: %v, want ErrDecrypt", err)
	}
	for _, bad := range []string{Prefix, Prefix + "nokeyid", Prefix + k.KeyIDs()[0] + ":!!!", Prefix + k.KeyIDs()[0] + ":AAAA"} {
		if _, err := k.Decrypt(bad); !errors.Is(err, ErrDecrypt) && !errors.Is(err, ErrUnknownKey) {
			t.Errorf("Decrypt(%q) = %v, want a clear failure", bad, err)
		}
	}
}

func TestParseKeyring(t *testing.T) {
	raw := rawKey(7, 32)
	forms := []string{
		base64.StdEncoding.EncodeToString(raw), base64.RawStdEncoding.EncodeToString(raw),
		base64.URLEncoding.EncodeToString(raw), base64.RawURLEncoding.EncodeToString(raw),
	}
	for _, f := range forms {
		k, err := ParseKeyring(f)
		if err != nil || len(k.KeyIDs()) != 1 {
			t.Fatalf("ParseKeyring(%q) = %v", f, err)
		}
	}
	for name, c := range map[string]struct{ value, want string }{
		"empty":      {"", "key 1 is not base64"},
		"not base64": {"not*base64", "key 1 is not base64"},
		"short":      {b64(rawKey(1, 31)), "key 1 is 31 bytes; each key must be at least 32 random bytes, base64-encoded"},
		"second bad": {b64(rawKey(1, 32)) + ",", "key 2 is not base64"},
		"repeated":   {b64(rawKey(1, 32)) + "," + b64(rawKey(1, 32)), "key 2 repeats an earlier key"},
	} {
		_, err := ParseKeyring(c.value)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: err = %v, want %q", name, err, c.want)
		}
	}
}

// TestDevKeyring is deterministic: values made by one process decrypt in
// another, and it is not the key of any real configuration.
func TestDevKeyring(t *testing.T) {
	v, err := DevKeyring().Encrypt("whsec_dev")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := DevKeyring().Decrypt(v); err != nil || got != "whsec_dev" {
		t.Fatalf("dev keyring: %q, %v", got, err)
	}
	if DevKeyring().KeyIDs()[0] != DevKeyring().KeyIDs()[0] {
		t.Fatal("dev key id changes")
	}
}
