-- Tenant schema: the five manager emails kept lower-cased beside the emails
-- as given (docs/decisions.md, "Team leader from stored lower-cased manager
-- emails"). team_leader compares a page's emails, lower-cased once, with these
-- columns: below a few hundred users PostgreSQL joins every page row with
-- every user, and lower() on both sides of each pair made that cost 18 ms at
-- 100 users (docs/performance.md, P9). The emails the API shows stay as given.
-- Runs with search_path set to the tenant's schema only. Adding a stored
-- generated column rewrites the table (a few seconds at 1M users).
-- Every statement may run again (IF NOT EXISTS): a schema whose
-- goose_db_version was wound back re-applies it cleanly.

-- +goose Up
ALTER TABLE users
    ADD COLUMN IF NOT EXISTS manager_email_lower   text GENERATED ALWAYS AS (lower(manager_email)) STORED,
    ADD COLUMN IF NOT EXISTS manager_2_email_lower text GENERATED ALWAYS AS (lower(manager_2_email)) STORED,
    ADD COLUMN IF NOT EXISTS manager_3_email_lower text GENERATED ALWAYS AS (lower(manager_3_email)) STORED,
    ADD COLUMN IF NOT EXISTS manager_4_email_lower text GENERATED ALWAYS AS (lower(manager_4_email)) STORED,
    ADD COLUMN IF NOT EXISTS manager_5_email_lower text GENERATED ALWAYS AS (lower(manager_5_email)) STORED;
-- team_leader: does any user name this email as one of their managers?
CREATE INDEX IF NOT EXISTS users_manager_email_lower ON users (manager_email_lower) WHERE manager_email_lower IS NOT NULL;
CREATE INDEX IF NOT EXISTS users_manager_2_email_lower ON users (manager_2_email_lower) WHERE manager_2_email_lower IS NOT NULL;
CREATE INDEX IF NOT EXISTS users_manager_3_email_lower ON users (manager_3_email_lower) WHERE manager_3_email_lower IS NOT NULL;
CREATE INDEX IF NOT EXISTS users_manager_4_email_lower ON users (manager_4_email_lower) WHERE manager_4_email_lower IS NOT NULL;
CREATE INDEX IF NOT EXISTS users_manager_5_email_lower ON users (manager_5_email_lower) WHERE manager_5_email_lower IS NOT NULL;
DROP INDEX IF EXISTS users_manager_email;
DROP INDEX IF EXISTS users_manager_2_email;
DROP INDEX IF EXISTS users_manager_3_email;
DROP INDEX IF EXISTS users_manager_4_email;
DROP INDEX IF EXISTS users_manager_5_email;

-- +goose Down
CREATE INDEX IF NOT EXISTS users_manager_email ON users (lower(manager_email)) WHERE manager_email IS NOT NULL;
CREATE INDEX IF NOT EXISTS users_manager_2_email ON users (lower(manager_2_email)) WHERE manager_2_email IS NOT NULL;
CREATE INDEX IF NOT EXISTS users_manager_3_email ON users (lower(manager_3_email)) WHERE manager_3_email IS NOT NULL;
CREATE INDEX IF NOT EXISTS users_manager_4_email ON users (lower(manager_4_email)) WHERE manager_4_email IS NOT NULL;
CREATE INDEX IF NOT EXISTS users_manager_5_email ON users (lower(manager_5_email)) WHERE manager_5_email IS NOT NULL;
ALTER TABLE users
    DROP COLUMN manager_email_lower, DROP COLUMN manager_2_email_lower, DROP COLUMN manager_3_email_lower,
    DROP COLUMN manager_4_email_lower, DROP COLUMN manager_5_email_lower;
