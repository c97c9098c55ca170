//! Meta's pricing markets, and the market of a phone number (docs/cloud-api.md §6.2 gives the sources).
//!
//! Meta prices a message by the recipient's market: a country with its own rate, a regional group
//! ("Rest of Africa", …), "North America", or "Other" for every calling code it lists nowhere. The
//! market is told from the number's country calling code (ITU-T E.164 assignments), and the list
//! changes on announced days, so each calling-code row carries the day it took effect.
//!
//! Both tables are data: a change Meta announces is one more row, with its day.

use crate::error::InvalidValue;
use chrono::NaiveDate;

/// One of Meta's pricing markets: its slug (`rest_of_africa`) as Herald's API writes it, and its name
/// as Meta's rate cards write it (`Rest of Africa`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Market {
    slug: &'static str,
}

impl Market {
    /// The market of every number Meta lists in no other market.
    pub const OTHER: Self = Self { slug: "other" };

    /// The market named `value`: its slug (`rest_of_africa`) or Meta's name (`Rest of Africa`), in any
    /// case.
    ///
    /// # Errors
    /// [`InvalidValue`] when no market has that name.
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        let wanted = value.trim();
        MARKETS
            .iter()
            .find(|(slug, name)| slug.eq_ignore_ascii_case(wanted) || name.eq_ignore_ascii_case(wanted))
            .map(|(slug, _)| Self { slug })
            .ok_or_else(|| {
                InvalidValue::new(format!(
                    "`{}` is not one of Meta's pricing markets (e.g. `brazil`, `rest_of_africa`, `other`)",
                    wanted.chars().take(64).collect::<String>()
                ))
            })
    }

    /// The slug: lowercase ASCII letters and `_`.
    pub fn as_str(&self) -> &'static str {
        self.slug
    }

    /// Meta's name of the market, as its rate cards write it.
    pub fn meta_name(&self) -> &'static str {
        MARKETS
            .iter()
            .find(|(slug, _)| *slug == self.slug)
            .map_or(self.slug, |(_, name)| name)
    }

    /// The market of the number whose digits (without `+`) are `digits`, on `day`: the longest calling
    /// code (or North American area code) of [`CALLING_CODES`] in force that day that starts the digits;
    /// [`Market::OTHER`] when none does.
    pub fn of_number(digits: &str, day: NaiveDate) -> Self {
        CALLING_CODES
            .iter()
            .filter(|row| digits.starts_with(row.prefix))
            .filter(|row| row.since_day().is_some_and(|since| since <= day))
            // The longest prefix wins; among rows of one prefix, the latest in force.
            .max_by_key(|row| (row.prefix.len(), row.since))
            .and_then(|row| Self::parse(row.market).ok())
            .unwrap_or(Self::OTHER)
    }
}

impl std::fmt::Display for Market {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.slug)
    }
}

/// Every market of Meta's rate cards: slug, Meta's name.
pub const MARKETS: &[(&str, &str)] = &[
    ("argentina", "Argentina"),
    ("bangladesh", "Bangladesh"),
    ("brazil", "Brazil"),
    ("chile", "Chile"),
    ("colombia", "Colombia"),
    ("egypt", "Egypt"),
    ("france", "France"),
    ("germany", "Germany"),
    ("hong_kong", "Hong Kong"),
    ("hungary", "Hungary"),
    ("india", "India"),
    ("indonesia", "Indonesia"),
    ("iraq", "Iraq"),
    ("israel", "Israel"),
    ("italy", "Italy"),
    ("kazakhstan", "Kazakhstan"),
    ("kuwait", "Kuwait"),
    ("malaysia", "Malaysia"),
    ("mexico", "Mexico"),
    ("morocco", "Morocco"),
    ("nepal", "Nepal"),
    ("netherlands", "Netherlands"),
    ("nigeria", "Nigeria"),
    ("oman", "Oman"),
    ("pakistan", "Pakistan"),
    ("peru", "Peru"),
    ("poland", "Poland"),
    ("qatar", "Qatar"),
    ("romania", "Romania"),
    ("russia", "Russia"),
    ("saudi_arabia", "Saudi Arabia"),
    ("singapore", "Singapore"),
    ("south_africa", "South Africa"),
    ("spain", "Spain"),
    ("sri_lanka", "Sri Lanka"),
    ("turkey", "Turkey"),
    ("ukraine", "Ukraine"),
    ("united_arab_emirates", "United Arab Emirates"),
    ("united_kingdom", "United Kingdom"),
    ("north_america", "North America"),
    ("rest_of_africa", "Rest of Africa"),
    ("rest_of_asia_pacific", "Rest of Asia Pacific"),
    (
        "rest_of_central_eastern_europe",
        "Rest of Central & Eastern Europe",
    ),
    ("rest_of_latin_america", "Rest of Latin America"),
    ("rest_of_middle_east", "Rest of Middle East"),
    ("rest_of_western_europe", "Rest of Western Europe"),
    ("other", "Other"),
];

