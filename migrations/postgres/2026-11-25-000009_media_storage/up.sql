-- Each plan bounds the bytes of unexpired uploads an organization holds (docs/api.md §8);
-- NULL is unlimited. The seeded plans get the values of Plan::defaults() (a store test compares them);
-- plans an operator added stay unlimited until set.
ALTER TABLE plans ADD COLUMN media_storage_bytes BIGINT NULL CHECK (media_storage_bytes >= 0);
UPDATE plans SET media_storage_bytes = 0 WHERE name = 'trial';
UPDATE plans SET media_storage_bytes = 2000000000 WHERE name = 'starter';
UPDATE plans SET media_storage_bytes = 20000000000 WHERE name = 'business';
UPDATE plans SET media_storage_bytes = 200000000000 WHERE name = 'enterprise';
-- The storage check sums an organization's unexpired uploads.
CREATE INDEX media_files_organization_expiry ON media_files (organization_id, expires_at);
