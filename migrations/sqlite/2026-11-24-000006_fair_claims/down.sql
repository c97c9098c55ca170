DROP INDEX outbox_open_by_sender;
