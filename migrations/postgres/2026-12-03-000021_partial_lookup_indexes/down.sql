DROP INDEX messages_by_client_reference;
CREATE INDEX messages_by_client_reference ON messages (organization_id, client_reference);
DROP INDEX messages_by_network_id;
CREATE INDEX messages_by_network_id ON messages (network_message_id);
