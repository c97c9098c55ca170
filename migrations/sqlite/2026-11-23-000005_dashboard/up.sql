-- The owner's dashboard, sqlite: one owner login per organization, and dashboard sessions.

CREATE TABLE owners (
    organization_id TEXT PRIMARY KEY REFERENCES organizations (id),
    -- Lowercased; one login opens one organization.
    email           TEXT NOT NULL UNIQUE,
    -- Argon2id, PHC string form; the password itself is never stored.
    password_hash   TEXT NOT NULL,
    password_set_at TEXT NOT NULL
);

CREATE TABLE dashboard_sessions (
    -- SHA-256 of the session token, lowercase hex; the token lives only in the owner's cookie.
    digest          TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    email           TEXT NOT NULL,
    csrf_token      TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    last_seen_at    TEXT NOT NULL,
    expires_at      TEXT NOT NULL
);
CREATE INDEX dashboard_sessions_by_organization ON dashboard_sessions (organization_id);

-- The dashboard's message page lists the deliveries of one message's events.
CREATE INDEX webhook_deliveries_by_event ON webhook_deliveries (event_id);
