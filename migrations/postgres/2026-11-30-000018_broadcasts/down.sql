-- Fails while a broadcast event is recorded (the CHECK breaks): reverting must not drop customer events.
ALTER TABLE events DROP CONSTRAINT events_event_type_check;
ALTER TABLE events ADD CONSTRAINT events_event_type_check CHECK (event_type IN (
    'message.status', 'message.failed', 'message.inbound', 'webhook.test',
    'template.status', 'template.quality', 'template.category', 'sender.quality', 'account.update',
    'contact.preferences'));
ALTER TABLE webhook_endpoints DROP COLUMN sub_broadcast_completed;
ALTER TABLE webhook_endpoints DROP COLUMN sub_broadcast_progress;
DROP INDEX outbox_by_broadcast;
ALTER TABLE outbox DROP COLUMN broadcast_id;
DROP INDEX messages_by_sender_submitted;
DROP INDEX messages_by_broadcast_status;
DROP INDEX messages_by_broadcast;
ALTER TABLE messages DROP COLUMN broadcast_id;
DROP TABLE broadcasts;
