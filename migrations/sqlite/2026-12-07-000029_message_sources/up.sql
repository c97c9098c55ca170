-- Where an inbound message came from: the webhook field (`messages`, `standby` while another app holds the
-- conversation, `smb_message_echoes` from the WhatsApp Business app), and whether it is an echo of what the
-- business side sent the user outside Herald (docs/cloud-api.md §4.8). Rows from before are `messages`.
ALTER TABLE inbound_messages ADD COLUMN source_field TEXT NOT NULL DEFAULT 'messages'
    CHECK (source_field IN ('messages', 'standby', 'smb_message_echoes'));
ALTER TABLE inbound_messages ADD COLUMN echo BOOLEAN NOT NULL DEFAULT FALSE;
-- The webhook fields Herald needs that the sender's business account was last found not to deliver to
-- Herald's app, as a JSON list of names; NULL until the account's subscription was checked.
ALTER TABLE senders ADD COLUMN webhook_fields_missing TEXT NULL;
