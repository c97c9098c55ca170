DROP INDEX network_callbacks_processed;
ALTER TABLE plans DROP COLUMN retention_days;
