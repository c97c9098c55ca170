-- Fails while a contact.erased event is recorded (the copy breaks the CHECK): reverting must not drop
-- customer events silently. Runs outside the harness's transaction, as up.sql does.
PRAGMA foreign_keys = OFF;
BEGIN IMMEDIATE;

CREATE TABLE events_rebuilt (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    event_type      TEXT NOT NULL
        CHECK (event_type IN ('message.status', 'message.failed', 'message.inbound', 'webhook.test',
            'template.status', 'template.quality', 'template.category', 'sender.quality', 'account.update',
            'contact.preferences', 'broadcast.progress', 'broadcast.completed')),
    -- NULL for events not about a message (template, sender, account, contact and broadcast events).
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
ALTER TABLE webhook_endpoints DROP COLUMN sub_contact_erased;
DROP TABLE erased_media;
DROP TABLE erasures;

COMMIT;
PRAGMA foreign_keys = ON;
