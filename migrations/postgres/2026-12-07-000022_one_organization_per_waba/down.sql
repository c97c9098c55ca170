DROP TABLE template_authors;
ALTER TABLE senders DROP COLUMN shares_waba;
