-- An inbound message keeps the business-scoped user id the network sent with it
-- (`from_user_id`, or its contact's `user_id`). `from_number` holds the user id itself for a message from a
-- user who hid their number and whom no earlier message paired with one (the first character tells them apart:
-- a number begins with `+`). Service windows are kept the same way (`service_windows.recipient`).
ALTER TABLE inbound_messages ADD COLUMN from_user_id TEXT;
