-- A broadcast's messages counted by status, kept by the database as messages are written: a page of the
-- broadcast list reads at most 9 rows per broadcast instead of counting every message of every broadcast on
-- it. Triggers keep the counts whichever code writes `messages` (the batch writers, the query builder,
-- retention), in the same transaction as the write.
--
-- Statement-level triggers with transition tables: one write per (broadcast, status) and statement, in key
-- order, so two transactions that move messages of one broadcast lock its counter rows in the same order and
-- cannot deadlock over them; a statement that touches no broadcast message writes nothing.
CREATE TABLE broadcast_counts (
    broadcast_id TEXT NOT NULL,
    status       TEXT NOT NULL,
    count        BIGINT NOT NULL,
    PRIMARY KEY (broadcast_id, status)
);

INSERT INTO broadcast_counts (broadcast_id, status, count)
SELECT broadcast_id, status, count(*) FROM messages WHERE broadcast_id IS NOT NULL GROUP BY broadcast_id, status;

-- Transition tables are visible in the trigger function's own statements only, so each function writes
-- the counts itself.
CREATE FUNCTION broadcast_counts_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO broadcast_counts AS c (broadcast_id, status, count)
    SELECT broadcast_id, status, sum(delta) FROM (
        SELECT broadcast_id, status, 1 AS delta FROM inserted WHERE broadcast_id IS NOT NULL
    ) AS d
    GROUP BY broadcast_id, status HAVING sum(delta) <> 0
    ORDER BY broadcast_id, status
    ON CONFLICT (broadcast_id, status) DO UPDATE SET count = c.count + excluded.count;
    RETURN NULL;
END;
$$;

CREATE FUNCTION broadcast_counts_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO broadcast_counts AS c (broadcast_id, status, count)
    SELECT broadcast_id, status, sum(delta) FROM (
        SELECT broadcast_id, status, -1 AS delta FROM before_rows WHERE broadcast_id IS NOT NULL
        UNION ALL
        SELECT broadcast_id, status, 1 FROM after_rows WHERE broadcast_id IS NOT NULL
    ) AS d
    GROUP BY broadcast_id, status HAVING sum(delta) <> 0
    ORDER BY broadcast_id, status
    ON CONFLICT (broadcast_id, status) DO UPDATE SET count = c.count + excluded.count;
    RETURN NULL;
END;
$$;

CREATE FUNCTION broadcast_counts_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO broadcast_counts AS c (broadcast_id, status, count)
    SELECT broadcast_id, status, sum(delta) FROM (
        SELECT broadcast_id, status, -1 AS delta FROM deleted WHERE broadcast_id IS NOT NULL
    ) AS d
    GROUP BY broadcast_id, status HAVING sum(delta) <> 0
    ORDER BY broadcast_id, status
    ON CONFLICT (broadcast_id, status) DO UPDATE SET count = c.count + excluded.count;
    RETURN NULL;
END;
$$;

CREATE TRIGGER messages_broadcast_counts_insert AFTER INSERT ON messages
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION broadcast_counts_on_insert();
CREATE TRIGGER messages_broadcast_counts_update AFTER UPDATE ON messages
    REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows
    FOR EACH STATEMENT EXECUTE FUNCTION broadcast_counts_on_update();
CREATE TRIGGER messages_broadcast_counts_delete AFTER DELETE ON messages
    REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION broadcast_counts_on_delete();

-- A purged broadcast takes its counts along.
CREATE FUNCTION broadcast_counts_forget() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM broadcast_counts WHERE broadcast_id IN (SELECT id FROM gone);
    RETURN NULL;
END;
$$;
CREATE TRIGGER broadcasts_forget_counts AFTER DELETE ON broadcasts
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION broadcast_counts_forget();
