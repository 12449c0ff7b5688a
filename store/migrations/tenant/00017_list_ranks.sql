-- Tenant schema: rank anchors of the topic enrolment, pathway enrolment and
-- external knowledge lists (docs/decisions.md, "Deep pages and
-- total_records"), on the model of the users' (00012_user_rank.sql). These
-- lists are ordered by id alone, so an anchor is an id with its rank: how
-- many listed rows (current enrolments, every record) have a smaller id.
-- The list-rank job keeps one every thousand rows; GET /topic_assignments,
-- /pathway_assignments and /external_knowledges count only the rows after
-- the newest valid anchor and seek a deep page from the anchor below it.
--
-- A row that enters or leaves a list below an anchor changes its rank: an
-- insert (ids are taken before commit, so a slow transaction can commit
-- below an anchor), a delete, and for enrolments an update that sets or
-- clears removed_at. The statement triggers below then write the smallest
-- such id into the list's dirty table in the same transaction; readers
-- ignore the anchors at or above a dirty id, and the job drops them and
-- rebuilds from there. Locking is the users' (see 00012): the trigger takes
-- the dirty table in ROW EXCLUSIVE mode, the job in SHARE ROW EXCLUSIVE.
-- Every statement may run again (IF NOT EXISTS, OR REPLACE): a schema whose
-- goose_db_version was wound back re-applies it cleanly.
-- Runs with search_path set to the tenant's schema only.

-- +goose Up
CREATE TABLE IF NOT EXISTS topic_enrolment_rank_anchors (
    rank bigint PRIMARY KEY,
    id   bigint NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS topic_enrolment_rank_dirty (id bigint NOT NULL);
CREATE INDEX IF NOT EXISTS topic_enrolment_rank_dirty_id ON topic_enrolment_rank_dirty (id);

CREATE TABLE IF NOT EXISTS pathway_enrolment_rank_anchors (
    rank bigint PRIMARY KEY,
    id   bigint NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS pathway_enrolment_rank_dirty (id bigint NOT NULL);
CREATE INDEX IF NOT EXISTS pathway_enrolment_rank_dirty_id ON pathway_enrolment_rank_dirty (id);

CREATE TABLE IF NOT EXISTS knowledge_rank_anchors (
    rank bigint PRIMARY KEY,
    id   bigint NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS knowledge_rank_dirty (id bigint NOT NULL);
CREATE INDEX IF NOT EXISTS knowledge_rank_dirty_id ON knowledge_rank_dirty (id);

-- list_rank_mark(anchors, dirty, listed): the smallest id the statement
-- brought into or took out of the list (rows where the condition listed
-- holds), marked dirty when an anchor lies at or above it. As for users, a
-- writer in REPEATABLE READ or SERIALIZABLE may hold a snapshot older than
-- the job's anchors, so it marks the id unconditionally.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION list_rank_mark() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
DECLARE
    low    bigint;
    found  boolean;
BEGIN
    IF TG_OP = 'INSERT' THEN
        EXECUTE format('SELECT min(id) FROM rank_new_rows WHERE %s', TG_ARGV[2]) INTO low;
    ELSIF TG_OP = 'DELETE' THEN
        EXECUTE format('SELECT min(id) FROM rank_old_rows WHERE %s', TG_ARGV[2]) INTO low;
    ELSE
        EXECUTE format('SELECT min(n.id) FROM (SELECT id, (%1$s) AS listed FROM rank_new_rows) n
            JOIN (SELECT id, (%1$s) AS listed FROM rank_old_rows) o ON o.id = n.id
            WHERE n.listed <> o.listed', TG_ARGV[2]) INTO low;
    END IF;
    IF low IS NULL THEN
        RETURN NULL;
    END IF;
    EXECUTE format('LOCK TABLE %I IN ROW EXCLUSIVE MODE', TG_ARGV[1]);
    found := current_setting('transaction_isolation') <> 'read committed';
    IF NOT found THEN
        EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE id >= $1)', TG_ARGV[0]) INTO found USING low;
    END IF;
    IF found THEN
        EXECUTE format('INSERT INTO %I (id) VALUES ($1)', TG_ARGV[1]) USING low;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE OR REPLACE TRIGGER topic_enrolments_rank_insert AFTER INSERT ON topic_enrolments
    REFERENCING NEW TABLE AS rank_new_rows FOR EACH STATEMENT
    EXECUTE FUNCTION list_rank_mark('topic_enrolment_rank_anchors', 'topic_enrolment_rank_dirty', 'removed_at IS NULL');
CREATE OR REPLACE TRIGGER topic_enrolments_rank_delete AFTER DELETE ON topic_enrolments
    REFERENCING OLD TABLE AS rank_old_rows FOR EACH STATEMENT
    EXECUTE FUNCTION list_rank_mark('topic_enrolment_rank_anchors', 'topic_enrolment_rank_dirty', 'removed_at IS NULL');
-- Transition tables cannot go with UPDATE OF a column list, so this fires
-- on every update statement; it marks only rows whose removed_at went from
-- NULL to set or back.
CREATE OR REPLACE TRIGGER topic_enrolments_rank_update AFTER UPDATE ON topic_enrolments
    REFERENCING OLD TABLE AS rank_old_rows NEW TABLE AS rank_new_rows FOR EACH STATEMENT
    EXECUTE FUNCTION list_rank_mark('topic_enrolment_rank_anchors', 'topic_enrolment_rank_dirty', 'removed_at IS NULL');

CREATE OR REPLACE TRIGGER pathway_enrolments_rank_insert AFTER INSERT ON pathway_enrolments
    REFERENCING NEW TABLE AS rank_new_rows FOR EACH STATEMENT
    EXECUTE FUNCTION list_rank_mark('pathway_enrolment_rank_anchors', 'pathway_enrolment_rank_dirty', 'removed_at IS NULL');
CREATE OR REPLACE TRIGGER pathway_enrolments_rank_delete AFTER DELETE ON pathway_enrolments
    REFERENCING OLD TABLE AS rank_old_rows FOR EACH STATEMENT
    EXECUTE FUNCTION list_rank_mark('pathway_enrolment_rank_anchors', 'pathway_enrolment_rank_dirty', 'removed_at IS NULL');
CREATE OR REPLACE TRIGGER pathway_enrolments_rank_update AFTER UPDATE ON pathway_enrolments
    REFERENCING OLD TABLE AS rank_old_rows NEW TABLE AS rank_new_rows FOR EACH STATEMENT
    EXECUTE FUNCTION list_rank_mark('pathway_enrolment_rank_anchors', 'pathway_enrolment_rank_dirty', 'removed_at IS NULL');

-- Every record is listed; records are never re-keyed, so no update trigger.
CREATE OR REPLACE TRIGGER external_knowledges_rank_insert AFTER INSERT ON external_knowledges
    REFERENCING NEW TABLE AS rank_new_rows FOR EACH STATEMENT
    EXECUTE FUNCTION list_rank_mark('knowledge_rank_anchors', 'knowledge_rank_dirty', 'true');
CREATE OR REPLACE TRIGGER external_knowledges_rank_delete AFTER DELETE ON external_knowledges
    REFERENCING OLD TABLE AS rank_old_rows FOR EACH STATEMENT
    EXECUTE FUNCTION list_rank_mark('knowledge_rank_anchors', 'knowledge_rank_dirty', 'true');

-- An id never changes (the list order and every anchor rely on it).
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION list_rank_id_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '%.id never changes', TG_TABLE_NAME;
END
$$;
-- +goose StatementEnd
CREATE OR REPLACE TRIGGER topic_enrolments_id_fixed BEFORE UPDATE OF id ON topic_enrolments
    FOR EACH ROW WHEN (OLD.id <> NEW.id) EXECUTE FUNCTION list_rank_id_fixed();
CREATE OR REPLACE TRIGGER pathway_enrolments_id_fixed BEFORE UPDATE OF id ON pathway_enrolments
    FOR EACH ROW WHEN (OLD.id <> NEW.id) EXECUTE FUNCTION list_rank_id_fixed();
CREATE OR REPLACE TRIGGER external_knowledges_id_fixed BEFORE UPDATE OF id ON external_knowledges
    FOR EACH ROW WHEN (OLD.id <> NEW.id) EXECUTE FUNCTION list_rank_id_fixed();

-- Filters (docs/performance.md, P5): the records of one user in id order
-- (user_name), like the enrolments' (user_id, id) indexes; updated_at
-- ranges counted index-only, with the id to order the page.
DROP INDEX IF EXISTS external_knowledges_user;
CREATE INDEX external_knowledges_user ON external_knowledges (user_id, id);
DROP INDEX IF EXISTS external_knowledges_updated;
CREATE INDEX external_knowledges_updated ON external_knowledges (updated_at, id);
DROP INDEX IF EXISTS topic_enrolments_updated;
CREATE INDEX topic_enrolments_updated ON topic_enrolments (updated_at, id) WHERE removed_at IS NULL;
DROP INDEX IF EXISTS pathway_enrolments_updated;
CREATE INDEX pathway_enrolments_updated ON pathway_enrolments (updated_at, id) WHERE removed_at IS NULL;
-- x-<number or date field>=value: the users holding that exact value, in
-- the index alone. Only short values are indexed (a text value may be too
-- long for a btree entry); numbers and dates always are.
CREATE INDEX IF NOT EXISTS user_custom_values_value ON user_custom_values (field_id, value, user_id)
    WHERE length(value) <= 64;

-- active=true alone: a deep page skips the active users' index entries
-- without reading their rows (as users_inactive does for active=false).
CREATE INDEX IF NOT EXISTS users_active ON users (created_at DESC, id DESC) WHERE active;

-- +goose Down
DROP INDEX IF EXISTS users_active;
DROP INDEX IF EXISTS user_custom_values_value;
DROP INDEX IF EXISTS pathway_enrolments_updated;
CREATE INDEX pathway_enrolments_updated ON pathway_enrolments (updated_at) WHERE removed_at IS NULL;
DROP INDEX IF EXISTS topic_enrolments_updated;
CREATE INDEX topic_enrolments_updated ON topic_enrolments (updated_at) WHERE removed_at IS NULL;
DROP INDEX IF EXISTS external_knowledges_updated;
CREATE INDEX external_knowledges_updated ON external_knowledges (updated_at);
DROP INDEX IF EXISTS external_knowledges_user;
CREATE INDEX IF NOT EXISTS external_knowledges_user ON external_knowledges (user_id);
DROP TRIGGER external_knowledges_id_fixed ON external_knowledges;
DROP TRIGGER pathway_enrolments_id_fixed ON pathway_enrolments;
DROP TRIGGER topic_enrolments_id_fixed ON topic_enrolments;
DROP FUNCTION list_rank_id_fixed();
DROP TRIGGER external_knowledges_rank_delete ON external_knowledges;
DROP TRIGGER external_knowledges_rank_insert ON external_knowledges;
DROP TRIGGER pathway_enrolments_rank_update ON pathway_enrolments;
DROP TRIGGER pathway_enrolments_rank_delete ON pathway_enrolments;
DROP TRIGGER pathway_enrolments_rank_insert ON pathway_enrolments;
DROP TRIGGER topic_enrolments_rank_update ON topic_enrolments;
DROP TRIGGER topic_enrolments_rank_delete ON topic_enrolments;
DROP TRIGGER topic_enrolments_rank_insert ON topic_enrolments;
DROP FUNCTION list_rank_mark();
DROP TABLE knowledge_rank_dirty;
DROP TABLE knowledge_rank_anchors;
DROP TABLE pathway_enrolment_rank_dirty;
DROP TABLE pathway_enrolment_rank_anchors;
DROP TABLE topic_enrolment_rank_dirty;
DROP TABLE topic_enrolment_rank_anchors;
