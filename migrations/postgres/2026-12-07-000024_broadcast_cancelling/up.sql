-- A cancel moves the broadcast to `cancelling` first and to `cancelled` only once none of its messages is left
-- to cancel, so a cancel that stopped half-way (a lost connection, a crash) shows as such and is finished by a
-- retry or by the pacer, which finds such broadcasts by this partial index.
ALTER TABLE broadcasts DROP CONSTRAINT broadcasts_state_check;
ALTER TABLE broadcasts ADD CONSTRAINT broadcasts_state_check
    CHECK (state IN ('scheduled', 'running', 'paused', 'completed', 'cancelling', 'cancelled'));
CREATE INDEX broadcasts_cancelling ON broadcasts (updated_at, id) WHERE state = 'cancelling';
