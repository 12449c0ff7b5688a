-- Tenant schema: what SCIM 2.0 provisioning needs beside the users and groups
-- the Public API keeps (docs/scim.md; docs/decisions.md, "SCIM provisioning").
-- Runs with search_path set to the tenant's schema only.
--
-- scim_external_id is the identity system's externalId, kept as given.
-- scim_deleted marks a user deleted through SCIM: deactivated, kept with its
-- learning records, and hidden from SCIM. Any reactivation (through SCIM,
-- the Public API, a batch or a scheduled date) clears it, so the trigger
-- below is the one place that rule lives.
-- Every statement may run again (IF NOT EXISTS, OR REPLACE): a schema whose
-- goose_db_version was wound back re-applies it cleanly.

-- +goose Up
ALTER TABLE users ADD COLUMN IF NOT EXISTS scim_external_id text,
                  ADD COLUMN IF NOT EXISTS scim_deleted boolean NOT NULL DEFAULT false;
-- filter=externalId eq "...": an index lookup. userName eq uses users_user_name
-- and emails.value eq users_email.
CREATE INDEX IF NOT EXISTS users_scim_external_id ON users (scim_external_id);

ALTER TABLE groups ADD COLUMN IF NOT EXISTS scim_external_id text,
                   ADD COLUMN IF NOT EXISTS updated_at timestamptz NOT NULL DEFAULT now();
CREATE INDEX IF NOT EXISTS groups_scim_external_id ON groups (scim_external_id);

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION scim_undelete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.scim_deleted := false;
    RETURN NEW;
END
$$;
-- +goose StatementEnd
DROP TRIGGER IF EXISTS users_scim_undelete ON users;
CREATE TRIGGER users_scim_undelete BEFORE UPDATE OF active ON users
    FOR EACH ROW WHEN (NEW.active AND NOT OLD.active AND OLD.scim_deleted)
    EXECUTE FUNCTION scim_undelete();

-- +goose Down
DROP TRIGGER users_scim_undelete ON users;
DROP FUNCTION scim_undelete();
DROP INDEX groups_scim_external_id;
ALTER TABLE groups DROP COLUMN updated_at, DROP COLUMN scim_external_id;
DROP INDEX users_scim_external_id;
ALTER TABLE users DROP COLUMN scim_deleted, DROP COLUMN scim_external_id;
