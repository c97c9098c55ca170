-- Audio and stickers are uploads too (docs/api.md §4.3). SQLite cannot change a CHECK in place:
-- the table is rebuilt as SQLite's ALTER TABLE page describes (new table, copy, drop, rename, indexes again), inside
-- the migration's transaction. No other table references media_files, so no foreign key is disturbed.

CREATE TABLE media_files_rebuilt (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    kind            TEXT NOT NULL CHECK (kind IN ('document', 'image', 'video', 'audio', 'sticker')),
    mime_type       TEXT NOT NULL,
    size            BIGINT NOT NULL CHECK (size >= 0),
    -- 64 lowercase hex digits: the address of the bytes; many rows may share one.
    sha256          TEXT NOT NULL,
    filename        TEXT NULL,
    created_at      TEXT NOT NULL,
    expires_at      TEXT NOT NULL
);
-- The rowids are copied too, so the rows keep their order (and anything that read them by rowid).
INSERT INTO media_files_rebuilt
    (rowid, id, organization_id, kind, mime_type, size, sha256, filename, created_at, expires_at)
SELECT rowid, id, organization_id, kind, mime_type, size, sha256, filename, created_at, expires_at
FROM media_files
ORDER BY rowid;
DROP TABLE media_files;
ALTER TABLE media_files_rebuilt RENAME TO media_files;
-- The indexes of 000004 and 000009, which went with the old table.
CREATE INDEX media_files_by_organization ON media_files (organization_id, id);
CREATE INDEX media_files_by_sha256 ON media_files (sha256);
CREATE INDEX media_files_by_expiry ON media_files (expires_at);
CREATE INDEX media_files_organization_expiry ON media_files (organization_id, expires_at);
