package config_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"learngate/config"
	"learngate/secrets"
)

// testSecretsKey is a valid LEARNGATE_SECRETS_KEY of 32 bytes.
var testSecretsKey = base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))

// TestSecretsKey: serve and worker (and migrate) refuse to start without
// LEARNGATE_SECRETS_KEY unless LEARNGATE_INSECURE_DEV=true, which uses the
// fixed development keyring; a set key is the keyring, rotation included.
func TestSecretsKey(t *testing.T) {
	const required = "LEARNGATE_SECRETS_KEY is required (32 or more random bytes, base64; comma-separated keys rotate): " +
		"it encrypts webhook secrets. Set LEARNGATE_INSECURE_DEV=true to use the public development key instead (never in production)"
	second := base64.RawURLEncoding.EncodeToString([]byte("another key of at least 32 bytes......"))
	dev := secrets.DevKeyring().KeyIDs()
	tests := []struct {
		name    string
		environ []string
		wantErr string
		wantIDs int // keys in the keyring; 0 with wantErr
		wantDev bool
	}{
		{"neither", nil, required, 0, false},
		{"insecure dev false", []string{"LEARNGATE_INSECURE_DEV=false"}, required, 0, false},
		{"insecure dev", []string{"LEARNGATE_INSECURE_DEV=true"}, "", 1, true},
		{"key", []string{"LEARNGATE_SECRETS_KEY=" + testSecretsKey}, "", 1, false},
		{"key wins over insecure dev", []string{"LEARNGATE_SECRETS_KEY=" + testSecretsKey, "LEARNGATE_INSECURE_DEV=true"}, "", 1, false},
		{"two keys", []string{"LEARNGATE_SECRETS_KEY=" + second + "," + testSecretsKey}, "", 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := config.Load(append([]string{"LEARNGATE_DATABASE_URL=" + testDatabaseURL}, tt.environ...))
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			err = cfg.RequireSecretsKey()
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("RequireSecretsKey = %v, want %q", err, tt.wantErr)
				}
				if _, err := cfg.Keyring(); err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Keyring = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("RequireSecretsKey: %v", err)
			}
			k, err := cfg.Keyring()
			if err != nil {
				t.Fatalf("Keyring: %v", err)
			}
			ids := k.KeyIDs()
			if len(ids) != tt.wantIDs || (ids[0] == dev[0]) != tt.wantDev {
				t.Fatalf("key ids %v (dev %v): want %d keys, dev %v", ids, dev, tt.wantIDs, tt.wantDev)
			}
		})
	}
}

// TestSecretsKeyErrors: a bad key fails Load naming the variable and the
// key's position, never showing the value.
func TestSecretsKeyErrors(t *testing.T) {
	short := base64.StdEncoding.EncodeToString([]byte("only 16 bytes..."))
	for value, want := range map[string]string{
		"not*base64*at*all":          "LEARNGATE_SECRETS_KEY: key 1 is not base64",
		short:                        "LEARNGATE_SECRETS_KEY: key 1 is 16 bytes; each key must be at least 32 random bytes, base64-encoded",
		testSecretsKey + ",":         "LEARNGATE_SECRETS_KEY: key 2 is not base64",
		testSecretsKey + "," + short: "LEARNGATE_SECRETS_KEY: key 2 is 16 bytes; each key must be at least 32 random bytes, base64-encoded",
	} {
		_, err := config.Load([]string{"LEARNGATE_DATABASE_URL=" + testDatabaseURL, "LEARNGATE_SECRETS_KEY=" + value})
		if err == nil || err.Error() != want {
			t.Errorf("LEARNGATE_SECRETS_KEY=%q: %v, want %q", value, err, want)
		}
		if err != nil && strings.Contains(err.Error(), value) {
			t.Errorf("the error shows the key: %v", err)
		}
	}
}
