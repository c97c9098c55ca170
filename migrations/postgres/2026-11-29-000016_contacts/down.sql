-- Fails while a `contact.preferences` event is recorded (the CHECK would not hold): reverting must not
-- drop customer events silently.
ALTER TABLE webhook_endpoints DROP COLUMN sub_contact_preferences;
ALTER TABLE events DROP CONSTRAINT events_event_type_check;
ALTER TABLE events ADD CONSTRAINT events_event_type_check CHECK (event_type IN (
    'message.status', 'message.failed', 'message.inbound', 'webhook.test',
    'template.status', 'template.quality', 'template.category', 'sender.quality', 'account.update'));
DROP TABLE contact_keyword_rules;
DROP TABLE contacts;
