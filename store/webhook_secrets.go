package store

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"

	"learngate/secrets"
)

// Webhook signing secrets are kept encrypted (DECISIONS.md section 13):
// the store seals a new secret before writing it and opens the stored ones
// only for the worker, which signs with them. Migration 00013 makes the
// database refuse anything else (check webhook_secrets_encrypted, added
// NOT VALID); encryptWebhookSecrets encrypts the rows stored in plain text
// before it, at migration time, and then validates the check.

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

// encryptWebhookSecrets encrypts, with the DB's keyring, the webhook
// secrets of the tenant stored in plain text (by a version before
// migration 00013), then validates the check that keeps them encrypted.
// Values already encrypted are left alone, so it can run at every
// migration.
func (db *DB) encryptWebhookSecrets(ctx context.Context, schema string) error {
	tdb, err := db.Tenant(schema)
	if err != nil {
		return err
	}
	return tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		var plain []struct {
			ID             int64   `db:"id"`
			Secret         string  `db:"secret"`
			PreviousSecret *string `db:"previous_secret"`
		}
		if err := tx.SelectContext(ctx, &plain, `SELECT id, secret, previous_secret FROM webhook_endpoints
			WHERE left(secret, $1) <> $2 OR left(previous_secret, $1) <> $2 ORDER BY id FOR UPDATE`,
			len(secrets.Prefix), secrets.Prefix); err != nil {
			return fmt.Errorf("find plain webhook secrets: %w", err)
		}
		for _, p := range plain {
			secret, err := sealIfPlain(db.secrets, p.Secret)
			if err != nil {
				return err
			}
			var previous *string
			if p.PreviousSecret != nil {
				s, err := sealIfPlain(db.secrets, *p.PreviousSecret)
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

// sealIfPlain encrypts value unless it is encrypted already.
func sealIfPlain(keyring *secrets.Keyring, value string) (string, error) {
	if secrets.IsEncrypted(value) {
		return value, nil
	}
	sealed, err := keyring.Encrypt(value)
	if err != nil {
		return "", fmt.Errorf("encrypt webhook secret: %w", err)
	}
	return sealed, nil
}
