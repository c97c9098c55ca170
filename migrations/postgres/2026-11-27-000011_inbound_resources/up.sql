-- Inbound messages as resources (GET /api/v1/inbound).
--
-- Inbound ids become `inb_` (they were `msg_`, the prefix of messages Herald sends). Existing rows keep
-- their ULID under the new prefix, so every id of the list sorts by time under one prefix and the cursor
-- stays valid; the API still answers an old `msg_` id of an inbound message (same ULID). Events already
-- recorded keep the id they were delivered with.
UPDATE inbound_messages SET id = 'inb_' || substr(id, 5) WHERE substr(id, 1, 4) = 'msg_';

-- Herald's ids (`msg_…` or `inb_…`) of the message this one replies to (`context_message_id`, the wamid)
-- and of the message a reaction reacts to, resolved within the organization when it is recorded; NULL when
-- the wamid names no message Herald knows.
ALTER TABLE inbound_messages ADD COLUMN context_ref TEXT NULL;
ALTER TABLE inbound_messages ADD COLUMN reaction_ref TEXT NULL;
-- The network's `referral` object (a click-to-WhatsApp ad or post), as JSON text.
ALTER TABLE inbound_messages ADD COLUMN referral TEXT NULL;
-- When the business marked it read through Herald (POST /api/v1/inbound/{id}/read).
ALTER TABLE inbound_messages ADD COLUMN read_at TIMESTAMPTZ NULL;

-- The list, newest first, filtered by the receiving number, the customer or the type.
CREATE INDEX inbound_messages_by_org ON inbound_messages (organization_id, id);
CREATE INDEX inbound_messages_by_sender ON inbound_messages (organization_id, sender_id, id);
CREATE INDEX inbound_messages_by_from ON inbound_messages (organization_id, from_number, id);
CREATE INDEX inbound_messages_by_type ON inbound_messages (organization_id, message_type, id);
-- Replies and reactions name the wamid of a message Herald sent: it is resolved within the organization
-- through messages_by_network_id (wamids are unique), so accepts maintain no second index for it.
