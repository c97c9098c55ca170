-- P6: fills a migrated Herald PostgreSQL database with :messages outbound messages spread over
-- :orgs organizations and the last :days days, each with its status history (accepted, sent, delivered),
-- its outbox job (done), two customer events (sent, delivered) and one webhook delivery (succeeded), all
-- with ids in Herald's own format (prefix and ULID made at the row's time), so the API reads them too.
-- Set-based (INSERT … SELECT generate_series), no round trip per row.
--
--   psql -v messages=10000000 -v orgs=100 -v days=90 -f scripts/p6_seed.sql postgres://…/db
--
-- Run by scripts/bench_p6.sh (`BENCH_P6=1 make bench`).
\set ON_ERROR_STOP on
\if :{?messages}
\else
  \set messages 10000000
\endif
\if :{?orgs}
\else
  \set orgs 100
\endif
\if :{?days}
\else
  \set days 90
\endif

SET synchronous_commit = off;

-- ULIDs in Crockford base32: the time part from a time in ms (48 bits, 10 characters) and the random part
-- from a number, as its 16 hexadecimal digits (each one a base32 digit too, so distinct numbers give distinct,
-- valid ids). Plain expressions, which PostgreSQL inlines: the seed makes six ids per message, and a loop per
-- character (as this was first written) made 10 million messages take over an hour.
CREATE OR REPLACE FUNCTION pg_temp.p6_time(ms bigint) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((ms >> 45) & 31)::int + 1, 1) ||
           substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((ms >> 40) & 31)::int + 1, 1) ||
           substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((ms >> 35) & 31)::int + 1, 1) ||
           substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((ms >> 30) & 31)::int + 1, 1) ||
           substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((ms >> 25) & 31)::int + 1, 1) ||
           substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((ms >> 20) & 31)::int + 1, 1) ||
           substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((ms >> 15) & 31)::int + 1, 1) ||
           substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((ms >> 10) & 31)::int + 1, 1) ||
           substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((ms >> 5) & 31)::int + 1, 1) ||
           substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((ms >> 0) & 31)::int + 1, 1)
$$;
CREATE OR REPLACE FUNCTION pg_temp.p6_rand(r bigint) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT upper(lpad(to_hex(r), 16, '0')) $$;
CREATE OR REPLACE FUNCTION pg_temp.p6_ulid(ms bigint, r bigint) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT pg_temp.p6_time(ms) || pg_temp.p6_rand(r) $$;

-- The organizations (business and enterprise alternately), one sender and one webhook endpoint each.
INSERT INTO organizations (id, name, status, plan, created_at)
SELECT 'org_' || pg_temp.p6_ulid(1700000000000 + o, o), 'P6 ' || o, 'active',
       CASE WHEN o % 2 = 0 THEN 'business' ELSE 'enterprise' END, now() - interval '400 days'
FROM generate_series(1, :orgs) AS o;

CREATE TEMP TABLE p6_orgs AS
SELECT row_number() OVER (ORDER BY id) - 1 AS n, id FROM organizations WHERE name LIKE 'P6 %';

INSERT INTO senders (id, organization_id, number, phone_number_id, waba_id, is_default, throughput_per_second,
                     created_at)
SELECT 'snd_' || pg_temp.p6_ulid(1700000000000 + n, n), id, '+1555' || lpad(n::text, 7, '0'), '9' || n,
       '2000000001', TRUE, 80, now() - interval '400 days'
FROM p6_orgs;

INSERT INTO webhook_endpoints (id, organization_id, url, sub_status, sub_failed, sub_inbound, enabled, secret,
                               created_at, updated_at)
SELECT 'whe_' || pg_temp.p6_ulid(1700000000000 + n, n), id, 'https://example.invalid/hook', TRUE, TRUE, TRUE,
       TRUE, '\x00', now() - interval '400 days', now() - interval '400 days'
FROM p6_orgs;

