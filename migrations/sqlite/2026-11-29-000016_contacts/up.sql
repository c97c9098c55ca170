-- Contacts (docs/api.md §7.1): marketing opt-outs, blocks and business-scoped user ids.
-- `events` is rebuilt for its event_type CHECK as 000013 does it (foreign keys off, outside the harness's
-- transaction: metadata.toml).
PRAGMA foreign_keys = OFF;
BEGIN IMMEDIATE;

-- One row per person and organization, found by number or by user id (each unique within the
-- organization when known). `contact_key` is the identifier the row was first recorded under and never
-- changes, so a row that learns its other identifier keeps its key.
CREATE TABLE contacts (
    organization_id      TEXT NOT NULL REFERENCES organizations (id),
    contact_key          TEXT NOT NULL,
    number               TEXT NULL,
    user_id              TEXT NULL,
    marketing            TEXT NOT NULL DEFAULT 'allowed' CHECK (marketing IN ('allowed', 'stopped')),
    marketing_changed_at TEXT NULL,
    marketing_source     TEXT NULL CHECK (marketing_source IN ('network', 'api', 'keyword')),
    blocked              BOOLEAN NOT NULL DEFAULT FALSE,
    blocked_at           TEXT NULL,
    updated_at           TEXT NOT NULL,
    PRIMARY KEY (organization_id, contact_key),
    CHECK (number IS NOT NULL OR user_id IS NOT NULL)
);
CREATE UNIQUE INDEX contacts_by_number ON contacts (organization_id, number) WHERE number IS NOT NULL;
CREATE UNIQUE INDEX contacts_by_user_id ON contacts (organization_id, user_id) WHERE user_id IS NOT NULL;

-- The STOP keyword rule of an organization: off (no row) until set. Keywords are stored upper-case, one
-- per line.
CREATE TABLE contact_keyword_rules (
    organization_id TEXT PRIMARY KEY REFERENCES organizations (id),
    stop_keywords   TEXT NOT NULL,
    resume_keywords TEXT NOT NULL,
    updated_at      TEXT NOT NULL
);

CREATE TABLE events_rebuilt (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    event_type      TEXT NOT NULL
        CHECK (event_type IN ('message.status', 'message.failed', 'message.inbound', 'webhook.test',
            'template.status', 'template.quality', 'template.category', 'sender.quality', 'account.update',
            'contact.preferences')),
    -- NULL for events not about a message (template, sender, account and contact events).
    message_id      TEXT NULL,
    sequence        INTEGER NOT NULL CHECK (sequence > 0),
    payload         TEXT NOT NULL,
    occurred_at     TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    trace_context   TEXT NULL,
    dedupe_key      TEXT NULL
);
INSERT INTO events_rebuilt
    (rowid, id, organization_id, event_type, message_id, sequence, payload, occurred_at, created_at,
     trace_context, dedupe_key)
SELECT rowid, id, organization_id, event_type, message_id, sequence, payload, occurred_at, created_at,
       trace_context, dedupe_key
FROM events
ORDER BY rowid;
DROP TABLE events;
ALTER TABLE events_rebuilt RENAME TO events;
CREATE INDEX events_by_organization ON events (organization_id, id);
CREATE UNIQUE INDEX events_by_message ON events (message_id, sequence);
CREATE UNIQUE INDEX events_by_dedupe_key ON events (organization_id, dedupe_key);

-- An endpoint that took every event kind (which is what `events` omitted gave) takes the new kind too;
-- one that chose some keeps exactly its choice.
ALTER TABLE webhook_endpoints ADD COLUMN sub_contact_preferences BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE webhook_endpoints SET sub_contact_preferences = TRUE
WHERE sub_status AND sub_failed AND sub_inbound AND sub_template_status AND sub_template_quality
    AND sub_template_category AND sub_sender_quality AND sub_account_update;

COMMIT;
PRAGMA foreign_keys = ON;
