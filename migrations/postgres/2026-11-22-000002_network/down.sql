DROP TABLE events;
DROP TABLE inbound_messages;
DROP TABLE network_callbacks;
DROP INDEX outbox_expired_leases;
ALTER TABLE outbox DROP COLUMN awaiting_callback;