-- A bulk load, the way PostgreSQL's manual advises ("Populating a Database"): the secondary indexes of the
-- tables filled below are dropped now and built once at the end (one sort each instead of 10 million
-- insertions into each), and foreign keys are not checked row by row (session_replication_role = replica
-- skips their triggers; every row references rows this script made). Primary keys stay (other tables'
-- foreign keys hang on them), and the ids grow with time, so their indexes are appended to.
SET session_replication_role = replica;
CREATE TEMP TABLE p6_indexes AS
SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS definition
FROM pg_index AS i
JOIN pg_class AS t ON t.oid = i.indrelid
WHERE t.relname IN ('messages', 'message_events', 'outbox', 'events', 'webhook_deliveries')
  AND t.relnamespace = 'public'::regnamespace
  AND NOT EXISTS (SELECT 1 FROM pg_constraint AS c WHERE c.conindid = i.indexrelid);
SELECT format('DROP INDEX %s', name) FROM p6_indexes \gexec

-- One row per message: its organization, time (oldest first, so ids grow with time) and ids.
CREATE TEMP TABLE p6_m AS
SELECT g, org, sender, endpoint, t,
       'msg_' || tp || pg_temp.p6_rand(g * 8) AS mid,
       tp || pg_temp.p6_rand(g * 8 + 1) AS u1,
       tp || pg_temp.p6_rand(g * 8 + 2) AS u2,
       tp || pg_temp.p6_rand(g * 8 + 3) AS u3,
       tp || pg_temp.p6_rand(g * 8 + 4) AS u4,
       tp || pg_temp.p6_rand(g * 8 + 5) AS u5
FROM (
    -- The message's rows share its time part (their random parts keep them apart).
    SELECT g, o.id AS org, s.id AS sender, w.id AS endpoint, t,
           pg_temp.p6_time((extract(epoch FROM t) * 1000)::bigint) AS tp
    FROM (
        SELECT g, now() - (:days * interval '1 day') * (1 - g::float8 / :messages) - interval '1 hour' AS t
        FROM generate_series(1, :messages) AS g
    ) AS m
    JOIN p6_orgs AS o ON o.n = m.g % :orgs
    JOIN senders AS s ON s.organization_id = o.id
    JOIN webhook_endpoints AS w ON w.organization_id = o.id
) AS m;

INSERT INTO messages (id, organization_id, sender_id, from_number, to_number, message_type, content,
                      client_reference, status, network_message_id, created_at, updated_at, accepted_at,
                      submitted_at, sent_at, delivered_at)
SELECT mid, org, sender, '+15550000000', '+1555' || lpad((g % 200000)::text, 7, '0'), 'template',
       '{"kind":"template","name":"hello_world","language":"en_US","variables":{"body":{"type":"positional","value":[]},"buttons":[]}}',
       CASE WHEN g % 10 = 0 THEN 'ref-' || g END, 'delivered', 'wamid.P6' || g, t, t + interval '3 seconds', t,
       t + interval '1 second', t + interval '2 seconds', t + interval '3 seconds'
FROM p6_m;

-- The status history: accepted, sent, delivered.
INSERT INTO message_events (id, organization_id, message_id, status, previous_status, applied, source,
                            occurred_at, recorded_at)
SELECT 'evt_' || (ARRAY[u1, u2, u3])[k], org, mid, (ARRAY['accepted', 'sent', 'delivered'])[k],
       (ARRAY[NULL, 'submitted', 'sent'])[k], TRUE, CASE WHEN k = 1 THEN 'herald' ELSE 'network' END,
       t + k * interval '1 second', t + k * interval '1 second'
FROM p6_m CROSS JOIN generate_series(1, 3) AS k;

INSERT INTO outbox (id, organization_id, message_id, sender_id, state, available_at, deadline, attempts,
                    created_at, updated_at)
SELECT 'job_' || u1, org, mid, sender, 'done', t, t + interval '1 day', 1, t, t + interval '1 second'
FROM p6_m;

