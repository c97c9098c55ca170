-- A message has no network id until it is submitted, and most have no client reference, yet each accept added
-- an entry for NULL to both indexes (and so did each later update that rewrites the row's index entries:
-- its status is indexed). No query looks a NULL up: `network_message_id = $1` and `client_reference = $2`
-- never match NULL, so the planner uses an index that leaves NULLs out for them. Partial, the two indexes
-- cost an accept nothing (docs/benchmarks-history.md, "Partial lookup indexes").
DROP INDEX messages_by_client_reference;
CREATE INDEX messages_by_client_reference ON messages (organization_id, client_reference)
    WHERE client_reference IS NOT NULL;
DROP INDEX messages_by_network_id;
CREATE INDEX messages_by_network_id ON messages (network_message_id) WHERE network_message_id IS NOT NULL;
