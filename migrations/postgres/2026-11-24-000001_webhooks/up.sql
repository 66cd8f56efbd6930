-- Webhooks (docs/webhooks.md), PostgreSQL flavour. Keep equivalent to
-- migrations/sqlite/2026-11-24-000001_webhooks (the storage suite's schema
-- test compares both). Conventions as in the baseline.

-- One row per webhook: its subscription and where its delivery stands.
-- types: comma-separated event types, '' for every type. secret: the signing
-- key (it must be kept to sign; shown to the caller only at creation).
-- position: the last sequence of the organization's events delivered (or
-- given up on). attempts / retry_since / next_attempt_at: the failed
-- attempts of the next event. failing_since: failing without a success since.
-- claimed_until: the lease of the dispatcher delivering it (the claim token,
-- as in outbox_messages). last_attempt_number: the last delivery-log number.
CREATE TABLE webhooks (
    id TEXT NOT NULL PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    url TEXT NOT NULL,
    types TEXT NOT NULL,
    secret TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    status TEXT NOT NULL,
    disabled_at TIMESTAMP,
    disabled_reason TEXT,
    failing_since TIMESTAMP,
    position BIGINT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    retry_since TIMESTAMP,
    next_attempt_at TIMESTAMP,
    claimed_until TIMESTAMP,
    last_attempt_number BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX webhooks_organization_idx ON webhooks (organization_id, created_at);

-- The delivery log: one row per attempt, numbered per webhook (newest first
-- is number descending). status_code: NULL on a time-out or connection
-- error. outcome: SUCCEEDED, RETRYING or FAILED (given up). Pruned after
-- the event retention.
CREATE TABLE webhook_deliveries (
    webhook_id TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    number BIGINT NOT NULL,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    event_id TEXT NOT NULL,
    sequence BIGINT NOT NULL,
    attempted_at TIMESTAMP NOT NULL,
    status_code INTEGER,
    latency_ms BIGINT NOT NULL,
    error TEXT,
    outcome TEXT NOT NULL,
    PRIMARY KEY (webhook_id, number)
);
CREATE INDEX webhook_deliveries_attempted_idx ON webhook_deliveries (attempted_at);