/// A calling code (or a longer prefix: a North American area code, Kazakhstan's `+76`/`+77` inside
/// `+7`) and its market from `since` on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallingCode {
    /// Digits, without `+`.
    pub prefix: &'static str,
    /// A slug of [`MARKETS`].
    pub market: &'static str,
    /// The first day the row applies (UTC).
    pub since: (i32, u32, u32),
}

impl CallingCode {
    pub fn since_day(&self) -> Option<NaiveDate> {
        let (year, month, day) = self.since;
        NaiveDate::from_ymd_opt(year, month, day)
    }
}

/// The first day of Herald's market list: the first row of [`super::rules::RULES`]; a number is
/// "Other" before it.
const LISTED: (i32, u32, u32) = (2024, 11, 1);
/// Zimbabwe moved from "Other" to "Rest of Africa".
const ZIMBABWE_MOVED: (i32, u32, u32) = (2025, 10, 1);
/// The first rate card Herald holds that lists Hong Kong, Hungary, Poland, Qatar, Romania and Singapore
/// on their own; the day they left their regions is not confirmed (docs/cloud-api.md §6.2).
const SIX_OWN_RATES: (i32, u32, u32) = (2026, 7, 1);
/// Nine markets left their regional groups for rates of their own.
const NINE_OWN_RATES: (i32, u32, u32) = (2026, 10, 1);

const fn code(prefix: &'static str, market: &'static str) -> CallingCode {
    CallingCode {
        prefix,
        market,
        since: LISTED,
    }
}

const fn code_since(prefix: &'static str, market: &'static str, since: (i32, u32, u32)) -> CallingCode {
    CallingCode {
        prefix,
        market,
        since,
    }
}

