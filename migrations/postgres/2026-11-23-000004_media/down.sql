DROP INDEX inbound_messages_by_media_id;
ALTER TABLE inbound_messages DROP COLUMN media_id;
DROP TABLE network_media_uploads;
DROP TABLE media_files;
