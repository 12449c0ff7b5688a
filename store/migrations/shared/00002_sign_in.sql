-- Shared schema: learner sign-in (docs/decisions.md, "Sign-in"). Each
-- tenant's identity provider settings, cached by every node like hosts and
-- keys (a change bumps registry_generation), and the learners' server-side
-- sessions, each bound to the tenant whose host made it.

-- +goose Up
CREATE TABLE tenant_sso (
    tenant_id      bigint      PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
    protocol       text        NOT NULL CHECK (protocol IN ('oidc', 'saml')),
    issuer         text        NOT NULL DEFAULT '',
    client_id      text        NOT NULL DEFAULT '',
    -- Encrypted with the secrets keyring (LEARNGATE_SECRETS_KEY); never plain text.
    client_secret  text        NOT NULL DEFAULT '' CHECK (client_secret = '' OR left(client_secret, 7) = 'lgenc1:'),
    scopes         text[]      NOT NULL DEFAULT '{}',
    match          text        NOT NULL DEFAULT 'email' CHECK (match IN ('email', 'user_name')),
    jit            boolean     NOT NULL DEFAULT false,
    password_login boolean     NOT NULL DEFAULT false,
    updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE TRIGGER tenant_sso_bump AFTER INSERT OR UPDATE OR DELETE ON tenant_sso
    FOR EACH STATEMENT EXECUTE FUNCTION bump_registry_generation();

CREATE TABLE web_sessions (
    token     text        PRIMARY KEY,
    tenant_id bigint      NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    data      bytea       NOT NULL,
    expiry    timestamptz NOT NULL
);
CREATE INDEX web_sessions_expiry ON web_sessions (expiry);
CREATE INDEX web_sessions_tenant ON web_sessions (tenant_id);

-- +goose Down
DROP TABLE web_sessions;
DROP TABLE tenant_sso;
