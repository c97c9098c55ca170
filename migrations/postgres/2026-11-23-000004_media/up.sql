-- Media: uploaded files' metadata (the bytes live in the media store, addressed by SHA-256),
-- the uploads made to the network per sender (reused while the network keeps them), and the id Herald
-- gives the file of an inbound message.

CREATE TABLE media_files (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    kind            TEXT NOT NULL CHECK (kind IN ('document', 'image', 'video')),
    mime_type       TEXT NOT NULL,
    size            BIGINT NOT NULL CHECK (size >= 0),
    -- 64 lowercase hex digits: the address of the bytes; many rows may share one.
    sha256          TEXT NOT NULL,
    filename        TEXT NULL,
    created_at      TIMESTAMPTZ NOT NULL,
    expires_at      TIMESTAMPTZ NOT NULL
);
CREATE INDEX media_files_by_organization ON media_files (organization_id, id);
CREATE INDEX media_files_by_sha256 ON media_files (sha256);
CREATE INDEX media_files_by_expiry ON media_files (expires_at);

CREATE TABLE network_media_uploads (
    organization_id  TEXT NOT NULL,
    sender_id        TEXT NOT NULL,
    sha256           TEXT NOT NULL,
    network_media_id TEXT NOT NULL,
    uploaded_at      TIMESTAMPTZ NOT NULL,
    reuse_until      TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (sender_id, sha256)
);
CREATE INDEX network_media_uploads_by_reuse ON network_media_uploads (reuse_until);

-- The `med_` id of an inbound message's file (NULL for messages without one); the file's network id, type
-- and name are in `content`.
ALTER TABLE inbound_messages ADD COLUMN media_id TEXT NULL;
CREATE UNIQUE INDEX inbound_messages_by_media_id ON inbound_messages (media_id);
