package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"

	"learngate/secrets"
)

// Webhook signing secrets are kept encrypted (docs/reliability.md, "Hostile and careless clients"):
// the store seals a new secret before writing it and opens the stored ones
// only for the worker, which signs with them. Migration 00013 makes the
// database refuse anything else (check webhook_secrets_encrypted, added
// NOT VALID); encryptWebhookSecrets encrypts the rows stored in plain text
// before it, and re-encrypts those under an older key of a rotated
// keyring, at migration time, and then validates the check.

// sealSecret encrypts a new webhook secret with the DB's keyring.
func (t *TenantDB) sealSecret(secret string) (string, error) {
	sealed, err := t.db.secrets.Encrypt(secret)
	if err != nil {
		return "", fmt.Errorf("encrypt webhook secret: %w", err)
	}
	return sealed, nil
}

// openSecret decrypts stored secret of endpoint id. A failure names the
// endpoint and wraps the secrets error (a key missing from
// LEARNGATE_SECRETS_KEY: secrets.ErrUnknownKey).
func openSecret(keyring *secrets.Keyring, id int64, stored string) (string, error) {
	plain, err := keyring.Decrypt(stored)
	if err != nil {
		return "", fmt.Errorf("decrypt secret of webhook %d: %w", id, err)
	}
	return plain, nil
}

// encryptWebhookSecrets encrypts with the first key of the DB's keyring
// the tenant's webhook secrets stored in plain text (by a version before
// migration 00013) or under another key of the keyring (after a key
// rotation, so the old key can then be dropped), and validates the check
// that keeps them encrypted. Values under the first key are left alone, so
// it can run at every migration. A value under a key the keyring lacks
// fails it (secrets.ErrUnknownKey).
func (db *DB) encryptWebhookSecrets(ctx context.Context, schema string) error {
	tdb, err := db.Tenant(schema)
	if err != nil {
		return err
	}
	current := secrets.Prefix + db.secrets.KeyIDs()[0] + ":"
	return tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		var stale []struct {
			ID             int64   `db:"id"`
			Secret         string  `db:"secret"`
			PreviousSecret *string `db:"previous_secret"`
		}
		if err := tx.SelectContext(ctx, &stale, `SELECT id, secret, previous_secret FROM webhook_endpoints
			WHERE left(secret, $1) <> $2 OR left(previous_secret, $1) <> $2 ORDER BY id FOR UPDATE`,
			len(current), current); err != nil {
			return fmt.Errorf("find webhook secrets to encrypt: %w", err)
		}
		for _, p := range stale {
			secret, err := reseal(db.secrets, current, p.ID, p.Secret)
			if err != nil {
				return err
			}
			var previous *string
			if p.PreviousSecret != nil {
				s, err := reseal(db.secrets, current, p.ID, *p.PreviousSecret)
				if err != nil {
					return err
				}
				previous = &s
			}
			if _, err := tx.ExecContext(ctx, `UPDATE webhook_endpoints SET secret = $2, previous_secret = $3 WHERE id = $1`,
				p.ID, secret, previous); err != nil {
				return fmt.Errorf("encrypt secret of webhook %d: %w", p.ID, err)
			}
		}
		var validated bool
		if err := tx.GetContext(ctx, &validated, `SELECT convalidated FROM pg_constraint
			WHERE conname = 'webhook_secrets_encrypted' AND conrelid = 'webhook_endpoints'::regclass`); err != nil {
			return fmt.Errorf("find check webhook_secrets_encrypted: %w", err)
		}
		if !validated {
			if _, err := tx.ExecContext(ctx, `ALTER TABLE webhook_endpoints VALIDATE CONSTRAINT webhook_secrets_encrypted`); err != nil {
				return fmt.Errorf("validate check webhook_secrets_encrypted: %w", err)
			}
		}
		return nil
	})
}

// reseal returns value of endpoint id encrypted with keyring's first key,
// whose values start with current: value itself when it is, else value
// (decrypted first when encrypted under an older key) encrypted again.
func reseal(keyring *secrets.Keyring, current string, id int64, value string) (string, error) {
	if strings.HasPrefix(value, current) {
		return value, nil
	}
	plain := value
	if secrets.IsEncrypted(value) {
		var err error
		if plain, err = openSecret(keyring, id, value); err != nil {
			return "", err
		}
	}
	sealed, err := keyring.Encrypt(plain)
	if err != nil {
		return "", fmt.Errorf("encrypt secret of webhook %d: %w", id, err)
	}
	return sealed, nil
}
