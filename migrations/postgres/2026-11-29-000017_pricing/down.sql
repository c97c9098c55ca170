DROP INDEX messages_by_created;
DROP TABLE rates;
ALTER TABLE messages DROP COLUMN pricing_billable;
ALTER TABLE messages DROP COLUMN pricing_type;
ALTER TABLE messages DROP COLUMN pricing_category;
ALTER TABLE messages DROP COLUMN pricing_model;
