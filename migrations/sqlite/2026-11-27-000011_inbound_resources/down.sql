DROP INDEX inbound_messages_by_type;
DROP INDEX inbound_messages_by_from;
DROP INDEX inbound_messages_by_sender;
DROP INDEX inbound_messages_by_org;
ALTER TABLE inbound_messages DROP COLUMN read_at;
ALTER TABLE inbound_messages DROP COLUMN referral;
ALTER TABLE inbound_messages DROP COLUMN reaction_ref;
ALTER TABLE inbound_messages DROP COLUMN context_ref;
UPDATE inbound_messages SET id = 'msg_' || substr(id, 5) WHERE substr(id, 1, 4) = 'inb_';
