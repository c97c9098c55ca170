DROP TABLE market_rates;
