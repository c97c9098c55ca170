DROP TRIGGER broadcasts_forget_counts ON broadcasts;
DROP FUNCTION broadcast_counts_forget();
DROP TRIGGER messages_broadcast_counts_delete ON messages;
DROP TRIGGER messages_broadcast_counts_update ON messages;
DROP TRIGGER messages_broadcast_counts_insert ON messages;
DROP FUNCTION broadcast_counts_on_delete();
DROP FUNCTION broadcast_counts_on_update();
DROP FUNCTION broadcast_counts_on_insert();
DROP TABLE broadcast_counts;
