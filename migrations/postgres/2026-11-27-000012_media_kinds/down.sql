-- Fails while an audio or sticker upload is still recorded: reverting must not drop uploads silently.
ALTER TABLE media_files DROP CONSTRAINT media_files_kind_check;
ALTER TABLE media_files ADD CONSTRAINT media_files_kind_check
    CHECK (kind IN ('document', 'image', 'video'));
