//! Time as the domain sees it.

/// An instant in UTC. Every stored and reported time is one of these.
pub type Timestamp = chrono::DateTime<chrono::Utc>;

/// A length of time, signed.
pub type Duration = chrono::TimeDelta;

/// The calendar month (UTC) that a monthly quota counts against, as `YYYY-MM`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BillingPeriod(String);

impl BillingPeriod {
    /// The period containing `at`.
    pub fn containing(at: Timestamp) -> Self {
        Self(at.format("%Y-%m").to_string())
    }

    /// The first instant after this period, which is when its quota resets.
    pub fn end_after(at: Timestamp) -> Timestamp {
        use chrono::{Datelike, TimeZone};
        let (year, month) = if at.month() == 12 {
            (at.year() + 1, 1)
        } else {
            (at.year(), at.month() + 1)
        };
        chrono::Utc
            .with_ymd_and_hms(year, month, 1, 0, 0, 0)
            .single()
            .unwrap_or(at + chrono::TimeDelta::days(31))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Rebuilds a period read back from storage.
    pub fn from_stored(value: impl Into<String>) -> Self {
        Self(value.into())
    }
}

impl std::fmt::Display for BillingPeriod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn period_is_the_utc_month() {
        let at = chrono::Utc.with_ymd_and_hms(2026, 11, 30, 23, 59, 59).unwrap();
        assert_eq!(BillingPeriod::containing(at).as_str(), "2026-11");
        assert_eq!(
            BillingPeriod::end_after(at),
            chrono::Utc.with_ymd_and_hms(2026, 12, 1, 0, 0, 0).unwrap()
        );
        let december = chrono::Utc.with_ymd_and_hms(2026, 12, 5, 0, 0, 0).unwrap();
        assert_eq!(
            BillingPeriod::end_after(december),
            chrono::Utc.with_ymd_and_hms(2027, 1, 1, 0, 0, 0).unwrap()
        );
    }
}
