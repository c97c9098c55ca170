-- P6: EXPLAIN (ANALYZE, BUFFERS) of every hot query on a database seeded by p6_seed.sql. The
-- statements are the ones Herald sends (pg.rs, ports/*.rs), with literal values picked from the data.
-- Writes run inside a transaction that is rolled back.
--
--   psql -f scripts/p6_explain.sql postgres://…/db
\set ON_ERROR_STOP on
\pset pager off
SELECT id AS mid, organization_id AS org, network_message_id AS wamid, to_number AS tonum,
       client_reference AS ref
FROM messages WHERE client_reference IS NOT NULL ORDER BY id DESC
OFFSET (SELECT LEAST(5000, COUNT(*) / 2) FROM messages WHERE client_reference IS NOT NULL) LIMIT 1 \gset

\echo '== message lookup by id (GET /messages/{id})'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT * FROM messages WHERE id = :'mid' AND organization_id = :'org' LIMIT 1;

\echo '== status history'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT * FROM message_events WHERE organization_id = :'org' AND message_id = :'mid' ORDER BY id;

\echo '== message log, first page, no filter'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT * FROM messages WHERE organization_id = :'org' ORDER BY id DESC LIMIT 51;

\echo '== message log, next page (cursor)'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT * FROM messages WHERE organization_id = :'org' AND id < :'mid' ORDER BY id DESC LIMIT 51;

\echo '== message log, status filter (rare status: failed)'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT * FROM messages WHERE organization_id = :'org' AND status = 'failed' ORDER BY id DESC LIMIT 51;

\echo '== message log, recipient filter'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT * FROM messages WHERE organization_id = :'org' AND to_number = :'tonum' ORDER BY id DESC LIMIT 51;

\echo '== message log, client reference filter'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT * FROM messages WHERE organization_id = :'org' AND client_reference = :'ref' ORDER BY id DESC LIMIT 51;

\echo '== message log, type filter and a time window 60 to 30 days ago'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT * FROM messages WHERE organization_id = :'org' AND message_type = 'text'
    AND created_at >= now() - interval '60 days' AND created_at < now() - interval '30 days'
ORDER BY id DESC LIMIT 51;

\echo '== callback matching: message by network id (wamid)'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT * FROM messages WHERE network_message_id = :'wamid' LIMIT 1;

\echo '== customer events of an organization (newest page)'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT * FROM events WHERE organization_id = :'org' ORDER BY id DESC LIMIT 51;

BEGIN;
\echo '== accept: one batch of 32 (message, event, outbox job), the statements of pg.rs insert_accepted'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
INSERT INTO messages (id, organization_id, sender_id, from_number, to_number, message_type, content, status,
                      created_at, updated_at, accepted_at)
SELECT * FROM UNNEST(ARRAY(SELECT 'msg_ZZZZ' || lpad(g::text, 22, '0') FROM generate_series(1, 32) g),
    array_fill(:'org'::text, ARRAY[32]), array_fill('snd_x'::text, ARRAY[32]), array_fill('+15550000000'::text, ARRAY[32]),
    array_fill('+15551234567'::text, ARRAY[32]), array_fill('template'::text, ARRAY[32]), array_fill('{}'::text, ARRAY[32]),
    array_fill('accepted'::text, ARRAY[32]), array_fill(now(), ARRAY[32]), array_fill(now(), ARRAY[32]),
    array_fill(now(), ARRAY[32]));
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
INSERT INTO message_events (id, organization_id, message_id, status, applied, source, occurred_at, recorded_at)
SELECT 'evt_ZZZZ' || lpad(g::text, 22, '0'), :'org', 'msg_ZZZZ' || lpad(g::text, 22, '0'), 'accepted', TRUE,
       'herald', now(), now()
FROM generate_series(1, 32) g;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
INSERT INTO outbox (id, organization_id, message_id, sender_id, state, available_at, deadline, attempts,
                    created_at, updated_at)
SELECT 'job_ZZZZ' || lpad(g::text, 22, '0'), :'org', 'msg_ZZZZ' || lpad(g::text, 22, '0'),
       (SELECT id FROM senders WHERE organization_id = :'org' LIMIT 1), 'pending', now(), now() + interval '1 day',
       0, now(), now()
FROM generate_series(1, 32) g;

\echo '== outbox claim (UPDATE … FROM due), 32 pending jobs among the history'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
WITH RECURSIVE open_senders (sender_id) AS (
    (SELECT sender_id FROM outbox WHERE state IN ('pending', 'in_flight') ORDER BY sender_id LIMIT 1)
    UNION ALL
    SELECT (SELECT o.sender_id FROM outbox o WHERE o.state IN ('pending', 'in_flight') AND o.sender_id > s.sender_id
            ORDER BY o.sender_id LIMIT 1)
    FROM open_senders s WHERE s.sender_id IS NOT NULL
), due_senders AS (
    SELECT s.sender_id FROM open_senders s CROSS JOIN LATERAL (
        SELECT 1 FROM outbox o WHERE o.sender_id = s.sender_id AND o.state IN ('pending', 'in_flight')
            AND ((o.state = 'pending' AND o.available_at <= now()) OR (o.state = 'in_flight' AND o.lease_until < now()))
        LIMIT 1
    ) d
    WHERE s.sender_id IS NOT NULL
), share AS (
    SELECT GREATEST(1, 64 / NULLIF(COUNT(*), 0)) AS per_sender FROM due_senders
), due AS (
    SELECT c.id, c.old_state, c.old_attempts, c.old_awaiting
    FROM due_senders s JOIN senders se ON se.id = s.sender_id CROSS JOIN share CROSS JOIN LATERAL (
        SELECT o.id, o.available_at, o.state AS old_state, o.attempts AS old_attempts,
            o.awaiting_callback AS old_awaiting
        FROM outbox o
        WHERE o.sender_id = s.sender_id AND o.state IN ('pending', 'in_flight')
            AND ((o.state = 'pending' AND o.available_at <= now()) OR (o.state = 'in_flight' AND o.lease_until < now()))
        ORDER BY o.available_at, o.id
        LIMIT LEAST(share.per_sender, GREATEST(1, se.throughput_per_second::bigint * 30000 / 1000))
        FOR UPDATE SKIP LOCKED
    ) c
    ORDER BY c.available_at, c.id
    LIMIT 64
)
UPDATE outbox SET state = 'in_flight', claim_token = 'tok', lease_until = now() + interval '30 seconds',
    attempts = outbox.attempts + 1, awaiting_callback = false, updated_at = now()
FROM due WHERE outbox.id = due.id
RETURNING outbox.id, outbox.organization_id, outbox.message_id, outbox.attempts, outbox.deadline,
    due.old_state, due.old_attempts, due.old_awaiting;

\echo '== delivery claim, no delivery due among the history'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
WITH RECURSIVE pending_endpoints (endpoint_id) AS (
    (SELECT endpoint_id FROM webhook_deliveries WHERE status = 'pending' ORDER BY endpoint_id LIMIT 1)
    UNION ALL
    SELECT (SELECT d.endpoint_id FROM webhook_deliveries d
            WHERE d.status = 'pending' AND d.endpoint_id > p.endpoint_id ORDER BY d.endpoint_id LIMIT 1)
    FROM pending_endpoints p WHERE p.endpoint_id IS NOT NULL
), room AS (
    SELECT p.endpoint_id, 4 - (
        SELECT COUNT(*) FROM webhook_deliveries l
        WHERE l.endpoint_id = p.endpoint_id AND l.status = 'pending' AND l.claim_token IS NOT NULL
            AND l.lease_until >= now()
    ) AS free
    FROM pending_endpoints p JOIN webhook_endpoints e ON e.id = p.endpoint_id
    WHERE e.enabled
), chosen AS (
    SELECT c.id FROM room r CROSS JOIN LATERAL (
        SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
        WHERE d.endpoint_id = r.endpoint_id AND d.status = 'pending' AND d.next_attempt_at <= now()
            AND (d.claim_token IS NULL OR d.lease_until < now())
        ORDER BY d.next_attempt_at, d.id
        LIMIT GREATEST(r.free, 0)
        FOR UPDATE SKIP LOCKED
    ) c
    ORDER BY c.next_attempt_at, c.id
    LIMIT 64
)
UPDATE webhook_deliveries SET claim_token = 'tok', lease_until = now() + interval '30 seconds', updated_at = now()
WHERE id = ANY(ARRAY(SELECT id FROM chosen))
RETURNING id;
ROLLBACK;

\echo '== retention: the oldest 1,000 messages of an organization before its cutoff (ports/retention.rs)'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT id FROM messages WHERE organization_id = :'org' AND id < 'msg_' || :'mid' AND created_at < now() - interval '30 days'
ORDER BY id LIMIT 1000;

-- The broadcast pacer's queries (ports/broadcasts.rs), once a second per worker and active broadcast, on the
-- seeded running broadcast: 1,000 of 10,000 released, 9,000 held.
SELECT id AS bid, organization_id AS borg, sender_id AS bsender FROM broadcasts LIMIT 1 \gset

\echo '== broadcast pacer: due broadcasts'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT b.*, s.throughput_per_second, s.messaging_limit FROM broadcasts b JOIN senders s ON s.id = b.sender_id
WHERE b.state IN ('scheduled', 'running') AND (b.send_at IS NULL OR b.send_at <= now()) ORDER BY b.id LIMIT 50;

\echo '== broadcast pacer: held jobs of a broadcast'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT COUNT(*) FROM outbox WHERE broadcast_id = :'bid' AND available_at = '9999-01-01T00:00:00Z';

\echo '== broadcast pacer: released jobs not done yet'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT COUNT(*) FROM outbox WHERE broadcast_id = :'bid' AND available_at < '9999-01-01T00:00:00Z'
    AND state IN ('pending', 'in_flight');

\echo '== broadcast pacer: the sender tier (unique template recipients dispatched in 24 h)'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT COUNT(DISTINCT to_number) FROM messages WHERE sender_id = :'bsender' AND message_type = 'template'
    AND submitted_at >= now() - interval '24 hours';

\echo '== broadcast pacer: the next held jobs to release'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT id FROM outbox WHERE broadcast_id = :'bid' AND available_at = '9999-01-01T00:00:00Z'
ORDER BY message_id LIMIT 400;

\echo '== broadcast pacer: failures since the last round'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT id, error, failed_at FROM messages WHERE broadcast_id = :'bid' AND organization_id = :'borg'
    AND status = 'failed' ORDER BY failed_at, id LIMIT 200;

\echo '== broadcast: counts by status (GET /broadcasts/{id}, and a page of GET /broadcasts in one read)'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT broadcast_id, status, COUNT(*) FROM messages WHERE broadcast_id IN (:'bid') GROUP BY broadcast_id, status;

\echo '== broadcast: its messages, first page (GET /broadcasts/{id}/messages)'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT * FROM messages WHERE organization_id = :'borg' AND broadcast_id = :'bid' ORDER BY id DESC LIMIT 51;
