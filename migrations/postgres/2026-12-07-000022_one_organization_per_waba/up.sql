-- One organization per business account (WABA): a sender of a WABA another organization already has is
-- refused unless the operator shares it explicitly (`herald admin sender add --shared-waba`), which this
-- column records. The WABA's notices reach its owner (the organization of its first sender) and the
-- organizations with a sharing sender, no one else (docs/operations.md, "One organization per WABA").
ALTER TABLE senders ADD COLUMN shares_waba BOOLEAN NOT NULL DEFAULT FALSE;
-- Who a template of a business account belongs to, when it was created through Herald: on a shared WABA
-- a template is edited or deleted only through its own organization (templates made elsewhere belong to
-- the WABA's owner). Forgotten when every language of the template is deleted.
CREATE TABLE template_authors (
    waba_id TEXT NOT NULL,
    name TEXT NOT NULL,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    created_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (waba_id, name)
);
