-- Tenant schema: each custom value carries its user's created_at, the
-- users list's order key, so that GET /users filtered by one x- field reads
-- the page's user ids from the values alone, in list order: an exact
-- x-<number|date> value on user_custom_values_value (index-only, skipping
-- the entries before the page), an x-<text|list> part on the trigram index
-- and a sort of the matches' keys, never a lookup of every matching user.
-- A trigger fills the column on every insert (every write path stays as it
-- is); a user's created_at never changes (users_key_fixed, 00012).
-- Every statement may run again (a schema whose goose_db_version was wound
-- back re-applies it cleanly). Runs with search_path set to the tenant's
-- schema only.

-- +goose Up
ALTER TABLE user_custom_values ADD COLUMN IF NOT EXISTS user_created_at timestamptz;
UPDATE user_custom_values v SET user_created_at = u.created_at FROM users u
    WHERE u.id = v.user_id AND v.user_created_at IS DISTINCT FROM u.created_at;
ALTER TABLE user_custom_values ALTER COLUMN user_created_at SET NOT NULL;

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION user_custom_values_user_created() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
    NEW.user_created_at := (SELECT created_at FROM users WHERE id = NEW.user_id);
    RETURN NEW;
END $$;
-- +goose StatementEnd
CREATE OR REPLACE TRIGGER user_custom_values_user_created BEFORE INSERT OR UPDATE OF user_id ON user_custom_values
    FOR EACH ROW EXECUTE FUNCTION user_custom_values_user_created();

-- An exact value's users in list order; a probe from a user seeks
-- (field, value, created_at, id).
DROP INDEX IF EXISTS user_custom_values_value;
CREATE INDEX user_custom_values_value ON user_custom_values (field_id, value, user_created_at, user_id)
    WHERE length(value) <= 64;

-- +goose Down
DROP INDEX IF EXISTS user_custom_values_value;
CREATE INDEX user_custom_values_value ON user_custom_values (field_id, value, user_id) WHERE length(value) <= 64;
DROP TRIGGER user_custom_values_user_created ON user_custom_values;
DROP FUNCTION user_custom_values_user_created();
ALTER TABLE user_custom_values DROP COLUMN user_created_at;
