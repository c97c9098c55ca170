//! Meta's billing rules, each with the day it took effect (docs/cloud-api.md §6.1 gives every rule its
//! source). A dry run and its estimate judge a message by the rules in force on the day it would be
//! sent; the network's `pricing` object on the status report stays the last word once it
//! arrives.
//!
//! The table is data: a change Meta announces is one more row, with its date and its source.

use crate::time::Timestamp;
use chrono::NaiveDate;

/// How Meta counts what it bills.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BillingModel {
    /// Conversation-based pricing (`cbp`): one charge per 24-hour conversation of a category.
    PerConversation,
    /// Per-message pricing (`pmp`): one charge per delivered message.
    PerMessage,
}

/// The rules Meta bills by from [`BillingRules::since`] until the next row of [`RULES`].
///
/// A message inside an open free entry-point window (72 hours after a user wrote from a click-to-WhatsApp
/// ad or a Page's call-to-action button and the business answered within 24 hours) is free in every
/// period of the table, so that window is no field of a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BillingRules {
    /// The first UTC day the rules apply. Meta switches on the day of each business's WhatsApp Business
    /// Account time zone; Herald keeps days in UTC, so on a boundary day the report may differ.
    pub since: (i32, u32, u32),
    pub model: BillingModel,
    /// Non-template (`service`) messages, which go out only inside an open customer service window, are
    /// charged.
    pub service_charged: bool,
    /// Utility templates delivered inside an open customer service window are charged.
    pub utility_in_window_charged: bool,
}

impl BillingRules {
    /// The first day of the rules as a date.
    pub fn since_day(&self) -> Option<NaiveDate> {
        let (year, month, day) = self.since;
        NaiveDate::from_ymd_opt(year, month, day)
    }

    /// The rules in force on the UTC day of `at`; `None` before the table's first row (Herald knows no
    /// older rules, and sent no message under them that a dry run could still judge).
    pub fn in_force_at(at: Timestamp) -> Option<&'static Self> {
        Self::in_force_on(at.date_naive())
    }

    /// The rules in force on `day`: the last row whose first day is not after it.
    pub fn in_force_on(day: NaiveDate) -> Option<&'static Self> {
        RULES
            .iter()
            .rev()
            .find(|rules| rules.since_day().is_some_and(|since| since <= day))
    }
}

/// Meta's billing rules, oldest first.
pub const RULES: [BillingRules; 3] = [
    // Service conversations free for every business; utility templates still charged inside the window.
    BillingRules {
        since: (2024, 11, 1),
        model: BillingModel::PerConversation,
        service_charged: false,
        utility_in_window_charged: true,
    },
    // Per-message pricing; utility templates free inside an open customer service window.
    BillingRules {
        since: (2025, 7, 1),
        model: BillingModel::PerMessage,
        service_charged: false,
        utility_in_window_charged: false,
    },
    // Service messages charged per message, and utility templates inside the window charged again.
    BillingRules {
        since: (2026, 10, 1),
        model: BillingModel::PerMessage,
        service_charged: true,
        utility_in_window_charged: true,
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    fn day(text: &str) -> NaiveDate {
        NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn every_row_is_a_real_day_and_the_rows_are_in_order() {
        let days: Vec<NaiveDate> = RULES.iter().map(|r| r.since_day().unwrap()).collect();
        assert!(days.windows(2).all(|pair| pair[0] < pair[1]), "{days:?}");
    }

    #[test]
    fn each_boundary_day_starts_its_rules_and_the_day_before_keeps_the_old_ones() {
        assert_eq!(BillingRules::in_force_on(day("2024-10-31")), None);
        for (before, on) in [
            ("2024-10-31", "2024-11-01"),
            ("2025-06-30", "2025-07-01"),
            ("2026-09-30", "2026-10-01"),
        ] {
            let on_rules = BillingRules::in_force_on(day(on)).unwrap();
            assert_eq!(on_rules.since_day(), Some(day(on)));
            assert_ne!(
                BillingRules::in_force_on(day(before)).map(|r| r.since),
                Some(on_rules.since)
            );
        }
        let july_2025 = BillingRules::in_force_on(day("2025-07-01")).unwrap();
        assert_eq!(july_2025.model, BillingModel::PerMessage);
        assert!(!july_2025.utility_in_window_charged);
        let june_2025 = BillingRules::in_force_on(day("2025-06-30")).unwrap();
        assert_eq!(june_2025.model, BillingModel::PerConversation);
        assert!(june_2025.utility_in_window_charged);
        assert!(
            !BillingRules::in_force_on(day("2026-09-30"))
                .unwrap()
                .service_charged
        );
        assert!(
            BillingRules::in_force_on(day("2026-10-01"))
                .unwrap()
                .service_charged
        );
        assert!(
            BillingRules::in_force_on(day("9999-12-31"))
                .unwrap()
                .service_charged
        );
    }
}
