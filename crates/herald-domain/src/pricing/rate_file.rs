//! A rate-card file, as `herald admin rate import` reads it (docs/operations.md, "Rates by market"): CSV
//! with Meta's columns `Market,Currency,Marketing,Utility,Authentication,Authentication-International,Service`.
//!
//! Lines before the header that are empty or start with `#` are notes and skipped; every other line after
//! the header is one market. An empty cell or `n/a` is "no rate" (Meta writes `n/a` where a market has no
//! `authentication_international` rate). The whole file is checked before anything is kept, and the first
//! fault names its line and column.
//!
//! Volume tiers are optional: after the market lines, a second header `Market,Category,From,Rate` starts
//! the tier lines, one per tier. `From` is the first message of a calendar month (1-based, counted per
//! market and category) the tier's rate applies to; the market line's rate applies from message 1 to the
//! first tier. Only `utility` and `authentication` have tiers (Meta's volume tiers, docs/cloud-api.md §6.3).

use super::markets::Market;
use super::{Cost, Currency, PricingWord};

/// The largest file read: Meta's cards have fewer than a hundred lines.
pub const MAX_BYTES: usize = 256 * 1024;
/// The most market lines one file may hold: every market, with room to spare.
pub const MAX_MARKETS: usize = 200;

/// The columns, in order, as Herald writes them; the header may write `-` for `_` and any case.
pub const COLUMNS: [&str; 7] = [
    "market",
    "currency",
    "marketing",
    "utility",
    "authentication",
    "authentication_international",
    "service",
];

/// The first column holding a category's rate.
const FIRST_RATE: usize = 2;

/// The columns of the tier section, in order.
pub const TIER_COLUMNS: [&str; 4] = ["market", "category", "from", "rate"];

/// The categories Meta lowers by monthly volume.
pub const TIERED_CATEGORIES: [&str; 2] = ["utility", "authentication"];

/// The most tiers one market's category may have: Meta's tables have a handful.
pub const MAX_TIERS: usize = 16;

/// The largest `From` of a tier: far above any month's volume, and inside every store's integer.
pub const MAX_TIER_FROM: u64 = 1_000_000_000_000;

/// One volume tier: from the `from`th billable message of a month in `market` and `category` on, each
/// message costs `micros`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarketTier {
    pub market: Market,
    pub category: PricingWord,
    pub from: u64,
    pub micros: u64,
}

/// One market's rate of one category, in micro-units of the file's currency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarketRate {
    pub market: Market,
    pub category: PricingWord,
    pub micros: u64,
}

/// A rate file read whole: one currency, the rates of each market.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateFile {
    pub currency: Currency,
    pub rates: Vec<MarketRate>,
    /// By market and category, each one's tiers in increasing `from`.
    pub tiers: Vec<MarketTier>,
}

/// Where a rate file is wrong: its 1-based line and column (0: the whole line or file), and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct RateFileError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

fn fault(line: usize, column: usize, message: impl Into<String>) -> RateFileError {
    RateFileError {
        line,
        column,
        message: message.into(),
    }
}

