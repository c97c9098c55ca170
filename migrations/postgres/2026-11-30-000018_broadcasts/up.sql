-- Broadcasts (docs/api.md §4.10): one template to many recipients, released to dispatch at the
-- sender's pace. Their messages are ordinary messages carrying `broadcast_id`; their outbox jobs carry it
-- too and stay held (due 9999-01-01) until the pacer releases them.
CREATE TABLE broadcasts (
    id                  TEXT PRIMARY KEY,
    organization_id     TEXT NOT NULL REFERENCES organizations (id),
    sender_id           TEXT NOT NULL,
    from_number         TEXT NOT NULL,
    template_name       TEXT NOT NULL,
    template_language   TEXT NOT NULL,
    state               TEXT NOT NULL
        CHECK (state IN ('scheduled', 'running', 'paused', 'completed', 'cancelled')),
    total               INTEGER NOT NULL CHECK (total > 0),
    released            INTEGER NOT NULL DEFAULT 0 CHECK (released >= 0),
    send_at             TIMESTAMPTZ NULL,
    -- JSON of the pause: code, detail, network_code, paused_at.
    pause               TEXT NULL,
    idempotency_key     TEXT NULL,
    request_fingerprint TEXT NULL,
    -- The pacer's own marks: its last progress event, and the failure time of the last failed message it
-- looked at.
    progress_at         TIMESTAMPTZ NULL,
    failures_seen       TIMESTAMPTZ NULL,
    created_at          TIMESTAMPTZ NOT NULL,
    updated_at          TIMESTAMPTZ NOT NULL,
    completed_at        TIMESTAMPTZ NULL,
    cancelled_at        TIMESTAMPTZ NULL
);
CREATE INDEX broadcasts_by_organization ON broadcasts (organization_id, id);
-- NULL keys are distinct: broadcasts without a key are not constrained.
CREATE UNIQUE INDEX broadcasts_by_key ON broadcasts (organization_id, idempotency_key);
CREATE INDEX broadcasts_active ON broadcasts (id) WHERE state IN ('scheduled', 'running');

ALTER TABLE messages ADD COLUMN broadcast_id TEXT NULL;
-- Partial: single sends (no broadcast) never write these entries.
CREATE INDEX messages_by_broadcast ON messages (broadcast_id, id) WHERE broadcast_id IS NOT NULL;
CREATE INDEX messages_by_broadcast_status ON messages (broadcast_id, status, id) WHERE broadcast_id IS NOT NULL;
-- The messaging limit tier counts the unique recipients of a sender's templates in the last 24 hours.
CREATE INDEX messages_by_sender_submitted ON messages (sender_id, submitted_at)
    WHERE submitted_at IS NOT NULL AND message_type = 'template';

ALTER TABLE outbox ADD COLUMN broadcast_id TEXT NULL;
CREATE INDEX outbox_by_broadcast ON outbox (broadcast_id, available_at, message_id) WHERE broadcast_id IS NOT NULL;

-- An endpoint that took every event kind (which is what `events` omitted gave) takes the new kinds too;
-- one that chose some keeps exactly its choice.
ALTER TABLE webhook_endpoints ADD COLUMN sub_broadcast_progress BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE webhook_endpoints ADD COLUMN sub_broadcast_completed BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE webhook_endpoints SET sub_broadcast_progress = TRUE, sub_broadcast_completed = TRUE
WHERE sub_status AND sub_failed AND sub_inbound AND sub_template_status AND sub_template_quality
    AND sub_template_category AND sub_sender_quality AND sub_account_update AND sub_contact_preferences;

ALTER TABLE events DROP CONSTRAINT events_event_type_check;
ALTER TABLE events ADD CONSTRAINT events_event_type_check CHECK (event_type IN (
    'message.status', 'message.failed', 'message.inbound', 'webhook.test',
    'template.status', 'template.quality', 'template.category', 'sender.quality', 'account.update',
    'contact.preferences', 'broadcast.progress', 'broadcast.completed'));
