-- A broadcast's messages counted by status, kept by the database as messages are written: a page of the
-- broadcast list reads at most 9 rows per broadcast instead of counting every message of every broadcast on
-- it. Triggers keep the counts whichever code writes `messages`, in the same transaction as the write (SQLite
-- has one writer at a time, so row triggers cannot deadlock).
--
-- A later migration that rebuilds `messages` or `broadcasts` (create, copy, rename) drops these triggers with
-- the old table: it must create them again.
CREATE TABLE broadcast_counts (
    broadcast_id TEXT NOT NULL,
    status       TEXT NOT NULL,
    count        BIGINT NOT NULL,
    PRIMARY KEY (broadcast_id, status)
);

INSERT INTO broadcast_counts (broadcast_id, status, count)
SELECT broadcast_id, status, count(*) FROM messages WHERE broadcast_id IS NOT NULL GROUP BY broadcast_id, status;

CREATE TRIGGER messages_broadcast_counts_insert AFTER INSERT ON messages
WHEN NEW.broadcast_id IS NOT NULL
BEGIN
    INSERT INTO broadcast_counts (broadcast_id, status, count) VALUES (NEW.broadcast_id, NEW.status, 1)
    ON CONFLICT (broadcast_id, status) DO UPDATE SET count = count + 1;
END;

CREATE TRIGGER messages_broadcast_counts_update AFTER UPDATE OF status, broadcast_id ON messages
WHEN (OLD.broadcast_id IS NOT NULL OR NEW.broadcast_id IS NOT NULL)
    AND (OLD.status IS NOT NEW.status OR OLD.broadcast_id IS NOT NEW.broadcast_id)
BEGIN
    UPDATE broadcast_counts SET count = count - 1
    WHERE OLD.broadcast_id IS NOT NULL AND broadcast_id = OLD.broadcast_id AND status = OLD.status;
    INSERT INTO broadcast_counts (broadcast_id, status, count)
    SELECT NEW.broadcast_id, NEW.status, 1 WHERE NEW.broadcast_id IS NOT NULL
    ON CONFLICT (broadcast_id, status) DO UPDATE SET count = count + 1;
END;

CREATE TRIGGER messages_broadcast_counts_delete AFTER DELETE ON messages
WHEN OLD.broadcast_id IS NOT NULL
BEGIN
    UPDATE broadcast_counts SET count = count - 1 WHERE broadcast_id = OLD.broadcast_id AND status = OLD.status;
END;

-- A purged broadcast takes its counts along.
CREATE TRIGGER broadcasts_forget_counts AFTER DELETE ON broadcasts
BEGIN
    DELETE FROM broadcast_counts WHERE broadcast_id = OLD.id;
END;
