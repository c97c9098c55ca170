-- The network's notices about templates, numbers and accounts (docs/api.md §9, §6, §6.2).
-- SQLite cannot change the event_type CHECK in place: `events` is rebuilt as SQLite's ALTER TABLE page
-- describes (foreign keys off, new table, copy, drop, rename, indexes again, foreign key check). Foreign keys
-- must be off because webhook_deliveries references events (dropping the old table would otherwise delete
-- through them); PRAGMA foreign_keys is a no-op inside a transaction, so this migration runs outside the
-- harness's transaction (metadata.toml) and opens its own.
PRAGMA foreign_keys = OFF;
BEGIN IMMEDIATE;

CREATE TABLE events_rebuilt (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    event_type      TEXT NOT NULL
        CHECK (event_type IN ('message.status', 'message.failed', 'message.inbound', 'webhook.test',
            'template.status', 'template.quality', 'template.category', 'sender.quality', 'account.update')),
    -- NULL for events not about a message (template, sender and account events).
    message_id      TEXT NULL,
    -- Orders the events of one message: 1, 2, 3… (1 for events not about a message).
    sequence        INTEGER NOT NULL CHECK (sequence > 0),
    -- The JSON body delivered to the customer.
    payload         TEXT NOT NULL,
    occurred_at     TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    trace_context   TEXT NULL,
    -- A notice's key: a redelivered or reprocessed callback records its event once per organization.
    dedupe_key      TEXT NULL
);
-- The rowids are copied too, so the rows keep their order.
INSERT INTO events_rebuilt
    (rowid, id, organization_id, event_type, message_id, sequence, payload, occurred_at, created_at,
     trace_context)
SELECT rowid, id, organization_id, event_type, message_id, sequence, payload, occurred_at, created_at,
       trace_context
FROM events
ORDER BY rowid;
DROP TABLE events;
ALTER TABLE events_rebuilt RENAME TO events;
-- The indexes of 000002, which went with the old table, and the key's.
CREATE INDEX events_by_organization ON events (organization_id, id);
CREATE UNIQUE INDEX events_by_message ON events (message_id, sequence);
CREATE UNIQUE INDEX events_by_dedupe_key ON events (organization_id, dedupe_key);

ALTER TABLE templates ADD COLUMN quality TEXT NULL;
ALTER TABLE templates ADD COLUMN rejected_reason TEXT NULL;
ALTER TABLE templates ADD COLUMN updated_at TEXT NULL;

ALTER TABLE senders ADD COLUMN quality_rating TEXT NULL;
ALTER TABLE senders ADD COLUMN messaging_limit TEXT NULL;
ALTER TABLE senders ADD COLUMN quality_updated_at TEXT NULL;

-- An endpoint that took every message event (which is what `events` omitted gave) takes the new kinds
-- too; one that chose some of them keeps exactly its choice.
ALTER TABLE webhook_endpoints ADD COLUMN sub_template_status BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE webhook_endpoints ADD COLUMN sub_template_quality BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE webhook_endpoints ADD COLUMN sub_template_category BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE webhook_endpoints ADD COLUMN sub_sender_quality BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE webhook_endpoints ADD COLUMN sub_account_update BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE webhook_endpoints SET
    sub_template_status = TRUE, sub_template_quality = TRUE, sub_template_category = TRUE,
    sub_sender_quality = TRUE, sub_account_update = TRUE
WHERE sub_status AND sub_failed AND sub_inbound;

COMMIT;
PRAGMA foreign_keys = ON;
