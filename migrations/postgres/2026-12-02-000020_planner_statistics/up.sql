-- A broadcast's messages all belong to its organization, which PostgreSQL cannot know: it multiplies the
-- two filters' selectivities, so `organization_id = … AND broadcast_id = …` (GET /broadcasts/{id}/messages)
-- was estimated at 1 % of the broadcast's rows, and the planner ANDed the organization's whole index with the
-- broadcast's and sorted, instead of walking `messages_by_broadcast` backwards to the page's 51 rows
-- (1 million messages: 13.3 ms against 0.12 ms; 10 million: 22 ms; docs/benchmarks-notes.md, P6). The
-- functional dependency, computed by ANALYZE, corrects the estimate.
CREATE STATISTICS messages_broadcast_organization (dependencies) ON broadcast_id, organization_id FROM messages;
ANALYZE messages;
