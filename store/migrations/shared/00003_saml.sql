-- Shared schema: SAML 2.0 sign-in (docs/decisions.md, "Sign-in"). The
-- identity provider's metadata, this tenant's service provider key pair
-- (the private key encrypted with the secrets keyring), and the IDs of
-- assertions already used, kept until they expire (replay protection).

-- +goose Up
ALTER TABLE tenant_sso
    ADD COLUMN saml_metadata_xml text NOT NULL DEFAULT '',
    ADD COLUMN saml_metadata_url text NOT NULL DEFAULT '',
    -- Encrypted with the secrets keyring (LEARNGATE_SECRETS_KEY); never plain text.
    ADD COLUMN saml_sp_key text NOT NULL DEFAULT '' CHECK (saml_sp_key = '' OR left(saml_sp_key, 7) = 'lgenc1:'),
    ADD COLUMN saml_sp_cert text NOT NULL DEFAULT '';

CREATE TABLE saml_assertions (
    tenant_id    bigint      NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    assertion_id text        NOT NULL,
    expires_at   timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, assertion_id)
);
CREATE INDEX saml_assertions_expires ON saml_assertions (expires_at);

-- +goose Down
DROP TABLE saml_assertions;
ALTER TABLE tenant_sso DROP COLUMN saml_metadata_xml, DROP COLUMN saml_metadata_url, DROP COLUMN saml_sp_key,
    DROP COLUMN saml_sp_cert;
