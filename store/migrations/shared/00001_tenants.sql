-- Shared schema: the tenant registry. Tenant data never lives here.

-- +goose Up
CREATE TABLE tenants (
    id                    bigserial PRIMARY KEY,
    slug                  text        NOT NULL UNIQUE,
    name                  text        NOT NULL,
    timezone              text        NOT NULL DEFAULT 'UTC',
    status                text        NOT NULL DEFAULT 'provisioning'
                                      CHECK (status IN ('provisioning', 'active', 'suspended')),
    api_enabled           boolean     NOT NULL DEFAULT true,
    rate_limit_per_minute integer     NOT NULL DEFAULT 300 CHECK (rate_limit_per_minute > 0),
    created_at            timestamptz NOT NULL DEFAULT now(),
    updated_at            timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE tenant_domains (
    domain     text        PRIMARY KEY,
    tenant_id  bigint      NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tenant_domains_tenant_id ON tenant_domains (tenant_id);

CREATE TABLE api_keys (
    id           bigserial   PRIMARY KEY,
    tenant_id    bigint      NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    prefix       text        NOT NULL,
    hash         bytea       NOT NULL UNIQUE,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    revoked_at   timestamptz
);
CREATE INDEX api_keys_tenant_id ON api_keys (tenant_id);

-- registry_generation is bumped by every change to what the nodes' registry
-- caches hold of the three tables above (the triggers below), so every node
-- can tell within a poll interval that its cache is stale.
CREATE TABLE registry_generation (
    id         integer PRIMARY KEY CHECK (id = 1),
    generation bigint  NOT NULL
);
INSERT INTO registry_generation (id, generation) VALUES (1, 0);

-- +goose StatementBegin
CREATE FUNCTION bump_registry_generation() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE registry_generation SET generation = generation + 1 WHERE id = 1;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER tenants_bump AFTER INSERT OR UPDATE OR DELETE ON tenants
    FOR EACH STATEMENT EXECUTE FUNCTION bump_registry_generation();
CREATE TRIGGER tenant_domains_bump AFTER INSERT OR UPDATE OR DELETE ON tenant_domains
    FOR EACH STATEMENT EXECUTE FUNCTION bump_registry_generation();
-- An API key's last_used_at bookkeeping does not make caches stale; a new,
-- deleted, revoked or re-hashed key does.
CREATE TRIGGER api_keys_bump AFTER INSERT OR DELETE OR UPDATE OF revoked_at, hash, tenant_id ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION bump_registry_generation();

-- +goose Down
DROP TABLE api_keys;
DROP TABLE tenant_domains;
DROP TABLE tenants;
DROP TABLE registry_generation;
DROP FUNCTION bump_registry_generation();
