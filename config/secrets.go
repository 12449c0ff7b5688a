package config

import (
	"errors"

	"learngate/secrets"
)

// errSecretsKeyRequired is the refusal of a process that needs the keyring.
var errSecretsKeyRequired = errors.New("LEARNGATE_SECRETS_KEY is required (32 or more random bytes, base64; " +
	"comma-separated keys rotate): it encrypts webhook secrets. " +
	"Set LEARNGATE_INSECURE_DEV=true to use the public development key instead (never in production)")

// RequireSecretsKey reports a missing LEARNGATE_SECRETS_KEY, unless
// LEARNGATE_INSECURE_DEV=true; serve, worker and migrate, the processes
// that write or read webhook secrets, refuse to start without it.
func (c Config) RequireSecretsKey() error {
	if c.SecretsKey == "" && !c.InsecureDev {
		return errSecretsKeyRequired
	}
	return nil
}

// Keyring returns the keyring of LEARNGATE_SECRETS_KEY (validated by
// Load); without one, secrets.DevKeyring under LEARNGATE_INSECURE_DEV=true
// and the error of RequireSecretsKey otherwise.
func (c Config) Keyring() (*secrets.Keyring, error) {
	if c.SecretsKey != "" {
		return secrets.ParseKeyring(c.SecretsKey)
	}
	if !c.InsecureDev {
		return nil, errSecretsKeyRequired
	}
	return secrets.DevKeyring(), nil
}
