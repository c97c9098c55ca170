-- Reliability: idempotency claims owned by their request, and callbacks that keep failing parked.

-- Each idempotency claim carries its own token: completing or releasing a record is done only by the
-- request whose claim it still is, so a request whose lock lapsed cannot overwrite the claim that took over.
ALTER TABLE idempotency_keys ADD COLUMN claim_token TEXT NULL;

-- A stored callback that keeps failing is parked after a few attempts instead of blocking the backlog:
-- how often it failed, the last error, and when it was parked (kept for inspection and requeueing).
ALTER TABLE network_callbacks ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE network_callbacks ADD COLUMN last_error TEXT NULL;
ALTER TABLE network_callbacks ADD COLUMN parked_at TEXT NULL;
DROP INDEX network_callbacks_unprocessed;
CREATE INDEX network_callbacks_unprocessed ON network_callbacks (received_at)
    WHERE processed_at IS NULL AND parked_at IS NULL;
CREATE INDEX network_callbacks_parked ON network_callbacks (parked_at) WHERE parked_at IS NOT NULL;
