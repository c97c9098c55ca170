-- Delivery claims read per endpoint (postgres): the endpoints with pending deliveries are walked in this index,
-- and each one's oldest due deliveries read from it, so a claim costs the endpoints and the cap, not the
-- backlog; the second index counts each endpoint's leased deliveries (its in-flight cap) without reading
-- the rest. Delivered and failed deliveries (the ever-growing history) are in neither.
CREATE INDEX webhook_deliveries_pending_by_endpoint ON webhook_deliveries (endpoint_id, next_attempt_at, id)
    WHERE status = 'pending';
CREATE INDEX webhook_deliveries_leased_by_endpoint ON webhook_deliveries (endpoint_id)
    WHERE status = 'pending' AND claim_token IS NOT NULL;
