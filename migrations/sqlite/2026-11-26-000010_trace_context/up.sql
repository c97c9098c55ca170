-- The trace of the request that accepted a message (the tracing adapter's propagation text,
-- bounded by the domain to 512 printable characters), kept with the message and copied to each customer
-- event of it, so its dispatch, callbacks and webhook deliveries join that trace. NULL when tracing is off.
ALTER TABLE messages ADD COLUMN trace_context TEXT NULL;
ALTER TABLE events ADD COLUMN trace_context TEXT NULL;