impl RateFile {
    /// Reads `text` whole.
    ///
    /// # Errors
    /// [`RateFileError`] naming the line and column of the first fault: a file too large, no header or
    /// another header, a line of another width, an unknown or repeated market, a second currency, an
    /// amount that is not one.
    pub fn parse(text: &str) -> Result<Self, RateFileError> {
        if text.len() > MAX_BYTES {
            return Err(fault(0, 0, format!("the file is larger than {MAX_BYTES} bytes")));
        }
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(index, line)| (index + 1, line.trim_end_matches('\r')));
        let header = lines
            .by_ref()
            .find(|(_, line)| !line.trim().is_empty() && !line.trim_start().starts_with('#'))
            .ok_or_else(|| fault(0, 0, "no header line (market,currency,marketing,…)"))?;
        check_header(header.0, header.1)?;
        let mut currency: Option<Currency> = None;
        let mut markets: Vec<Market> = Vec::new();
        let mut rates = Vec::new();
        let mut tiers: Vec<MarketTier> = Vec::new();
        let mut in_tiers = false;
        for (number, line) in lines.filter(|(_, line)| !line.trim().is_empty()) {
            if !in_tiers && is_tier_header(line) {
                in_tiers = true;
                continue;
            }
            if in_tiers {
                let tier = tier_line(number, line, &markets, &rates)?;
                check_tier_order(number, &tier, &tiers)?;
                tiers.push(tier);
                continue;
            }
            if markets.len() == MAX_MARKETS {
                return Err(fault(number, 0, format!("more than {MAX_MARKETS} markets")));
            }
            let cells = cells(line);
            if cells.len() != COLUMNS.len() {
                return Err(fault(
                    number,
                    0,
                    format!("{} columns, not {}", cells.len(), COLUMNS.len()),
                ));
            }
            let cell = |column: usize| cells.get(column).copied().unwrap_or_default();
            let market = Market::parse(cell(0)).map_err(|e| fault(number, 1, e.to_string()))?;
            if markets.contains(&market) {
                return Err(fault(number, 1, format!("{market} is listed twice")));
            }
            markets.push(market);
            let line_currency = Currency::parse(cell(1)).map_err(|e| fault(number, 2, e.to_string()))?;
            match &currency {
                Some(first) if *first != line_currency => {
                    return Err(fault(
                        number,
                        2,
                        format!("a file holds one currency; this one is in {}", first.as_str()),
                    ));
                }
                Some(_) => {}
                None => currency = Some(line_currency),
            }
            for (column, name) in COLUMNS.iter().enumerate().skip(FIRST_RATE) {
                let value = cell(column);
                if value.is_empty() || value.eq_ignore_ascii_case("n/a") {
                    continue;
                }
                let micros =
                    Cost::parse_amount(value).map_err(|e| fault(number, column + 1, e.to_string()))?;
                let category =
                    PricingWord::parse(name).map_err(|e| fault(number, column + 1, e.to_string()))?;
                rates.push(MarketRate {
                    market,
                    category,
                    micros,
                });
            }
        }
        let currency = currency.ok_or_else(|| fault(header.0, 0, "no market after the header"))?;
        Ok(Self {
            currency,
            rates,
            tiers,
        })
    }
}

/// Whether `line` is the tier section's header (any case, `-` for `_`).
fn is_tier_header(line: &str) -> bool {
    let cells = cells(line);
    cells.len() == TIER_COLUMNS.len()
        && cells
            .iter()
            .zip(TIER_COLUMNS)
            .all(|(cell, name)| cell.to_ascii_lowercase().replace('-', "_") == name)
}

/// One tier line: a market listed above with a rate of the category, a tiered category, a `From` above 1,
/// an amount.
fn tier_line(
    number: usize,
    line: &str,
    markets: &[Market],
    rates: &[MarketRate],
) -> Result<MarketTier, RateFileError> {
    let cells = cells(line);
    if cells.len() != TIER_COLUMNS.len() {
        return Err(fault(
            number,
            0,
            format!(
                "a tier line has {} columns ({}), not {}",
                TIER_COLUMNS.len(),
                TIER_COLUMNS.join(","),
                cells.len()
            ),
        ));
    }
    let cell = |column: usize| cells.get(column).copied().unwrap_or_default();
    let market = Market::parse(cell(0)).map_err(|e| fault(number, 1, e.to_string()))?;
    if !markets.contains(&market) {
        return Err(fault(
            number,
            1,
            format!("{market} has no market line above: a tier lowers a market's rate"),
        ));
    }
    let category = PricingWord::parse(cell(1)).map_err(|e| fault(number, 2, e.to_string()))?;
    if !TIERED_CATEGORIES.contains(&category.as_str()) {
        return Err(fault(
            number,
            2,
            format!(
                "`{category}` has no volume tiers; only {} do",
                TIERED_CATEGORIES.join(" and ")
            ),
        ));
    }
    if !rates.iter().any(|r| r.market == market && r.category == category) {
        return Err(fault(
            number,
            2,
            format!("{market} has no {category} rate above for the tier to lower"),
        ));
    }
    let from = cell(2)
        .parse::<u64>()
        .ok()
        .filter(|from| (2..=MAX_TIER_FROM).contains(from))
        .ok_or_else(|| {
            fault(
                number,
                3,
                format!(
                    "`{}` is not a tier's first message (a whole number from 2 to {MAX_TIER_FROM})",
                    cell(2).chars().take(32).collect::<String>()
                ),
            )
        })?;
    let micros = Cost::parse_amount(cell(3)).map_err(|e| fault(number, 4, e.to_string()))?;
    Ok(MarketTier {
        market,
        category,
        from,
        micros,
    })
}

