-- `events` is rebuilt for its event_type CHECK as 000018 does it (foreign keys off, outside the harness's
-- transaction: metadata.toml).
PRAGMA foreign_keys = OFF;
BEGIN IMMEDIATE;

-- Erasing a person (docs/api.md §7.2). The erasure log keeps, per organization, the keyed one-way marker of
-- every identity (a number's person key, a user id) of each person erased: a later request naming any of them
-- is answered as erased, and finds the kept rows, which hold the marker instead of the number.
CREATE TABLE erasures (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    marker          TEXT NOT NULL,
    erased_at       TEXT NOT NULL,
    PRIMARY KEY (organization_id, marker)
);

-- The stored files of an erased person's messages whose rows are gone and whose bytes are still to be
-- removed: written in the erasure's transaction, cleared once the bytes are gone, so a crash in between leaves
-- them here for the next erasure or media cleanup to remove.
CREATE TABLE erased_media (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    sha256          TEXT NOT NULL,
    erased_at       TEXT NOT NULL,
    PRIMARY KEY (organization_id, sha256)
);

-- An endpoint that took every event kind takes `contact.erased` too; one that chose some keeps its choice.
ALTER TABLE webhook_endpoints ADD COLUMN sub_contact_erased BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE webhook_endpoints SET sub_contact_erased = TRUE
WHERE sub_status AND sub_failed AND sub_inbound AND sub_template_status AND sub_template_quality
    AND sub_template_category AND sub_sender_quality AND sub_account_update AND sub_contact_preferences
    AND sub_broadcast_progress AND sub_broadcast_completed;

CREATE TABLE events_rebuilt (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    event_type      TEXT NOT NULL
        CHECK (event_type IN ('message.status', 'message.failed', 'message.inbound', 'webhook.test',
            'template.status', 'template.quality', 'template.category', 'sender.quality', 'account.update',
            'contact.preferences', 'broadcast.progress', 'broadcast.completed', 'contact.erased')),
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

COMMIT;
PRAGMA foreign_keys = ON;
