-- Shared schema: two things that would otherwise grow with the tenant count.
--
-- 1. What `learngate migrate` last left in each tenant schema,
-- so that a run with nothing to do reads one table instead of opening every
-- schema. Each schema's goose_db_version stays the truth for goose; a row
-- here is a cache written after a successful migration of the schema.
-- version is the schema's goose version then; sealed_key the id of the
-- LEARNGATE_SECRETS_KEY key its secrets were sealed under (a rotation makes
-- every row stale, so migrate seals them again). A tenant without a row,
-- or whose row is behind, is migrated as before: the table starts empty,
-- and the first run after this migration visits every schema once.
--
-- 2. Additions to the registry (a tenant being created: its row, domains
-- and first key while it is provisioning, then its activation) bump
-- registry_generation.additions instead of generation. A node drops only
-- its unknown hosts on an addition (the one thing it can make stale: a
-- provisioning tenant resolves to nothing), and its whole cache on any
-- other change; before, each creation made every node look up every
-- tenant again. A node of an earlier version reads generation alone: it
-- sees a new tenant once its unknown-host entry expires (10 seconds).

-- +goose Up
CREATE TABLE tenant_schema_versions (
    tenant_id  bigint PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
    version    bigint NOT NULL,
    sealed_key text   NOT NULL
);

ALTER TABLE registry_generation ADD COLUMN additions bigint NOT NULL DEFAULT 0;

-- +goose StatementBegin
CREATE FUNCTION bump_registry_additions() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE registry_generation SET additions = additions + 1 WHERE id = 1;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

-- An update of tenants that were all provisioning (their activation) is an
-- addition; any other update changes what nodes may have cached.
-- +goose StatementBegin
CREATE FUNCTION bump_registry_tenants_updated() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT FROM old_rows WHERE status <> 'provisioning') THEN
        UPDATE registry_generation SET generation = generation + 1 WHERE id = 1;
    ELSE
        UPDATE registry_generation SET additions = additions + 1 WHERE id = 1;
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

-- A domain or key inserted for provisioning tenants only is an addition; for
-- a tenant already serving, its cached tenant (domains) or keys change.
-- +goose StatementBegin
CREATE FUNCTION bump_registry_rows_inserted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT FROM new_rows n JOIN tenants t ON t.id = n.tenant_id WHERE t.status <> 'provisioning') THEN
        UPDATE registry_generation SET generation = generation + 1 WHERE id = 1;
    ELSE
        UPDATE registry_generation SET additions = additions + 1 WHERE id = 1;
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

DROP TRIGGER tenants_bump ON tenants;
CREATE TRIGGER tenants_added AFTER INSERT ON tenants
    FOR EACH STATEMENT EXECUTE FUNCTION bump_registry_additions();
CREATE TRIGGER tenants_updated AFTER UPDATE ON tenants REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION bump_registry_tenants_updated();
CREATE TRIGGER tenants_deleted AFTER DELETE ON tenants
    FOR EACH STATEMENT EXECUTE FUNCTION bump_registry_generation();

DROP TRIGGER tenant_domains_bump ON tenant_domains;
CREATE TRIGGER tenant_domains_added AFTER INSERT ON tenant_domains REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION bump_registry_rows_inserted();
CREATE TRIGGER tenant_domains_bump AFTER UPDATE OR DELETE ON tenant_domains
    FOR EACH STATEMENT EXECUTE FUNCTION bump_registry_generation();

DROP TRIGGER api_keys_bump ON api_keys;
CREATE TRIGGER api_keys_added AFTER INSERT ON api_keys REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION bump_registry_rows_inserted();
CREATE TRIGGER api_keys_bump AFTER DELETE OR UPDATE OF revoked_at, hash, tenant_id ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION bump_registry_generation();

-- +goose Down
DROP TRIGGER api_keys_added ON api_keys;
DROP TRIGGER api_keys_bump ON api_keys;
CREATE TRIGGER api_keys_bump AFTER INSERT OR DELETE OR UPDATE OF revoked_at, hash, tenant_id ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION bump_registry_generation();
DROP TRIGGER tenant_domains_added ON tenant_domains;
DROP TRIGGER tenant_domains_bump ON tenant_domains;
CREATE TRIGGER tenant_domains_bump AFTER INSERT OR UPDATE OR DELETE ON tenant_domains
    FOR EACH STATEMENT EXECUTE FUNCTION bump_registry_generation();
DROP TRIGGER tenants_added ON tenants;
DROP TRIGGER tenants_updated ON tenants;
DROP TRIGGER tenants_deleted ON tenants;
CREATE TRIGGER tenants_bump AFTER INSERT OR UPDATE OR DELETE ON tenants
    FOR EACH STATEMENT EXECUTE FUNCTION bump_registry_generation();
DROP FUNCTION bump_registry_rows_inserted();
DROP FUNCTION bump_registry_tenants_updated();
DROP FUNCTION bump_registry_additions();
ALTER TABLE registry_generation DROP COLUMN additions;
DROP TABLE tenant_schema_versions;
