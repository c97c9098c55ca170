ALTER TABLE messages DROP COLUMN route;
