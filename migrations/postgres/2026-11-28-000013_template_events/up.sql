-- The network's notices about templates, numbers and accounts (docs/api.md §9, §6, §6.2).
-- Customer events of five new kinds, not about a message (message_id NULL); a notice's key makes a
-- redelivered or reprocessed callback record its event once per organization.
ALTER TABLE events DROP CONSTRAINT events_event_type_check;
ALTER TABLE events ADD CONSTRAINT events_event_type_check CHECK (event_type IN (
    'message.status', 'message.failed', 'message.inbound', 'webhook.test',
    'template.status', 'template.quality', 'template.category', 'sender.quality', 'account.update'));
ALTER TABLE events ADD COLUMN dedupe_key TEXT NULL;
-- NULLs are distinct: message events (no key) are not constrained by it.
CREATE UNIQUE INDEX events_by_dedupe_key ON events (organization_id, dedupe_key);

-- What the network says of a template besides its definition, and when Herald's copy last changed.
ALTER TABLE templates ADD COLUMN quality TEXT NULL;
ALTER TABLE templates ADD COLUMN rejected_reason TEXT NULL;
ALTER TABLE templates ADD COLUMN updated_at TIMESTAMPTZ NULL;

-- A number's quality and messaging limit as the network last reported them.
ALTER TABLE senders ADD COLUMN quality_rating TEXT NULL;
ALTER TABLE senders ADD COLUMN messaging_limit TEXT NULL;
ALTER TABLE senders ADD COLUMN quality_updated_at TIMESTAMPTZ NULL;

-- Subscriptions to the new kinds. An endpoint that took every message event (which is what `events`
-- omitted gave) takes the new kinds too; one that chose some of them keeps exactly its choice.
ALTER TABLE webhook_endpoints ADD COLUMN sub_template_status BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE webhook_endpoints ADD COLUMN sub_template_quality BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE webhook_endpoints ADD COLUMN sub_template_category BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE webhook_endpoints ADD COLUMN sub_sender_quality BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE webhook_endpoints ADD COLUMN sub_account_update BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE webhook_endpoints SET
    sub_template_status = TRUE, sub_template_quality = TRUE, sub_template_category = TRUE,
    sub_sender_quality = TRUE, sub_account_update = TRUE
WHERE sub_status AND sub_failed AND sub_inbound;
