DROP INDEX broadcasts_cancelling;
UPDATE broadcasts SET state = 'cancelled', cancelled_at = updated_at WHERE state = 'cancelling';
ALTER TABLE broadcasts DROP CONSTRAINT broadcasts_state_check;
ALTER TABLE broadcasts ADD CONSTRAINT broadcasts_state_check
    CHECK (state IN ('scheduled', 'running', 'paused', 'completed', 'cancelled'));
