package main

import (
	"os"
	"strings"
	"testing"
)

// TestSecretsKeyRequired: serve, worker and migrate refuse to start
// without a secrets key unless LEARNGATE_INSECURE_DEV=true (which cliEnv
// sets); a malformed key is refused, a valid one is enough.
func TestSecretsKeyRequired(t *testing.T) {
	cliEnv(t)
	os.Unsetenv("LEARNGATE_INSECURE_DEV")
	t.Setenv("LEARNGATE_OPS_TOKEN", "test-ops-token-0123456789")
	const want = "LEARNGATE_SECRETS_KEY is required (32 or more random bytes, base64; comma-separated keys rotate): " +
		"it encrypts webhook secrets. Set LEARNGATE_INSECURE_DEV=true to use the public development key instead (never in production)"
	for _, args := range [][]string{{"serve"}, {"worker"}, {"migrate"}} {
		if _, err := run(t, args...); err == nil || err.Error() != want {
			t.Fatalf("learngate %s: error %v, want %q", strings.Join(args, " "), err, want)
		}
	}
	t.Setenv("LEARNGATE_SECRETS_KEY", "dG9vIHNob3J0")
	if _, err := run(t, "serve"); err == nil || err.Error() != "LEARNGATE_SECRETS_KEY: key 1 is 9 bytes; each key must be at least 32 random bytes, base64-encoded" {
		t.Fatalf("serve with a short key: %v", err)
	}
	// A key is enough: migrate runs.
	t.Setenv("LEARNGATE_SECRETS_KEY", "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=")
	if out, err := run(t, "migrate", "--quiet"); err != nil || out != "migrations applied\n" {
		t.Fatalf("migrate with a key: %q, %v", out, err)
	}
}
