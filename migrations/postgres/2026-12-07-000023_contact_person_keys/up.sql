-- One person, one contact (docs/api.md §7.1): a contact is found by its number's person key
-- (`PhoneNumber::person_key`, docs/cloud-api.md §4.6), which makes the national variants of one number one:
-- Mexico's `+52`/`+52 1`, Argentina's `+54`/`+54 9`, Brazil's number with and without its ninth digit. The
-- key replaces the number as what is unique within the organization; `number` keeps the form last named.
ALTER TABLE contacts ADD COLUMN number_key TEXT NULL;

-- The same rules as the domain's, in SQL both stores read alike (lengths count the `+`).
UPDATE contacts SET number_key = CASE
    WHEN number LIKE '+52%' AND length(number) = 13 AND substr(number, 4, 1) <> '1'
        THEN '+521' || substr(number, 4)
    WHEN number LIKE '+54%' AND length(number) = 13 AND substr(number, 4, 1) <> '9'
        THEN '+549' || substr(number, 4)
    WHEN number LIKE '+55%' AND length(number) = 14 AND substr(number, 6, 1) = '9'
        AND substr(number, 7, 1) IN ('6', '7', '8', '9')
        AND substr(number, 4, 1) <> '0' AND substr(number, 5, 1) <> '0'
        THEN '+55' || substr(number, 4, 2) || substr(number, 7)
    ELSE number
END
WHERE number IS NOT NULL;

-- Contacts of one person under two variants are merged: the one whose marketing state is the safe one
-- (stopped first, then the latest change) stays, with the others' block (blocked if any was, from the
-- earliest time) and user id (its own first).
CREATE TEMPORARY TABLE contact_ranks AS
SELECT organization_id, contact_key, number_key,
    ROW_NUMBER() OVER (
        PARTITION BY organization_id, number_key
        ORDER BY (marketing = 'stopped') DESC, (marketing_changed_at IS NULL), marketing_changed_at DESC,
            contact_key
    ) AS place
FROM contacts
WHERE number_key IS NOT NULL;

CREATE TEMPORARY TABLE contact_merges AS
SELECT r.organization_id, r.contact_key, r.number_key,
    COALESCE(
        (SELECT c.user_id FROM contacts c
         WHERE c.organization_id = r.organization_id AND c.contact_key = r.contact_key),
        (SELECT MAX(c.user_id) FROM contacts c
         WHERE c.organization_id = r.organization_id AND c.number_key = r.number_key)) AS user_id,
    (SELECT MAX(CASE WHEN c.blocked THEN 1 ELSE 0 END) FROM contacts c
     WHERE c.organization_id = r.organization_id AND c.number_key = r.number_key) AS blocked,
    (SELECT MIN(c.blocked_at) FROM contacts c
     WHERE c.organization_id = r.organization_id AND c.number_key = r.number_key AND c.blocked) AS blocked_at,
    (SELECT MAX(c.updated_at) FROM contacts c
     WHERE c.organization_id = r.organization_id AND c.number_key = r.number_key) AS updated_at
FROM contact_ranks r
WHERE r.place = 1 AND EXISTS (
    SELECT 1 FROM contact_ranks o
    WHERE o.organization_id = r.organization_id AND o.number_key = r.number_key AND o.place > 1);

DELETE FROM contacts WHERE EXISTS (
    SELECT 1 FROM contact_ranks r
    WHERE r.organization_id = contacts.organization_id AND r.contact_key = contacts.contact_key
        AND r.place > 1);

UPDATE contacts SET
    user_id = (SELECT m.user_id FROM contact_merges m
               WHERE m.organization_id = contacts.organization_id AND m.contact_key = contacts.contact_key),
    blocked = (SELECT m.blocked = 1 FROM contact_merges m
               WHERE m.organization_id = contacts.organization_id AND m.contact_key = contacts.contact_key),
    blocked_at = (SELECT m.blocked_at FROM contact_merges m
                  WHERE m.organization_id = contacts.organization_id AND m.contact_key = contacts.contact_key),
    updated_at = (SELECT m.updated_at FROM contact_merges m
                  WHERE m.organization_id = contacts.organization_id AND m.contact_key = contacts.contact_key)
WHERE EXISTS (
    SELECT 1 FROM contact_merges m
    WHERE m.organization_id = contacts.organization_id AND m.contact_key = contacts.contact_key);

DROP TABLE contact_merges;
DROP TABLE contact_ranks;

DROP INDEX contacts_by_number;
CREATE UNIQUE INDEX contacts_by_number_key ON contacts (organization_id, number_key) WHERE number_key IS NOT NULL;
