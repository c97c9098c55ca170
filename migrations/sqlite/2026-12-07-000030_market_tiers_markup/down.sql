ALTER TABLE organizations DROP COLUMN marketing_route;
ALTER TABLE plans DROP COLUMN markup_basis_points;
ALTER TABLE organizations DROP COLUMN markup_basis_points;
DROP TABLE market_rate_tiers;
