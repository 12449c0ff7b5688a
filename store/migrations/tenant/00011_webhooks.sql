-- Tenant schema: webhooks (docs/decisions.md, "Webhooks"). An event is recorded in the transaction of the
-- change that caused it, with one delivery per subscribed endpoint; the
-- worker drains each endpoint's due deliveries in order.

-- +goose Up
CREATE TABLE webhook_endpoints (
    id                         bigserial   PRIMARY KEY,
    url                        text        NOT NULL,
    description                text        NOT NULL DEFAULT '',
    -- event types, or '*' for every type
    events                     text[]      NOT NULL,
    -- whsec_<base64>; the previous one also signs until it expires (rotation)
    secret                     text        NOT NULL,
    previous_secret            text,
    previous_secret_expires_at timestamptz,
    enabled                    boolean     NOT NULL DEFAULT true,
    disabled_reason            text,
    disabled_at                timestamptz,
    -- the first failed attempt since the last success (5 days: disabled)
    failing_since              timestamptz,
    -- Retry-After of the receiver: nothing is sent before then
    paused_until               timestamptz,
    -- the worker draining the endpoint holds it until lease_until
    lease_owner                text,
    lease_until                timestamptz,
    -- a drain job is scheduled for then (retries, the end of a pause)
    drain_at                   timestamptz,
    created_at                 timestamptz NOT NULL,
    updated_at                 timestamptz NOT NULL
);

CREATE TABLE webhook_events (
    id         text        PRIMARY KEY, -- evt_<ULID>
    type       text        NOT NULL,
    created_at timestamptz NOT NULL,
    -- the resource as the API returns it; json (not jsonb) keeps its bytes
    data       json        NOT NULL
);
CREATE INDEX webhook_events_created_at ON webhook_events (created_at);

CREATE TABLE webhook_deliveries (
    id               bigserial   PRIMARY KEY,
    endpoint_id      bigint      NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    event_id         text        NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
    status           text        NOT NULL DEFAULT 'pending'
                                 CHECK (status IN ('pending', 'succeeded', 'failed')),
    attempts         integer     NOT NULL DEFAULT 0,
    -- NULL: the worker's retry schedule; set for single attempts (test, manual retry)
    max_attempts     integer,
    next_attempt_at  timestamptz,
    last_attempt_at  timestamptz,
    last_status_code integer,
    last_duration_ms integer,
    last_error       text,
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL
);
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, id);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (endpoint_id, id) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);

CREATE TABLE webhook_attempts (
    id          bigserial   PRIMARY KEY,
    delivery_id bigint      NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempt     integer     NOT NULL,
    status_code integer,
    duration_ms integer     NOT NULL,
    error       text,
    created_at  timestamptz NOT NULL
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, attempt);

-- +goose Down
DROP TABLE webhook_attempts;
DROP TABLE webhook_deliveries;
DROP TABLE webhook_events;
DROP TABLE webhook_endpoints;
