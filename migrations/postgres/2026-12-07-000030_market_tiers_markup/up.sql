-- Volume tiers of a market card (`herald admin rate import`, docs/operations.md "Rates by market"): from the
-- `from_volume`th billable message of a calendar month in the market and category, each costs `amount_micros`
-- (in the card's currency). Kept and replaced with their card.
CREATE TABLE market_rate_tiers (
    effective_from TEXT NOT NULL,
    market TEXT NOT NULL,
    category TEXT NOT NULL,
    from_volume BIGINT NOT NULL CHECK (from_volume >= 2),
    amount_micros BIGINT NOT NULL CHECK (amount_micros >= 0),
    PRIMARY KEY (effective_from, market, category, from_volume)
);
-- The operator's markup on Meta's market rates, in hundredths of a percent (`herald admin rate markup`): an
-- organization's own wins over its plan's; NULL is none.
ALTER TABLE organizations ADD COLUMN markup_basis_points INTEGER NULL
    CHECK (markup_basis_points BETWEEN 0 AND 100000);
ALTER TABLE plans ADD COLUMN markup_basis_points INTEGER NULL
    CHECK (markup_basis_points BETWEEN 0 AND 100000);
-- The send path an organization's marketing templates take when a send or broadcast names none
-- (`herald admin org set-marketing-route`, docs/api.md §4.11).
ALTER TABLE organizations ADD COLUMN marketing_route TEXT NOT NULL DEFAULT 'auto'
    CHECK (marketing_route IN ('auto', 'cloud_api', 'marketing_messages'));
