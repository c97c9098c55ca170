-- Audio and stickers are uploads too (docs/api.md §4.3). The CHECK of 000004 got PostgreSQL's
-- default name, `media_files_kind_check`; it is replaced under the same name.
ALTER TABLE media_files DROP CONSTRAINT media_files_kind_check;
ALTER TABLE media_files ADD CONSTRAINT media_files_kind_check
    CHECK (kind IN ('document', 'image', 'video', 'audio', 'sticker'));
