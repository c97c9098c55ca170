ALTER TABLE events DROP COLUMN trace_context;
ALTER TABLE messages DROP COLUMN trace_context;
