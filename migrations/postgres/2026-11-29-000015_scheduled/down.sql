ALTER TABLE messages DROP COLUMN cancelled_at;
ALTER TABLE messages DROP COLUMN scheduled_for;
