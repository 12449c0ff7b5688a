-- Tenant schema: GET /users filtered by updated_after/updated_before alone
-- reads the matches' keys (created_at, id) from this index, index-only,
-- sorts them and reads only the page's rows (sortedMatchesPageSQL). Without
-- the keys in the index it would walk users_created and test each row.

-- +goose Up
DROP INDEX IF EXISTS users_updated;
CREATE INDEX users_updated ON users (updated_at) INCLUDE (created_at, id);

-- +goose Down
DROP INDEX IF EXISTS users_updated;
CREATE INDEX users_updated ON users (updated_at);
