//! `GET /api/v1/usage`'s days: arbitrary `from`/`until` values (extreme years, signs, garbage) read as the
//! handler reads them, then defaulted and checked by the use case on an arbitrary "today": never a panic
//! (chrono's date arithmetic panics on overflow), and an accepted range is within 2000-01-01..9999-12-31,
//! ordered and at most 92 days.
#![no_main]

use arbitrary::Arbitrary;
use chrono::NaiveDate;
use herald_domain::usecases::{Usage, usage_days};
use libfuzzer_sys::fuzz_target;

#[derive(Debug, Arbitrary)]
enum Day {
    Absent,
    Text(String),
    /// A day by its number from 0001-01-01, anywhere in chrono's range and past it.
    Number(i32),
    /// A year, month and day written with a sign, as `%Y` reads years beyond four digits.
    Signed(i32, u8, u8),
}

fn text(day: &Day) -> Option<String> {
    match day {
        Day::Absent => None,
        Day::Text(text) => Some(text.clone()),
        Day::Number(n) => NaiveDate::from_num_days_from_ce_opt(*n).map(|d| d.format("%Y-%m-%d").to_string()),
        Day::Signed(year, month, day) => Some(format!("{year:+}-{month:02}-{day:02}")),
    }
}

fuzz_target!(|input: (Day, Day, i32)| {
    let (from, until, today) = input;
    let mut pairs = Vec::new();
    for (name, day) in [("from", &from), ("until", &until)] {
        if let Some(value) = text(day) {
            pairs.push((name.to_owned(), value));
        }
    }
    let Ok((from, until)) = herald_http::fuzzing::usage_range(&pairs) else {
        return;
    };
    let today = NaiveDate::from_num_days_from_ce_opt(today).unwrap_or(NaiveDate::MAX);
    if let Ok((from, until)) = usage_days(from, until, today) {
        let (y, m, d) = Usage::FIRST_DAY;
        let first = NaiveDate::from_ymd_opt(y, m, d).unwrap();
        let (y, m, d) = Usage::LAST_DAY;
        let last = NaiveDate::from_ymd_opt(y, m, d).unwrap();
        assert!(first <= from && from <= until && until <= last, "{from} {until}");
        assert!((until - from).num_days() < Usage::MAX_DAYS, "{from} {until}");
    }
});
