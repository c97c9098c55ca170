-- Meta's rates by market and category, each card from the UTC day it takes effect (`herald admin rate import`,
-- docs/operations.md "Rates by market"). Amounts in millionths of the currency's unit; one currency per card.
-- `effective_from` is the day as YYYY-MM-DD text, so both stores compare it alike.
CREATE TABLE market_rates (
    effective_from TEXT NOT NULL,
    market TEXT NOT NULL,
    category TEXT NOT NULL,
    amount_micros BIGINT NOT NULL CHECK (amount_micros >= 0),
    currency TEXT NOT NULL,
    imported_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (effective_from, market, category)
);
