-- Customer webhooks, SQLite: endpoints, one delivery per (endpoint, event), and each delivery's
-- attempts. Times are TEXT as in 000001.
-- Deliveries are written in the transaction that writes their event (the fan-out), so no event exists
-- without its deliveries.

CREATE TABLE webhook_endpoints (
    id                         TEXT PRIMARY KEY,
    organization_id            TEXT NOT NULL REFERENCES organizations (id),
    url                        TEXT NOT NULL,
    -- The event selection: message.status, message.failed, message.inbound.
    sub_status                 BOOLEAN NOT NULL,
    sub_failed                 BOOLEAN NOT NULL,
    sub_inbound                BOOLEAN NOT NULL,
    description                TEXT NULL,
    enabled                    BOOLEAN NOT NULL,
    disabled_reason            TEXT NULL,
    -- Sealed by the app's SecretSealer; never stored in the clear.
    secret                     BLOB NOT NULL,
    previous_secret            BLOB NULL,
    previous_secret_expires_at TEXT NULL,
    failing_since              TEXT NULL,
    created_at                 TEXT NOT NULL,
    updated_at                 TEXT NOT NULL
);
CREATE INDEX webhook_endpoints_by_organization ON webhook_endpoints (organization_id, id);

CREATE TABLE webhook_deliveries (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    endpoint_id     TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    event_id        TEXT NOT NULL REFERENCES events (id),
    event_type      TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'skipped')),
    -- Attempts recorded so far.
    attempts        INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at TEXT NULL,
    claim_token     TEXT NULL,
    lease_until     TEXT NULL,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    UNIQUE (endpoint_id, event_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, id);

CREATE TABLE webhook_attempts (
    delivery_id     TEXT NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    number          INTEGER NOT NULL CHECK (number > 0),
    at              TEXT NOT NULL,
    status_code     INTEGER NULL,
    -- The first 1 KiB of the answer.
    response_prefix TEXT NOT NULL,
    error_kind      TEXT NULL,
    duration_ms     BIGINT NOT NULL CHECK (duration_ms >= 0),
    PRIMARY KEY (delivery_id, number)
);
