-- Erasing a person (docs/api.md §7.2). The erasure log keeps, per organization, the keyed one-way marker of
-- every identity (a number's person key, a user id) of each person erased: a later request naming any of them
-- is answered as erased, and finds the kept rows, which hold the marker instead of the number.
CREATE TABLE erasures (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    marker          TEXT NOT NULL,
    erased_at       TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (organization_id, marker)
);

-- The stored files of an erased person's messages whose rows are gone and whose bytes are still to be
-- removed: written in the erasure's transaction, cleared once the bytes are gone, so a crash in between leaves
-- them here for the next erasure or media cleanup to remove.
CREATE TABLE erased_media (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    sha256          TEXT NOT NULL,
    erased_at       TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (organization_id, sha256)
);

-- An endpoint that took every event kind takes `contact.erased` too; one that chose some keeps its choice.
ALTER TABLE webhook_endpoints ADD COLUMN sub_contact_erased BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE webhook_endpoints SET sub_contact_erased = TRUE
WHERE sub_status AND sub_failed AND sub_inbound AND sub_template_status AND sub_template_quality
    AND sub_template_category AND sub_sender_quality AND sub_account_update AND sub_contact_preferences
    AND sub_broadcast_progress AND sub_broadcast_completed;

ALTER TABLE events DROP CONSTRAINT events_event_type_check;
ALTER TABLE events ADD CONSTRAINT events_event_type_check CHECK (event_type IN (
    'message.status', 'message.failed', 'message.inbound', 'webhook.test',
    'template.status', 'template.quality', 'template.category', 'sender.quality', 'account.update',
    'contact.preferences', 'broadcast.progress', 'broadcast.completed', 'contact.erased'));
