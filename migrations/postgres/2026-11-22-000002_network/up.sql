-- Dispatch and network callbacks: raw callbacks, inbound messages, customer events, and the
-- outbox's wait-for-callback flag.

-- A job whose send had an unknown outcome waits for a callback; the next claim must know it waited.
ALTER TABLE outbox ADD COLUMN awaiting_callback BOOLEAN NOT NULL DEFAULT false;
-- Claiming also takes in-flight jobs whose lease expired.
CREATE INDEX outbox_expired_leases ON outbox (state, lease_until);

-- The network's callbacks, stored raw before they are acknowledged, so none is lost if the process dies.
CREATE TABLE network_callbacks (
    id           TEXT PRIMARY KEY,
    received_at  TIMESTAMPTZ NOT NULL,
    body         BYTEA NOT NULL,
    processed_at TIMESTAMPTZ NULL,
    -- What was skipped while processing it, if anything.
    note         TEXT NULL
);
CREATE INDEX network_callbacks_unprocessed ON network_callbacks (received_at) WHERE processed_at IS NULL;

CREATE TABLE inbound_messages (
    id                 TEXT PRIMARY KEY,
    organization_id    TEXT NOT NULL,
    sender_id          TEXT NOT NULL,
    from_number        TEXT NOT NULL,
    network_message_id TEXT NOT NULL,
    message_type       TEXT NOT NULL,
    -- JSON of the inbound content (herald-store's DTOs).
    content            TEXT NOT NULL,
    from_name          TEXT NULL,
    context_message_id TEXT NULL,
    -- The network's message object as it arrived.
    raw                TEXT NOT NULL,
    received_at        TIMESTAMPTZ NOT NULL,
    recorded_at        TIMESTAMPTZ NOT NULL,
    -- The network redelivers callbacks: one row per network message.
    UNIQUE (organization_id, network_message_id)
);

-- Events for the customers' webhooks (docs/api.md §9), written in the transaction that caused them.
CREATE TABLE events (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    event_type      TEXT NOT NULL
        CHECK (event_type IN ('message.status', 'message.failed', 'message.inbound', 'webhook.test')),
    message_id      TEXT NULL,
    -- Orders the events of one message: 1, 2, 3…
    sequence        INTEGER NOT NULL CHECK (sequence > 0),
    -- The JSON body delivered to the customer.
    payload         TEXT NOT NULL,
    occurred_at     TIMESTAMPTZ NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL
);
CREATE INDEX events_by_organization ON events (organization_id, id);
-- Unique: two events of one message never share a sequence number.
CREATE UNIQUE INDEX events_by_message ON events (message_id, sequence);
