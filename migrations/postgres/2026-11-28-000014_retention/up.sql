-- Data retention per plan (docs/api.md §8, docs/operations.md "Data retention"). Final messages
-- and their rows older than their organization's plan's retention are deleted in bounded batches by the
-- retention worker; plans made later keep 90 days unless an operator sets otherwise.
ALTER TABLE plans ADD COLUMN retention_days INTEGER NOT NULL DEFAULT 90 CHECK (retention_days >= 1);
UPDATE plans SET retention_days = 30 WHERE name = 'trial';
UPDATE plans SET retention_days = 90 WHERE name = 'starter';
UPDATE plans SET retention_days = 180 WHERE name = 'business';
UPDATE plans SET retention_days = 365 WHERE name = 'enterprise';
-- The retention worker finds old processed callbacks by time; the existing indexes cover unprocessed and
-- parked ones only.
CREATE INDEX network_callbacks_processed ON network_callbacks (received_at) WHERE processed_at IS NOT NULL;
