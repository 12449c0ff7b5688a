-- Tenant schema: the tenant's custom user fields (docs/decisions.md, "Catalog, topics and pathways"),
-- sent and returned as X-<name> properties. At most 20 per tenant; the store
-- enforces that under a table lock when it inserts.

-- +goose Up
CREATE TABLE custom_fields (
    id         bigserial   PRIMARY KEY,
    name       text        NOT NULL,
    field_type text        NOT NULL CHECK (field_type IN ('string', 'number', 'date', 'list')),
    options    text[]      NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now(),
    CHECK ((field_type = 'list') = (cardinality(options) > 0))
);
CREATE UNIQUE INDEX custom_fields_name ON custom_fields (lower(name));

-- +goose Down
DROP TABLE custom_fields;
