// Package webhook holds what learngate's webhooks need besides storage and
// scheduling: Standard Webhooks signing and secrets, the address policy that
// keeps deliveries off private networks, and the HTTP sender that applies it
// at connection time (docs/decisions.md, "Webhooks").
package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// SecretPrefix starts every signing secret (the Standard Webhooks form).
const SecretPrefix = "whsec_"

// secretBytes is the number of random bytes of a new secret.
const secretBytes = 32

// Header names of a delivery (Standard Webhooks).
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// NewSecret returns a new signing secret: SecretPrefix followed by the
// standard base64 of 32 random bytes.
func NewSecret() (string, error) {
	b := make([]byte, secretBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("new webhook secret: %w", err)
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(b), nil
}

// secretKey returns the HMAC key of secret: the base64-decoded part after
// SecretPrefix.
func secretKey(secret string) ([]byte, error) {
	raw, ok := strings.CutPrefix(secret, SecretPrefix)
	if !ok {
		return nil, errors.New("webhook secret does not start with " + SecretPrefix)
	}
	key, err := base64.StdEncoding.DecodeString(raw)
	if err != nil || len(key) == 0 {
		return nil, errors.New("webhook secret is not base64 after " + SecretPrefix)
	}
	return key, nil
}

// Sign returns the Standard Webhooks signature of a message: "v1," and the
// base64 of HMAC-SHA256, keyed with the secret, of "<id>.<timestamp>.<body>".
func Sign(secret, id string, timestamp int64, body []byte) (string, error) {
	key, err := secretKey(secret)
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id))
	mac.Write([]byte{'.'})
	mac.Write([]byte(strconv.FormatInt(timestamp, 10)))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// SignatureHeader is the webhook-signature value of a message signed with
// each of secrets (the current one first; during a rotation also the
// previous one), separated by spaces. A receiver accepts the message when
// any of them verifies with the secret it holds.
func SignatureHeader(secrets []string, id string, timestamp int64, body []byte) (string, error) {
	if len(secrets) == 0 {
		return "", errors.New("no webhook secret to sign with")
	}
	sigs := make([]string, len(secrets))
	for i, s := range secrets {
		sig, err := Sign(s, id, timestamp, body)
		if err != nil {
			return "", err
		}
		sigs[i] = sig
	}
	return strings.Join(sigs, " "), nil
}