/// A market's category lists its tiers in increasing `From`, at most [`MAX_TIERS`] of them.
fn check_tier_order(number: usize, tier: &MarketTier, tiers: &[MarketTier]) -> Result<(), RateFileError> {
    let same: Vec<&MarketTier> = tiers
        .iter()
        .filter(|t| t.market == tier.market && t.category == tier.category)
        .collect();
    if let Some(last) = same.last().filter(|last| last.from >= tier.from) {
        return Err(fault(
            number,
            3,
            format!(
                "{} {} tiers are listed in increasing `From`; {} follows {}",
                tier.market, tier.category, tier.from, last.from
            ),
        ));
    }
    if same.len() >= MAX_TIERS {
        return Err(fault(
            number,
            0,
            format!("more than {MAX_TIERS} tiers of {} {}", tier.market, tier.category),
        ));
    }
    Ok(())
}

/// The cells of a line, trimmed, a surrounding pair of `"` taken off.
fn cells(line: &str) -> Vec<&str> {
    line.split(',')
        .map(|cell| {
            let cell = cell.trim();
            cell.strip_prefix('"')
                .and_then(|c| c.strip_suffix('"'))
                .unwrap_or(cell)
                .trim()
        })
        .collect()
}

fn check_header(number: usize, line: &str) -> Result<(), RateFileError> {
    let cells = cells(line);
    if cells.len() != COLUMNS.len() {
        return Err(fault(
            number,
            0,
            format!(
                "the header has {} columns, not {} ({})",
                cells.len(),
                COLUMNS.len(),
                COLUMNS.join(",")
            ),
        ));
    }
    for (index, (cell, expected)) in cells.iter().zip(COLUMNS).enumerate() {
        if cell.to_ascii_lowercase().replace('-', "_") != expected {
            return Err(fault(
                number,
                index + 1,
                format!("the header names `{expected}` here"),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str =
        "Market,Currency,Marketing,Utility,Authentication,Authentication-International,Service";

    fn file(lines: &[&str]) -> String {
        let mut text = String::from("# Rates effective 2026-10-01\n\n");
        text.push_str(HEADER);
        for line in lines {
            text.push('\n');
            text.push_str(line);
        }
        text
    }

    #[test]
    fn a_card_is_read_with_its_markets_and_rates() {
        let card = RateFile::parse(&file(&[
            "Brazil,USD,0.0625,0.0068,0.0068,n/a,0.0068",
            "\"Rest of Central & Eastern Europe\",USD,0.086,0.0212,0.0212,,",
            "",
        ]))
        .unwrap();
        assert_eq!(card.currency.as_str(), "USD");
        assert_eq!(card.rates.len(), 7);
        let rate = |market: &str, category: &str| {
            card.rates
                .iter()
                .find(|r| r.market.as_str() == market && r.category.as_str() == category)
                .map(|r| r.micros)
        };
        assert_eq!(rate("brazil", "marketing"), Some(62_500));
        assert_eq!(rate("brazil", "authentication_international"), None);
        assert_eq!(rate("rest_of_central_eastern_europe", "utility"), Some(21_200));
        assert_eq!(rate("rest_of_central_eastern_europe", "service"), None);
    }

    fn error(lines: &[&str]) -> (usize, usize) {
        let e = RateFile::parse(&file(lines)).unwrap_err();
        (e.line, e.column)
    }

    #[test]
    fn a_fault_names_its_line_and_column() {
        // The header is line 3.
        assert_eq!(error(&["Atlantis,USD,1,1,1,1,1"]), (4, 1));
        assert_eq!(
            error(&["Brazil,USD,1,1,1,1,1", "Chile,dollars,1,1,1,1,1"]),
            (5, 2)
        );
        assert_eq!(error(&["Brazil,USD,1,1,1,1,1", "Chile,EUR,1,1,1,1,1"]), (5, 2));
        assert_eq!(error(&["Brazil,USD,0.06,abc,1,1,1"]), (4, 4));
        assert_eq!(error(&["Brazil,USD,0.06,0.01,0.01,0.01,-1"]), (4, 7));
        assert_eq!(error(&["Brazil,USD,0.06"]), (4, 0));
        assert_eq!(error(&["Brazil,USD,1,1,1,1,1", "brazil,USD,1,1,1,1,1"]), (5, 1));
        assert_eq!(error(&[]), (3, 0));
    }

    const TIER_HEADER: &str = "Market,Category,From,Rate";

    #[test]
    fn tiers_follow_their_own_header_and_lower_a_market_line_rate() {
        let card = RateFile::parse(&file(&[
            "India,USD,0.0107,0.0014,0.0014,0.0280,",
            "Brazil,USD,0.0625,0.0068,0.0068,n/a,0.0068",
            TIER_HEADER,
            "India,utility,100001,0.0012",
            "India,utility,1000001,0.0010",
            "India,Authentication,100001,0.0013",
        ]))
        .unwrap();
        assert_eq!(card.rates.len(), 8);
        let tiers: Vec<(&str, &str, u64, u64)> = card
            .tiers
            .iter()
            .map(|t| (t.market.as_str(), t.category.as_str(), t.from, t.micros))
            .collect();
        assert_eq!(
            tiers,
            [
                ("india", "utility", 100_001, 1_200),
                ("india", "utility", 1_000_001, 1_000),
                ("india", "authentication", 100_001, 1_300),
            ]
        );
        let without = RateFile::parse(&file(&["Brazil,USD,0.0625,0.0068,0.0068,n/a,0.0068"])).unwrap();
        assert!(without.tiers.is_empty());
    }

    #[test]
    fn a_malformed_tier_names_its_line_and_column() {
        let market = "India,USD,0.0107,0.0014,0.0014,0.0280,";
        let tier_error = |tier: &[&str]| {
            let mut lines = vec![market, TIER_HEADER];
            lines.extend_from_slice(tier);
            let e = RateFile::parse(&file(&lines)).unwrap_err();
            (e.line, e.column)
        };
        // The header is line 3, the market line 4, the tier header 5.
        assert_eq!(tier_error(&["India,utility,100001"]), (6, 0), "three columns");
        assert_eq!(
            tier_error(&["Atlantis,utility,100001,0.001"]),
            (6, 1),
            "unknown market"
        );
        assert_eq!(
            tier_error(&["Brazil,utility,100001,0.001"]),
            (6, 1),
            "no market line"
        );
        assert_eq!(
            tier_error(&["India,marketing,100001,0.001"]),
            (6, 2),
            "not tiered"
        );
        assert_eq!(
            tier_error(&["India,authentication_international,100001,0.001"]),
            (6, 2)
        );
        for from in ["1", "0", "-5", "1.5", "abc", "", "1000000000001"] {
            let line = format!("India,utility,{from},0.001");
            assert_eq!(tier_error(&[&line]), (6, 3), "from {from}");
        }
        assert_eq!(tier_error(&["India,utility,100001,cheap"]), (6, 4), "amount");
        assert_eq!(
            tier_error(&["India,utility,100001,0.001", "India,utility,100001,0.0009"]),
            (7, 3),
            "not increasing"
        );
        let mut many: Vec<String> = Vec::new();
        for tier in 0..=MAX_TIERS {
            many.push(format!("India,utility,{},0.001", 1_000 * (tier + 1)));
        }
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        assert_eq!(tier_error(&many), (6 + MAX_TIERS, 0), "too many");
        // A market line after the tier header is a tier line of the wrong width.
        assert_eq!(
            tier_error(&["India,utility,100001,0.001", "Brazil,USD,1,1,1,1,1"]),
            (7, 0)
        );
    }

    #[test]
    fn a_wrong_or_missing_header_is_refused() {
        let e = RateFile::parse("Market,Currency,Marketing,Utility,Authentication,Service,X\n").unwrap_err();
        assert_eq!((e.line, e.column), (1, 6));
        assert_eq!(RateFile::parse("# only a note\n").unwrap_err().line, 0);
        let big = "#".repeat(MAX_BYTES + 1);
        assert_eq!(RateFile::parse(&big).unwrap_err().line, 0);
    }
}
