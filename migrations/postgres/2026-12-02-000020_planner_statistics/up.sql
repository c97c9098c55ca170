-- A broadcast's messages all belong to its organization, which PostgreSQL cannot know: it multiplies the
-- two filters' selectivities, so `organization_id = … AND broadcast_id = …` (GET /broadcasts/{id}/messages)
-- was estimated at 1 % of the broadcast's rows, and the planner ANDed the organization's whole index with the
-- broadcast's and sorted, instead of walking `messages_by_broadcast` backwards to the page's 51 rows
-- (1 million messages: 13.3 ms against 0.12 ms; 10 million: 22 ms; docs/benchmarks-history.md, P6). The
-- functional dependency, computed by ANALYZE, corrects the estimate.
CREATE STATISTICS messages_broadcast_organization (dependencies) ON broadcast_id, organization_id FROM messages;
-- Computed now only where the table has rows (an existing installation). A fresh table must stay never
-- analyzed (reltuples -1): analyzed empty, the planner takes it for empty until autovacuum analyzes it again,
-- and sends on a new installation ran at 0.41× meanwhile (P1 on a fresh database, 1,652 against 4,074 accepts/s,
-- PostgreSQL 475 against 131 µs of CPU per accept; docs/benchmarks-history.md).
DO $$
BEGIN
    IF (SELECT reltuples FROM pg_class WHERE oid = 'messages'::regclass) > 0 THEN
        ANALYZE messages;
    END IF;
END
$$;
