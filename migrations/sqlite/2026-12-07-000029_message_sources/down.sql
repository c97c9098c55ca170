ALTER TABLE senders DROP COLUMN webhook_fields_missing;
ALTER TABLE inbound_messages DROP COLUMN echo;
ALTER TABLE inbound_messages DROP COLUMN source_field;
