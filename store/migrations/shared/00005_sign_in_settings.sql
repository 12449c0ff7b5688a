-- Shared schema: sign-in settings of DECISIONS section 19 (docs/decisions.md,
-- "Sign-in"). Expand only: new columns with constant defaults (no table
-- rewrite, no UPDATE, so tenant_sso's statement trigger does not fire), the
-- protocol CHECK widened to 'none' (password sign-in alone; tenant_sso holds
-- one row per tenant, so the re-check is instant), and the signed-in user of
-- a learner session, so that setting a password can end that user's other
-- sessions. lock_timeout keeps the migration from queueing behind a long
-- transaction (it fails and is run again instead).

-- +goose Up
SET LOCAL lock_timeout = '5s';

ALTER TABLE tenant_sso
    ADD COLUMN password_trusted_networks text[]  NOT NULL DEFAULT '{}',
    ADD COLUMN end_idp_session           boolean NOT NULL DEFAULT true,
    ADD COLUMN name_id_format            text    NOT NULL DEFAULT '',
    DROP CONSTRAINT tenant_sso_protocol_check,
    ADD CONSTRAINT tenant_sso_protocol_check CHECK (protocol IN ('oidc', 'saml', 'none'));

-- NULL while the session holds no signed-in learner. No index of its own:
-- ending a user's sessions (a rare password change) finds them through
-- web_sessions_tenant, and building an index here would hold the writes of
-- every sign-in while it scans the table.
ALTER TABLE web_sessions ADD COLUMN user_id bigint;

-- +goose Down
SET LOCAL lock_timeout = '5s';
ALTER TABLE web_sessions DROP COLUMN user_id;
-- A tenant on password sign-in alone has no configuration the old code
-- can read: it goes back to having none (no sign-in) until ops set one.
DELETE FROM tenant_sso WHERE protocol = 'none';
ALTER TABLE tenant_sso
    DROP CONSTRAINT tenant_sso_protocol_check,
    ADD CONSTRAINT tenant_sso_protocol_check CHECK (protocol IN ('oidc', 'saml')),
    DROP COLUMN password_trusted_networks,
    DROP COLUMN end_idp_session,
    DROP COLUMN name_id_format;
