-- Contacts merged by the up migration stay merged.
DROP INDEX contacts_by_number_key;
ALTER TABLE contacts DROP COLUMN number_key;
CREATE UNIQUE INDEX contacts_by_number ON contacts (organization_id, number) WHERE number IS NOT NULL;
