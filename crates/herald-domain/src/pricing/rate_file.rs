//! A rate-card file, as `herald admin rate import` reads it (docs/operations.md, "Rates by market"): CSV
//! with Meta's columns `Market,Currency,Marketing,Utility,Authentication,Authentication-International,Service`.
//!
//! Lines before the header that are empty or start with `#` are notes and skipped; every other line after
//! the header is one market. An empty cell or `n/a` is "no rate" (Meta writes `n/a` where a market has no
//! `authentication_international` rate). The whole file is checked before anything is kept, and the first
//! fault names its line and column.

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
        for (number, line) in lines.filter(|(_, line)| !line.trim().is_empty()) {
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
        Ok(Self { currency, rates })
    }
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

    #[test]
    fn a_wrong_or_missing_header_is_refused() {
        let e = RateFile::parse("Market,Currency,Marketing,Utility,Authentication,Service,X\n").unwrap_err();
        assert_eq!((e.line, e.column), (1, 6));
        assert_eq!(RateFile::parse("# only a note\n").unwrap_err().line, 0);
        let big = "#".repeat(MAX_BYTES + 1);
        assert_eq!(RateFile::parse(&big).unwrap_err().line, 0);
    }
}
