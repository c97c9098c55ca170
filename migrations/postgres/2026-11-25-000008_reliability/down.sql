DROP INDEX network_callbacks_parked;
DROP INDEX network_callbacks_unprocessed;
ALTER TABLE network_callbacks DROP COLUMN parked_at;
ALTER TABLE network_callbacks DROP COLUMN last_error;
ALTER TABLE network_callbacks DROP COLUMN attempts;
CREATE INDEX network_callbacks_unprocessed ON network_callbacks (received_at) WHERE processed_at IS NULL;
ALTER TABLE idempotency_keys DROP COLUMN claim_token;
