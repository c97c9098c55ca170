DROP INDEX media_files_organization_expiry;
ALTER TABLE plans DROP COLUMN media_storage_bytes;
