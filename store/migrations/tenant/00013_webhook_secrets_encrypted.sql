-- Tenant schema: webhook signing secrets are stored encrypted
-- (docs/reliability.md, "Hostile and careless clients"; AES-256-GCM under LEARNGATE_SECRETS_KEY, in the
-- format of package secrets: 'lgenc1:<key id>:<sealed>'). SQL has no key:
-- the check is added NOT VALID, so that from now on nothing stores a plain
-- text secret; the rows stored before are encrypted in Go right after the
-- migrations (store.encryptWebhookSecrets), which then validates the check.

-- +goose Up
ALTER TABLE webhook_endpoints ADD CONSTRAINT webhook_secrets_encrypted
    CHECK (secret LIKE 'lgenc1:%' AND (previous_secret IS NULL OR previous_secret LIKE 'lgenc1:%')) NOT VALID;

-- +goose Down
ALTER TABLE webhook_endpoints DROP CONSTRAINT webhook_secrets_encrypted;
