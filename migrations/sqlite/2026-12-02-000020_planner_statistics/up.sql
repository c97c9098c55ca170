-- PostgreSQL's extended statistics on messages (a broadcast's messages are all its organization's) have no
-- SQLite counterpart; this keeps both stores' migrations in step.
SELECT 1;
