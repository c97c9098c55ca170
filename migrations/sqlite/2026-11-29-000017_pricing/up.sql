-- The network's pricing of each message (docs/api.md §5) and the organizations' rate cards
-- (docs/api.md §12, `herald admin rate`). The pricing columns hold the `pricing` object of the status report that won
-- (herald_domain::pricing::kept), lowercased; NULL until a report carries one.
ALTER TABLE messages ADD COLUMN pricing_model TEXT;
ALTER TABLE messages ADD COLUMN pricing_category TEXT;
ALTER TABLE messages ADD COLUMN pricing_type TEXT;
ALTER TABLE messages ADD COLUMN pricing_billable BOOLEAN;
-- The price an operator set for one billable message of a category, in millionths of the currency's unit
-- (exact sums, no floats). One currency per organization, which the use case keeps.
CREATE TABLE rates (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    category TEXT NOT NULL,
    amount_micros BIGINT NOT NULL CHECK (amount_micros >= 0),
    currency TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (organization_id, category)
);
-- Usage sums (GET /api/v1/usage) read one organization's messages by creation time.
CREATE INDEX messages_by_created ON messages (organization_id, created_at);