-- Two customer events (sent, delivered); the second one delivered to the organization's endpoint.
INSERT INTO events (id, organization_id, event_type, message_id, sequence, payload, occurred_at, created_at)
SELECT 'evt_' || (ARRAY[u4, u5])[k], org, 'message.status', mid, k, '{}', t + (k + 1) * interval '1 second',
       t + (k + 1) * interval '1 second'
FROM p6_m CROSS JOIN generate_series(1, 2) AS k;

INSERT INTO webhook_deliveries (id, organization_id, endpoint_id, event_id, event_type, status, attempts,
                                created_at, updated_at)
SELECT 'whd_' || u5, org, endpoint, 'evt_' || u5, 'message.status', 'succeeded', 1, t + interval '3 seconds',
       t + interval '4 seconds'
FROM p6_m;

DROP TABLE p6_m;

-- One running broadcast of 10,000 recipients of organization 0, 10 minutes old: the first 1,000
-- released and delivered, the other 9,000 accepted with their outbox jobs held (due 9999-01-01, as
-- ports/broadcasts.rs holds them), so the pacer's queries (scripts/p6_explain.sql) meet a real backlog.
CREATE TEMP TABLE p6_b AS
SELECT g, o.id AS org, s.id AS sender, s.number AS from_number,
       'brd_' || pg_temp.p6_ulid(b_ms, 77) AS bid,
       'msg_' || pg_temp.p6_ulid(b_ms + g, 1000000000 + g) AS mid,
       'job_' || pg_temp.p6_ulid(b_ms + g, 2000000000 + g) AS jid,
       to_timestamp(b_ms / 1000.0) AS t
FROM (SELECT (extract(epoch FROM now() - interval '10 minutes') * 1000)::bigint AS b_ms) AS b
CROSS JOIN generate_series(1, 10000) AS g
JOIN p6_orgs AS o ON o.n = 0
JOIN senders AS s ON s.organization_id = o.id;

INSERT INTO broadcasts (id, organization_id, sender_id, from_number, template_name, template_language, state,
                        total, released, created_at, updated_at)
SELECT DISTINCT bid, org, sender, from_number, 'hello_world', 'en_US', 'running', 10000, 1000, t, now()
FROM p6_b;

INSERT INTO messages (id, organization_id, sender_id, from_number, to_number, message_type, content, status,
                      network_message_id, created_at, updated_at, accepted_at, submitted_at, sent_at,
                      delivered_at, broadcast_id)
SELECT mid, org, sender, from_number, '+1556' || lpad(g::text, 7, '0'), 'template',
       '{"kind":"template","name":"hello_world","language":"en_US","variables":{"body":{"type":"positional","value":[]},"buttons":[]}}',
       CASE WHEN g <= 1000 THEN 'delivered' ELSE 'accepted' END,
       CASE WHEN g <= 1000 THEN 'wamid.P6B' || g END, t, t, t,
       CASE WHEN g <= 1000 THEN t + interval '1 second' END, CASE WHEN g <= 1000 THEN t + interval '2 seconds' END,
       CASE WHEN g <= 1000 THEN t + interval '3 seconds' END, bid
FROM p6_b;

INSERT INTO outbox (id, organization_id, message_id, sender_id, state, available_at, deadline, attempts,
                    created_at, updated_at, broadcast_id)
SELECT jid, org, mid, sender, CASE WHEN g <= 1000 THEN 'done' ELSE 'pending' END,
       CASE WHEN g <= 1000 THEN t ELSE '9999-01-01T00:00:00Z' END,
       CASE WHEN g <= 1000 THEN t + interval '1 day' ELSE '9999-01-01T00:00:00Z' END,
       CASE WHEN g <= 1000 THEN 1 ELSE 0 END, t, t, bid
FROM p6_b;

DROP TABLE p6_b;

SET maintenance_work_mem = '1GB';
SELECT definition FROM p6_indexes \gexec
SET session_replication_role = DEFAULT;
ANALYZE;
