-- Shared schema: the due-work ledger (docs/architecture.md, "Due-work
-- ledger"). One row per tenant and kind of periodic work (scheduled
-- activation, recertification, list rank anchors, webhook maintenance,
-- certificate purge, idempotency key purge): when that work is next due in
-- the tenant. The transaction that creates future work lowers due_at to
-- that work's time and bumps version, in the same transaction as the data;
-- each per-minute sweep reads only the rows that are due, visits those
-- tenants, and then writes the tenant's next due time with a compare-and-set
-- on the version it read (NULL: nothing pending). A tenant with nothing due
-- is never visited. Rows are never deleted by a sweep (a version only
-- grows), only with their tenant.

-- +goose Up
CREATE TABLE tenant_due_work (
    tenant_id bigint      NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    kind      text        NOT NULL,
    due_at    timestamptz,
    version   bigint      NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, kind)
);
CREATE INDEX tenant_due_work_due ON tenant_due_work (kind, due_at);

-- An upgrade visits every tenant once, for every kind, and so learns each
-- one's real next due time.
INSERT INTO tenant_due_work (tenant_id, kind, due_at)
SELECT t.id, k.kind, now() FROM tenants t
CROSS JOIN (VALUES ('activation'), ('recertify'), ('list_rank'), ('webhooks'),
    ('certificate_purge'), ('idempotency_purge')) AS k (kind);

-- +goose Down
DROP TABLE tenant_due_work;
