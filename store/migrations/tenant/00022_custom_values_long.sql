-- Tenant schema: which fields hold a value too long for
-- user_custom_values_value (over 64 bytes). An x-<text|list> filter matches
-- a field's distinct values first only when none is (users_custom_filter.go,
-- valueSetSQL); this index answers that without reading the field's values.

-- +goose Up
CREATE INDEX IF NOT EXISTS user_custom_values_long ON user_custom_values (field_id) WHERE length(value) > 64;

-- +goose Down
DROP INDEX IF EXISTS user_custom_values_long;