/// Calling codes and their markets. A code absent here is "Other".
pub const CALLING_CODES: &[CallingCode] = &[
    // Countries with a rate of their own.
    code("54", "argentina"),
    code("55", "brazil"),
    code("56", "chile"),
    code("57", "colombia"),
    code("20", "egypt"),
    code("33", "france"),
    code("49", "germany"),
    code("91", "india"),
    code("62", "indonesia"),
    code("972", "israel"),
    code("39", "italy"),
    code("60", "malaysia"),
    code("52", "mexico"),
    code("31", "netherlands"),
    code("234", "nigeria"),
    code("92", "pakistan"),
    code("51", "peru"),
    code("7", "russia"),
    code("966", "saudi_arabia"),
    code("27", "south_africa"),
    code("34", "spain"),
    code("90", "turkey"),
    code("971", "united_arab_emirates"),
    code("44", "united_kingdom"),
    // North America: the North American Numbering Plan, but for the area codes below.
    code("1", "north_america"),
    // Dominican Republic, Jamaica, Puerto Rico: Rest of Latin America.
    code("1809", "rest_of_latin_america"),
    code("1829", "rest_of_latin_america"),
    code("1849", "rest_of_latin_america"),
    code("1876", "rest_of_latin_america"),
    code("1658", "rest_of_latin_america"),
    code("1787", "rest_of_latin_america"),
    code("1939", "rest_of_latin_america"),
    // The other Caribbean countries of the plan: their market is not confirmed, so "Other".
    code("1242", "other"),
    code("1246", "other"),
    code("1264", "other"),
    code("1268", "other"),
    code("1284", "other"),
    code("1345", "other"),
    code("1441", "other"),
    code("1473", "other"),
    code("1649", "other"),
    code("1664", "other"),
    code("1721", "other"),
    code("1758", "other"),
    code("1767", "other"),
    code("1784", "other"),
    code("1868", "other"),
    code("1869", "other"),
    // Rest of Africa.
    code("213", "rest_of_africa"),
    code("244", "rest_of_africa"),
    code("229", "rest_of_africa"),
    code("267", "rest_of_africa"),
    code("226", "rest_of_africa"),
    code("257", "rest_of_africa"),
    code("237", "rest_of_africa"),
    code("235", "rest_of_africa"),
    code("242", "rest_of_africa"),
    code("291", "rest_of_africa"),
    code("251", "rest_of_africa"),
    code("241", "rest_of_africa"),
    code("220", "rest_of_africa"),
    code("233", "rest_of_africa"),
    code("245", "rest_of_africa"),
    code("225", "rest_of_africa"),
    code("254", "rest_of_africa"),
    code("266", "rest_of_africa"),
    code("231", "rest_of_africa"),
    code("218", "rest_of_africa"),
    code("261", "rest_of_africa"),
    code("265", "rest_of_africa"),
    code("223", "rest_of_africa"),
    code("222", "rest_of_africa"),
    code("212", "rest_of_africa"),
    code("258", "rest_of_africa"),
    code("264", "rest_of_africa"),
    code("227", "rest_of_africa"),
    code("250", "rest_of_africa"),
    code("221", "rest_of_africa"),
    code("232", "rest_of_africa"),
    code("252", "rest_of_africa"),
    code("211", "rest_of_africa"),
    code("249", "rest_of_africa"),
    code("268", "rest_of_africa"),
    code("255", "rest_of_africa"),
    code("228", "rest_of_africa"),
    code("216", "rest_of_africa"),
    code("256", "rest_of_africa"),
    code("260", "rest_of_africa"),
    code_since("263", "rest_of_africa", ZIMBABWE_MOVED),
    // Rest of Asia Pacific.
    code("93", "rest_of_asia_pacific"),
    code("61", "rest_of_asia_pacific"),
    code("880", "rest_of_asia_pacific"),
    code("855", "rest_of_asia_pacific"),
    code("86", "rest_of_asia_pacific"),
    code("852", "rest_of_asia_pacific"),
    code("81", "rest_of_asia_pacific"),
    code("856", "rest_of_asia_pacific"),
    code("976", "rest_of_asia_pacific"),
    code("977", "rest_of_asia_pacific"),
    code("64", "rest_of_asia_pacific"),
    code("675", "rest_of_asia_pacific"),
    code("63", "rest_of_asia_pacific"),
    code("65", "rest_of_asia_pacific"),
    code("94", "rest_of_asia_pacific"),
    code("886", "rest_of_asia_pacific"),
    code("992", "rest_of_asia_pacific"),
    code("66", "rest_of_asia_pacific"),
    code("993", "rest_of_asia_pacific"),
    code("998", "rest_of_asia_pacific"),
    code("84", "rest_of_asia_pacific"),
    // Rest of Central & Eastern Europe.
    code("355", "rest_of_central_eastern_europe"),
    code("374", "rest_of_central_eastern_europe"),
    code("994", "rest_of_central_eastern_europe"),
    code("375", "rest_of_central_eastern_europe"),
    code("359", "rest_of_central_eastern_europe"),
    code("385", "rest_of_central_eastern_europe"),
    code("420", "rest_of_central_eastern_europe"),
    code("995", "rest_of_central_eastern_europe"),
    code("30", "rest_of_central_eastern_europe"),
    code("36", "rest_of_central_eastern_europe"),
    code("371", "rest_of_central_eastern_europe"),
    code("370", "rest_of_central_eastern_europe"),
    code("373", "rest_of_central_eastern_europe"),
    code("389", "rest_of_central_eastern_europe"),
    code("48", "rest_of_central_eastern_europe"),
    code("40", "rest_of_central_eastern_europe"),
    code("381", "rest_of_central_eastern_europe"),
    code("421", "rest_of_central_eastern_europe"),
    code("386", "rest_of_central_eastern_europe"),
    code("380", "rest_of_central_eastern_europe"),
    // Rest of Latin America.
    code("591", "rest_of_latin_america"),
    code("506", "rest_of_latin_america"),
    code("593", "rest_of_latin_america"),
    code("503", "rest_of_latin_america"),
    code("502", "rest_of_latin_america"),
    code("509", "rest_of_latin_america"),
    code("504", "rest_of_latin_america"),
    code("505", "rest_of_latin_america"),
    code("507", "rest_of_latin_america"),
    code("595", "rest_of_latin_america"),
    code("598", "rest_of_latin_america"),
    code("58", "rest_of_latin_america"),
    // Rest of Middle East.
    code("973", "rest_of_middle_east"),
    code("964", "rest_of_middle_east"),
    code("962", "rest_of_middle_east"),
    code("965", "rest_of_middle_east"),
    code("961", "rest_of_middle_east"),
    code("968", "rest_of_middle_east"),
    code("974", "rest_of_middle_east"),
    code("967", "rest_of_middle_east"),
    // Rest of Western Europe.
    code("43", "rest_of_western_europe"),
    code("32", "rest_of_western_europe"),
    code("45", "rest_of_western_europe"),
    code("358", "rest_of_western_europe"),
    code("353", "rest_of_western_europe"),
    code("47", "rest_of_western_europe"),
    code("351", "rest_of_western_europe"),
    code("46", "rest_of_western_europe"),
    code("41", "rest_of_western_europe"),
    // Out of their regions onto rates of their own.
    code_since("852", "hong_kong", SIX_OWN_RATES),
    code_since("36", "hungary", SIX_OWN_RATES),
    code_since("48", "poland", SIX_OWN_RATES),
    code_since("974", "qatar", SIX_OWN_RATES),
    code_since("40", "romania", SIX_OWN_RATES),
    code_since("65", "singapore", SIX_OWN_RATES),
    code_since("880", "bangladesh", NINE_OWN_RATES),
    code_since("964", "iraq", NINE_OWN_RATES),
    code_since("977", "nepal", NINE_OWN_RATES),
    code_since("94", "sri_lanka", NINE_OWN_RATES),
    code_since("76", "kazakhstan", NINE_OWN_RATES),
    code_since("77", "kazakhstan", NINE_OWN_RATES),
    code_since("965", "kuwait", NINE_OWN_RATES),
    code_since("212", "morocco", NINE_OWN_RATES),
    code_since("968", "oman", NINE_OWN_RATES),
    code_since("380", "ukraine", NINE_OWN_RATES),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn day(text: &str) -> NaiveDate {
        NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
    }

    fn market(digits: &str, on: &str) -> &'static str {
        Market::of_number(digits, day(on)).as_str()
    }

    #[test]
    fn every_row_names_a_listed_market_on_a_real_day() {
        for row in CALLING_CODES {
            assert!(Market::parse(row.market).is_ok(), "{}", row.market);
            assert!(row.since_day().is_some(), "{}", row.prefix);
            assert!(row.prefix.bytes().all(|b| b.is_ascii_digit()), "{}", row.prefix);
        }
        for &(slug, name) in MARKETS {
            assert_eq!(Market::parse(name).unwrap().as_str(), slug);
            assert_eq!(Market::parse(slug).unwrap().meta_name(), name);
        }
    }

    #[test]
    fn a_prefix_has_one_market_per_day() {
        for row in CALLING_CODES {
            let twins = CALLING_CODES
                .iter()
                .filter(|other| other.prefix == row.prefix && other.since == row.since)
                .count();
            assert_eq!(twins, 1, "{} twice from {:?}", row.prefix, row.since);
        }
    }

    #[test]
    fn north_america_mexico_and_brazil_by_their_calling_codes() {
        assert_eq!(market("15551234567", "2026-11-01"), "north_america");
        assert_eq!(market("14165550100", "2026-11-01"), "north_america");
        assert_eq!(market("18095550100", "2026-11-01"), "rest_of_latin_america");
        assert_eq!(market("12425550100", "2026-11-01"), "other");
        assert_eq!(market("5215512345678", "2026-11-01"), "mexico");
        assert_eq!(market("5511912345678", "2026-11-01"), "brazil");
        assert_eq!(market("447700900123", "2026-11-01"), "united_kingdom");
    }

    #[test]
    fn zimbabwe_is_other_until_2025_09_30_and_rest_of_africa_from_2025_10_01() {
        assert_eq!(market("263771234567", "2025-09-30"), "other");
        assert_eq!(market("263771234567", "2025-10-01"), "rest_of_africa");
    }

    #[test]
    fn nine_markets_leave_their_regions_on_2026_10_01() {
        assert_eq!(market("8801712345678", "2026-09-30"), "rest_of_asia_pacific");
        assert_eq!(market("8801712345678", "2026-10-01"), "bangladesh");
        assert_eq!(market("77012345678", "2026-09-30"), "russia");
        assert_eq!(market("77012345678", "2026-10-01"), "kazakhstan");
        assert_eq!(market("79161234567", "2026-10-01"), "russia");
        assert_eq!(market("380501234567", "2026-10-01"), "ukraine");
        assert_eq!(market("212612345678", "2026-09-30"), "rest_of_africa");
    }

    #[test]
    fn a_number_no_row_tells_is_other() {
        assert_eq!(market("8821234567", "2026-11-01"), "other");
        assert_eq!(market("", "2026-11-01"), "other");
        assert_eq!(market("5511912345678", "2024-10-31"), "other");
    }

    #[test]
    fn an_unknown_market_name_is_refused() {
        assert!(Market::parse("atlantis").is_err());
        assert_eq!(
            Market::parse("REST OF AFRICA").unwrap().as_str(),
            "rest_of_africa"
        );
    }
}
