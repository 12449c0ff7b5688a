-- Tenant schema: rank anchors of the users list (docs/decisions.md,
-- "Deep pages and total_records"). An anchor is a user's (created_at, id)
-- key with its rank: how many users have a smaller key. The user-rank job
-- keeps one every few hundred users from the oldest end; GET /users counts
-- only the users after the newest anchor and seeks to the anchor nearest a
-- deep page instead of skipping rows with OFFSET.
--
-- A user stored, deleted or re-keyed below an anchor changes its rank. The
-- statement triggers below then write the smallest such key into
-- user_rank_dirty in the same transaction; readers ignore the anchors at or
-- above a dirty key, and the job drops them and rebuilds from there.
-- Runs with search_path set to the tenant's schema only.

-- +goose Up
CREATE TABLE user_rank_anchors (
    rank       bigint      PRIMARY KEY,
    created_at timestamptz NOT NULL,
    id         bigint      NOT NULL
);
CREATE UNIQUE INDEX user_rank_anchors_key ON user_rank_anchors (created_at, id);

-- active=false lists read the (few) inactive users alone; active=true
-- counts all users (from the anchors) minus these.
CREATE INDEX users_inactive ON users (created_at DESC, id DESC) WHERE NOT active;

CREATE TABLE user_rank_dirty (
    created_at timestamptz NOT NULL,
    id         bigint      NOT NULL
);
CREATE INDEX user_rank_dirty_key ON user_rank_dirty (created_at, id);

-- The job takes user_rank_dirty in SHARE ROW EXCLUSIVE mode before it reads
-- users, so it waits for every writer that has passed this trigger and
-- every later writer waits for the job. A writer that passed before the job
-- is committed when the job reads; a later one sees the job's anchors
-- (READ COMMITTED: a fresh snapshot after the lock) and marks them dirty
-- when its key is below one. In any other isolation level the snapshot may
-- predate the job, so the key is marked dirty unconditionally.
-- +goose StatementBegin
CREATE FUNCTION user_rank_mark() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
DECLARE
    low_created timestamptz;
    low_id      bigint;
BEGIN
    IF TG_OP = 'INSERT' THEN
        SELECT created_at, id INTO low_created, low_id FROM rank_new_rows ORDER BY created_at, id LIMIT 1;
    ELSE
        SELECT created_at, id INTO low_created, low_id FROM rank_old_rows ORDER BY created_at, id LIMIT 1;
    END IF;
    IF low_id IS NULL THEN
        RETURN NULL;
    END IF;
    LOCK TABLE user_rank_dirty IN ROW EXCLUSIVE MODE;
    IF current_setting('transaction_isolation') <> 'read committed'
        OR EXISTS (SELECT 1 FROM user_rank_anchors WHERE (created_at, id) >= (low_created, low_id)) THEN
        INSERT INTO user_rank_dirty (created_at, id) VALUES (low_created, low_id);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER users_rank_insert AFTER INSERT ON users
    REFERENCING NEW TABLE AS rank_new_rows FOR EACH STATEMENT EXECUTE FUNCTION user_rank_mark();
CREATE TRIGGER users_rank_delete AFTER DELETE ON users
    REFERENCING OLD TABLE AS rank_old_rows FOR EACH STATEMENT EXECUTE FUNCTION user_rank_mark();

-- A user's key never changes (the list order and every anchor rely on it).
-- +goose StatementBegin
CREATE FUNCTION user_rank_key_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'users.created_at and users.id never change';
END
$$;
-- +goose StatementEnd
CREATE TRIGGER users_rank_key_fixed BEFORE UPDATE OF created_at, id ON users
    FOR EACH ROW WHEN (OLD.created_at IS DISTINCT FROM NEW.created_at OR OLD.id <> NEW.id)
    EXECUTE FUNCTION user_rank_key_fixed();

-- +goose Down
DROP TRIGGER users_rank_key_fixed ON users;
DROP FUNCTION user_rank_key_fixed();
DROP TRIGGER users_rank_delete ON users;
DROP TRIGGER users_rank_insert ON users;
DROP FUNCTION user_rank_mark();
DROP TABLE user_rank_dirty;
DROP TABLE user_rank_anchors;
DROP INDEX users_inactive;
