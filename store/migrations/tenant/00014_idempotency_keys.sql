-- Tenant schema: the Idempotency-Key of writes (docs/decisions.md,
-- "Idempotency-Key"). A row is claimed ('running') in a short transaction of
-- its own when a keyed request starts; the request's own transaction turns it
-- 'done' with the stored answer, so the answer commits with the change or not
-- at all. A failed request deletes its claim. claim identifies the request
-- that holds the row, so that a request whose lease ran out (and was taken
-- over) can no longer store its answer. Rows live 24 hours (expires_at); the
-- idempotency_purge job deletes the expired ones.
-- Runs with search_path set to the tenant's schema only.

-- +goose Up
CREATE TABLE idempotency_keys (
    key          text        PRIMARY KEY,
    fingerprint  bytea       NOT NULL,
    state        text        NOT NULL CHECK (state IN ('running', 'done')),
    claim        bytea       NOT NULL,
    status       int,
    content_type text,
    location     text,
    body         bytea,
    locked_until timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    CHECK (state = 'running' OR (status IS NOT NULL AND body IS NOT NULL))
);
CREATE INDEX idempotency_keys_expires_at ON idempotency_keys (expires_at);

-- +goose Down
DROP TABLE idempotency_keys;
