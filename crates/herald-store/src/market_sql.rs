//! The recipient's pricing market as an SQL expression, so usage counts messages by market in its one
//! grouped query (`PricingStore::usage_counts`) over every message ever stored, whatever day it was
//! accepted on.
//!
//! The expression is written from the domain's table ([`CALLING_CODES`]) and means what
//! [`herald_domain::pricing::markets::Market::of_number`] means: the longest calling code in force on the
//! message's day that starts the number, else `other`. It only ever holds digits, slugs and days of that
//! static table, never a value from a request. The rows are first split by the number's first digit, so
//! a message meets only the codes that can match it.

use herald_domain::pricing::markets::{CALLING_CODES, CallingCode, Market};

/// The `CASE` giving the market slug of the number in `number` (a stored recipient: `+` and digits, or a
/// user id, which is `other`) on the `YYYY-MM-DD` text day `day`.
pub(crate) fn market_of(number: &str, day: &str) -> String {
    let mut sql = format!("(CASE substr({number}, 2, 1)");
    for digit in '0'..='9' {
        let mut rows: Vec<&CallingCode> = CALLING_CODES
            .iter()
            .filter(|row| row.prefix.starts_with(digit))
            .collect();
        if rows.is_empty() {
            continue;
        }
        // Longest prefix first; among rows of one prefix, the latest in force first.
        rows.sort_by_key(|row| std::cmp::Reverse((row.prefix.len(), row.since)));
        sql.push_str(&format!(" WHEN '{digit}' THEN CASE"));
        for row in rows {
            let (year, month, date) = row.since;
            sql.push_str(&format!(
                " WHEN {number} LIKE '+{}%' AND {day} >= '{year:04}-{month:02}-{date:02}' THEN '{}'",
                row.prefix, row.market
            ));
        }
        sql.push_str(&format!(" ELSE '{}' END", Market::OTHER.as_str()));
    }
    sql.push_str(&format!(" ELSE '{}' END)", Market::OTHER.as_str()));
    sql
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Nothing but the table's digits, slugs and days reaches the SQL text.
    #[test]
    fn the_expression_holds_only_digits_slugs_and_days_of_the_table() {
        for row in CALLING_CODES {
            assert!(row.prefix.bytes().all(|b| b.is_ascii_digit()), "{}", row.prefix);
            assert!(
                row.market.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
                "{}",
                row.market
            );
        }
        let sql = market_of("n", "d");
        assert!(sql.contains("WHEN n LIKE '+1809%' AND d >= '2024-11-01' THEN 'rest_of_latin_america'"));
        assert!(
            sql.find("'+1809%'") < sql.find("'+1%'"),
            "the longer prefix first"
        );
    }
}
