// Package tenant finds the tenant of a request (Host → tenant), checks its
// API keys, and onboards, changes and offboards tenants (the registry).
package tenant

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"

	"learngate/store"
)

// keyPrefix starts every API key so that leaked keys are easy to spot.
const keyPrefix = "lg_"

// GenerateKey returns a new API key's text (shown once) and its stored form.
// The key is 32 random bytes; only its SHA-256 hash is kept.
func GenerateKey() (string, store.NewAPIKey, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", store.NewAPIKey{}, fmt.Errorf("read random bytes: %w", err)
	}
	text := keyPrefix + base64.RawURLEncoding.EncodeToString(raw)
	return text, store.NewAPIKey{Hash: HashKey(text), Prefix: text[:len(keyPrefix)+8]}, nil
}

// HashKey returns the SHA-256 hash under which a key is stored.
func HashKey(text string) []byte {
	sum := sha256.Sum256([]byte(text))
	return sum[:]
}
