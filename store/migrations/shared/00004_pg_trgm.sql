-- Shared: the pg_trgm extension (trigram operator classes), installed once
-- per database in public, so that every tenant schema can index lower-cased
-- custom values for the partial matches of x-<text field> and x-<list field>
-- filters (tenant migration 00019; docs/decisions.md, "GET /papi/users").
-- Trusted since PostgreSQL 13: the database owner may create it without
-- being a superuser (docs/operations.md, "Database role").

-- +goose Up
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;

-- +goose Down
-- Tenant indexes depend on it: roll back tenant migration 00019 first.
DROP EXTENSION IF EXISTS pg_trgm;
