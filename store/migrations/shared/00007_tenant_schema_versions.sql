-- Shared schema: what `learngate migrate` last left in each tenant schema,
-- so that a run with nothing to do reads one table instead of opening every
-- schema. Each schema's goose_db_version stays the truth for goose; a row
-- here is a cache written after a successful migration of the schema.
-- version is the schema's goose version then; sealed_key the id of the
-- LEARNGATE_SECRETS_KEY key its secrets were sealed under (a rotation makes
-- every row stale, so migrate seals them again). A tenant without a row,
-- or whose row is behind, is migrated as before: the table starts empty,
-- and the first run after this migration visits every schema once.

-- +goose Up
CREATE TABLE tenant_schema_versions (
    tenant_id  bigint PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
    version    bigint NOT NULL,
    sealed_key text   NOT NULL
);

-- +goose Down
DROP TABLE tenant_schema_versions;
