-- A cancel moves the broadcast to `cancelling` first and to `cancelled` only once none of its messages is left
-- to cancel, so a cancel that stopped half-way (a lost connection, a crash) shows as such and is finished by a
-- retry or by the pacer, which finds such broadcasts by the partial index below.
-- SQLite cannot change a CHECK in place: the table is rebuilt (no table references `broadcasts`, so this runs
-- inside the harness's transaction with foreign keys on).
CREATE TABLE broadcasts_rebuilt (
    id                  TEXT PRIMARY KEY,
    organization_id     TEXT NOT NULL REFERENCES organizations (id),
    sender_id           TEXT NOT NULL,
    from_number         TEXT NOT NULL,
    template_name       TEXT NOT NULL,
    template_language   TEXT NOT NULL,
    state               TEXT NOT NULL
        CHECK (state IN ('scheduled', 'running', 'paused', 'completed', 'cancelling', 'cancelled')),
    total               INTEGER NOT NULL CHECK (total > 0),
    released            INTEGER NOT NULL DEFAULT 0 CHECK (released >= 0),
    send_at             TEXT NULL,
    -- JSON of the pause: code, detail, network_code, paused_at.
    pause               TEXT NULL,
    idempotency_key     TEXT NULL,
    request_fingerprint TEXT NULL,
    -- The pacer's own marks: its last progress event, and the failure time of the last failed message it
-- looked at.
    progress_at         TEXT NULL,
    failures_seen       TEXT NULL,
    created_at          TEXT NOT NULL,
    updated_at          TEXT NOT NULL,
    completed_at        TEXT NULL,
    cancelled_at        TEXT NULL
);
INSERT INTO broadcasts_rebuilt
    (id, organization_id, sender_id, from_number, template_name, template_language, state, total, released,
     send_at, pause, idempotency_key, request_fingerprint, progress_at, failures_seen, created_at, updated_at,
     completed_at, cancelled_at)
SELECT id, organization_id, sender_id, from_number, template_name, template_language, state, total, released,
       send_at, pause, idempotency_key, request_fingerprint, progress_at, failures_seen, created_at, updated_at,
       completed_at, cancelled_at
FROM broadcasts;
DROP TABLE broadcasts;
ALTER TABLE broadcasts_rebuilt RENAME TO broadcasts;
CREATE INDEX broadcasts_by_organization ON broadcasts (organization_id, id);
-- NULL keys are distinct: broadcasts without a key are not constrained.
CREATE UNIQUE INDEX broadcasts_by_key ON broadcasts (organization_id, idempotency_key);
CREATE INDEX broadcasts_active ON broadcasts (id) WHERE state IN ('scheduled', 'running');
CREATE INDEX broadcasts_cancelling ON broadcasts (updated_at, id) WHERE state = 'cancelling';
