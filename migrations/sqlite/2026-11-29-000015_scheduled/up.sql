-- Scheduled sends (docs/api.md §4 `send_at`, §5 `scheduled` and `cancelled`). The message's
-- requested send time (its outbox job is due then) and when it was cancelled; `sent_at` is already the time
-- it reached `sent`, hence `scheduled_for`. Its `scheduled` timestamp is its `created_at`: a scheduled message
-- is scheduled when it is accepted.
ALTER TABLE messages ADD COLUMN scheduled_for TEXT NULL;
ALTER TABLE messages ADD COLUMN cancelled_at TEXT NULL;
