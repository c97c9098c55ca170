-- Herald's initial schema (PostgreSQL).
-- Ids are the domain's prefixed, time-ordered text ids (`msg_01J…`), so ORDER BY id is creation order.
-- JSON is stored as TEXT on both backends so that one row mapping serves PostgreSQL and SQLite; nothing
-- queries inside those documents.
-- Every table that grows carries organization_id, so the schema can be sharded by organization later.

CREATE TABLE plans (
    name              TEXT PRIMARY KEY,
    rate_per_second   INTEGER NOT NULL CHECK (rate_per_second >= 0),
    burst             INTEGER NOT NULL CHECK (burst >= 0),
    -- NULL: unlimited.
    monthly_quota     BIGINT NULL CHECK (monthly_quota >= 0),
    text_allowed      BOOLEAN NOT NULL,
    template_allowed  BOOLEAN NOT NULL,
    media_allowed     BOOLEAN NOT NULL,
    max_file_bytes    BIGINT NOT NULL CHECK (max_file_bytes >= 0),
    webhook_endpoints INTEGER NOT NULL CHECK (webhook_endpoints >= 0)
);

-- docs/api.md §8; identical to Plan::defaults() in herald-domain (a store test compares them).
INSERT INTO plans (name, rate_per_second, burst, monthly_quota, text_allowed, template_allowed,
                   media_allowed, max_file_bytes, webhook_endpoints) VALUES
    ('trial',         1,    5,    1000, TRUE, TRUE, FALSE, 100000000,  1),
    ('starter',      20,   40,  100000, TRUE, TRUE, TRUE,  100000000,  3),
    ('business',     80,  160, 5000000, TRUE, TRUE, TRUE,  100000000, 10),
    ('enterprise', 1000, 2000,    NULL, TRUE, TRUE, TRUE,  100000000, 50);

CREATE TABLE organizations (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('active', 'suspended', 'closed')),
    plan        TEXT NOT NULL REFERENCES plans (name),
    owner_email TEXT NULL,
    created_at  TIMESTAMPTZ NOT NULL
);

CREATE TABLE senders (
    id                      TEXT PRIMARY KEY,
    organization_id         TEXT NOT NULL REFERENCES organizations (id),
    number                  TEXT NOT NULL,
    phone_number_id         TEXT NOT NULL UNIQUE,
    waba_id                 TEXT NOT NULL,
    access_token_env        TEXT NULL,
    -- Filled by a later issue (tokens encrypted with a key from configuration).
    access_token_ciphertext TEXT NULL,
    is_default              BOOLEAN NOT NULL,
    throughput_per_second   INTEGER NOT NULL CHECK (throughput_per_second > 0),
    created_at              TIMESTAMPTZ NOT NULL,
    UNIQUE (organization_id, number)
);
-- At most one default sender per organization.
CREATE UNIQUE INDEX senders_one_default ON senders (organization_id) WHERE is_default;

CREATE TABLE api_keys (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    name            TEXT NULL,
    prefix          TEXT NOT NULL,
    -- SHA-256 of the whole key, lowercase hex; the key itself is never stored.
    digest          TEXT NOT NULL UNIQUE,
    status          TEXT NOT NULL CHECK (status IN ('active', 'disabled')),
    created_at      TIMESTAMPTZ NOT NULL,
    last_used_at    TIMESTAMPTZ NULL,
    disabled_at     TIMESTAMPTZ NULL
);
CREATE INDEX api_keys_by_organization ON api_keys (organization_id, created_at);

CREATE TABLE messages (
    id                 TEXT PRIMARY KEY,
    organization_id    TEXT NOT NULL,
    sender_id          TEXT NOT NULL,
    from_number        TEXT NOT NULL,
    to_number          TEXT NOT NULL,
    message_type       TEXT NOT NULL,
    -- JSON of the message content (herald-store's DTOs).
    content            TEXT NOT NULL,
    client_reference   TEXT NULL,
    status             TEXT NOT NULL,
    network_message_id TEXT NULL,
    -- JSON of the message error.
    error              TEXT NULL,
    created_at         TIMESTAMPTZ NOT NULL,
    updated_at         TIMESTAMPTZ NOT NULL,
    accepted_at        TIMESTAMPTZ NULL,
    submitted_at       TIMESTAMPTZ NULL,
    sent_at            TIMESTAMPTZ NULL,
    delivered_at       TIMESTAMPTZ NULL,
    read_at            TIMESTAMPTZ NULL,
    failed_at          TIMESTAMPTZ NULL
);
CREATE INDEX messages_by_organization ON messages (organization_id, id);
CREATE INDEX messages_by_status ON messages (organization_id, status, id);
CREATE INDEX messages_by_recipient ON messages (organization_id, to_number, id);
CREATE INDEX messages_by_client_reference ON messages (organization_id, client_reference);
CREATE INDEX messages_by_network_id ON messages (network_message_id);

CREATE TABLE message_events (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    message_id      TEXT NOT NULL REFERENCES messages (id),
    status          TEXT NOT NULL,
    previous_status TEXT NULL,
    applied         BOOLEAN NOT NULL,
    source          TEXT NOT NULL,
    error           TEXT NULL,
    occurred_at     TIMESTAMPTZ NOT NULL,
    recorded_at     TIMESTAMPTZ NOT NULL
);
CREATE INDEX message_events_by_message ON message_events (message_id, id);

CREATE TABLE outbox (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    message_id      TEXT NOT NULL UNIQUE REFERENCES messages (id),
    sender_id       TEXT NOT NULL,
    state           TEXT NOT NULL CHECK (state IN ('pending', 'in_flight', 'done', 'failed')),
    available_at    TIMESTAMPTZ NOT NULL,
    deadline        TIMESTAMPTZ NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    -- Set by the dispatch workers when they claim a job (a later issue).
    claim_token     TEXT NULL,
    lease_until     TIMESTAMPTZ NULL,
    last_error      TEXT NULL,
    created_at      TIMESTAMPTZ NOT NULL,
    updated_at      TIMESTAMPTZ NOT NULL
);
CREATE INDEX outbox_ready ON outbox (state, available_at);

CREATE TABLE usage_counters (
    organization_id TEXT NOT NULL,
    -- 'YYYY-MM' (UTC).
    period          TEXT NOT NULL,
    count           BIGINT NOT NULL DEFAULT 0 CHECK (count >= 0),
    PRIMARY KEY (organization_id, period)
);

CREATE TABLE idempotency_keys (
    organization_id TEXT NOT NULL,
    key             TEXT NOT NULL,
    -- SHA-256 of the request's canonical form, lowercase hex.
    fingerprint     TEXT NOT NULL,
    state           TEXT NOT NULL CHECK (state IN ('pending', 'completed')),
    message_id      TEXT NULL,
    locked_at       TIMESTAMPTZ NOT NULL,
    completed_at    TIMESTAMPTZ NULL,
    PRIMARY KEY (organization_id, key)
);

CREATE TABLE templates (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    waba_id         TEXT NOT NULL,
    name            TEXT NOT NULL,
    language        TEXT NOT NULL,
    status          TEXT NOT NULL,
    category        TEXT NOT NULL,
    -- JSON of the parsed template structure.
    structure       TEXT NOT NULL,
    network_id      TEXT NULL,
    synced_at       TIMESTAMPTZ NOT NULL,
    UNIQUE (organization_id, waba_id, name, language)
);

CREATE TABLE service_windows (
    organization_id TEXT NOT NULL,
    sender_id       TEXT NOT NULL,
    recipient       TEXT NOT NULL,
    last_inbound_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (organization_id, sender_id, recipient)
);
