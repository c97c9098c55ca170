ALTER TABLE inbound_messages DROP COLUMN from_user_id;
