// Package secrets encrypts secrets kept at rest (webhook signing secrets)
// with AES-256-GCM under the keys of LEARNGATE_SECRETS_KEY (docs/reliability.md,
// "Hostile and careless clients"). A Keyring holds one or more keys: the first encrypts, every
// one decrypts, so keys can be rotated. Only the standard library is used.
//
// A value encrypted here reads "lgenc1:<key id>:<base64url of nonce and
// sealed text>": the prefix names the format, the key id (8 hex digits
// derived from the key, never the key itself) picks the key that decrypts.
package secrets

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// Prefix starts every encrypted value (format version 1). A value without
// it is not encrypted.
const Prefix = "lgenc1:"

// MinKeyBytes is the shortest key accepted, in bytes (before base64).
const MinKeyBytes = 32

// Errors of Decrypt; the message of the error returned says more.
var (
	// ErrNotEncrypted: the value does not start with Prefix.
	ErrNotEncrypted = errors.New("value is not encrypted")
	// ErrUnknownKey: the value was encrypted with a key the keyring lacks.
	ErrUnknownKey = errors.New("value was encrypted with a key that is not in the keyring")
	// ErrDecrypt: the value is malformed or was altered.
	ErrDecrypt = errors.New("value does not decrypt")
)

// key is one key of a keyring, ready to seal and open.
type key struct {
	id   string
	aead cipher.AEAD
}

// Keyring encrypts with its first key and decrypts with any of its keys.
// It is safe for concurrent use.
type Keyring struct {
	keys []key
}

// ParseKeyring reads LEARNGATE_SECRETS_KEY: comma-separated keys, each at
// least MinKeyBytes random bytes in base64 (standard or URL alphabet,
// padded or not). The first key encrypts. Errors name the key by position,
// never by value.
func ParseKeyring(s string) (*Keyring, error) {
	var raws [][]byte
	for i, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		raw, err := decodeKey(part)
		if err != nil {
			return nil, fmt.Errorf("key %d is not base64", i+1)
		}
		if len(raw) < MinKeyBytes {
			return nil, fmt.Errorf("key %d is %d bytes; each key must be at least %d random bytes, base64-encoded",
				i+1, len(raw), MinKeyBytes)
		}
		raws = append(raws, raw)
	}
	return NewKeyring(raws...)
}

// decodeKey decodes base64 in any of the four usual forms.
func decodeKey(s string) ([]byte, error) {
	if s == "" {
		return nil, errors.New("empty")
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if raw, err := enc.DecodeString(s); err == nil {
			return raw, nil
		}
	}
	return nil, errors.New("not base64")
}

// NewKeyring builds a keyring of raw keys (at least MinKeyBytes each); the
// first encrypts. Each key's AES-256 key and id are derived from it with
// HKDF-SHA-256, so keys longer than 32 bytes count in full.
func NewKeyring(raws ...[]byte) (*Keyring, error) {
	if len(raws) == 0 {
		return nil, errors.New("no key given")
	}
	k := &Keyring{}
	for i, raw := range raws {
		if len(raw) < MinKeyBytes {
			return nil, fmt.Errorf("key %d is %d bytes, at least %d are needed", i+1, len(raw), MinKeyBytes)
		}
		aesKey, err := hkdf.Key(sha256.New, raw, nil, "learngate secrets aes-256-gcm v1", 32)
		if err != nil {
			return nil, fmt.Errorf("derive key %d: %w", i+1, err)
		}
		idBytes, err := hkdf.Key(sha256.New, raw, nil, "learngate secrets key id v1", 4)
		if err != nil {
			return nil, fmt.Errorf("derive key id %d: %w", i+1, err)
		}
		block, err := aes.NewCipher(aesKey)
		if err != nil {
			return nil, fmt.Errorf("key %d: %w", i+1, err)
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, fmt.Errorf("key %d: %w", i+1, err)
		}
		id := hex.EncodeToString(idBytes)
		for _, other := range k.keys {
			if other.id == id {
				return nil, fmt.Errorf("key %d repeats an earlier key", i+1)
			}
		}
		k.keys = append(k.keys, key{id: id, aead: aead})
	}
	return k, nil
}

// devKeySeed is the public seed of DevKeyring's key.
const devKeySeed = "learngate insecure development key: never use it in production"

// DevKeyring is the fixed development keyring, used only with
// LEARNGATE_INSECURE_DEV=true and no LEARNGATE_SECRETS_KEY (make run,
// tests): its key is the SHA-256 of a public text, so the code path is the
// encrypted one but the secrets are as good as plain text.
func DevKeyring() *Keyring {
	seed := sha256.Sum256([]byte(devKeySeed))
	k, err := NewKeyring(seed[:])
	if err != nil {
		panic(err) // a fixed 32-byte key always builds
	}
	return k
}

// KeyIDs returns the ids of the keyring's keys, the encrypting one first:
// safe to log, they reveal nothing of the keys.
func (k *Keyring) KeyIDs() []string {
	ids := make([]string, len(k.keys))
	for i, key := range k.keys {
		ids[i] = key.id
	}
	return ids
}

// Encrypt seals plaintext with the first key under a random nonce.
func (k *Keyring) Encrypt(plaintext string) (string, error) {
	key := k.keys[0]
	header := Prefix + key.id + ":"
	nonce := make([]byte, key.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("encrypt: %w", err)
	}
	sealed := key.aead.Seal(nonce, nonce, []byte(plaintext), []byte(header))
	return header + base64.RawURLEncoding.EncodeToString(sealed), nil
}

// Decrypt opens a value made by Encrypt with the key it names. Errors wrap
// ErrNotEncrypted, ErrUnknownKey (naming the key id) or ErrDecrypt.
func (k *Keyring) Decrypt(value string) (string, error) {
	rest, ok := strings.CutPrefix(value, Prefix)
	if !ok {
		return "", ErrNotEncrypted
	}
	id, body, ok := strings.Cut(rest, ":")
	if !ok {
		return "", fmt.Errorf("%w: no key id", ErrDecrypt)
	}
	for _, key := range k.keys {
		if key.id != id {
			continue
		}
		sealed, err := base64.RawURLEncoding.DecodeString(body)
		if err != nil || len(sealed) < key.aead.NonceSize()+key.aead.Overhead() {
			return "", fmt.Errorf("%w: malformed (key id %s)", ErrDecrypt, id)
		}
		n := key.aead.NonceSize()
		plain, err := key.aead.Open(nil, sealed[:n], sealed[n:], []byte(Prefix+id+":"))
		if err != nil {
			return "", fmt.Errorf("%w: altered or corrupted (key id %s)", ErrDecrypt, id)
		}
		return string(plain), nil
	}
	return "", fmt.Errorf("%w: key id %s (the keyring holds %s)", ErrUnknownKey, id, strings.Join(k.KeyIDs(), ", "))
}

// IsEncrypted reports whether value is in this package's format.
func IsEncrypted(value string) bool { return strings.HasPrefix(value, Prefix) }
