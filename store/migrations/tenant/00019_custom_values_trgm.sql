-- Tenant schema: x-<text field> and x-<list field> filters match a part of
-- a value ignoring case (lower(value) LIKE '%part%'); a trigram index on the
-- lower-cased values finds the candidates without reading every value of
-- the field. The field is not in the index (GIN over bigint would need
-- btree_gin): its condition is checked on the rows found. The operator
-- class lives in public (shared migration 00004), which is not on this
-- migration's search_path, hence the qualified name.

-- +goose Up
CREATE INDEX IF NOT EXISTS user_custom_values_lower_trgm ON user_custom_values
    USING gin (lower(value) public.gin_trgm_ops);

-- +goose Down
DROP INDEX IF EXISTS user_custom_values_lower_trgm;
