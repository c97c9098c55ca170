//! What a message costs: the network's `pricing` object as status reports carry it, and which report's
//! object a message keeps (docs/api.md §5, docs/cloud-api.md §4.4).
//!
//! The network's words are kept as it sends them (lowercased): Meta adds categories and types over time
//! (`marketing_lite`, `group_*`, …), and a value Herald does not know is still worth showing and summing.

use crate::error::InvalidValue;
use crate::message::MessageContent;
use crate::time::Timestamp;

pub mod markets;
pub mod rate_file;
pub mod rules;

/// The longest value Herald keeps of one pricing field; the network's are short words.
const MAX_WORD: usize = 64;

/// One word of the pricing object (`PMP`, `utility`, `regular`, …): lowercase ASCII letters, digits and `_`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PricingWord(String);

impl PricingWord {
    /// Lowercases `value`; refuses an empty one, an overlong one, or one with other characters.
    ///
    /// # Errors
    /// [`InvalidValue`] naming what is wrong.
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        let word = value.trim().to_ascii_lowercase();
        if word.is_empty() || word.len() > MAX_WORD {
            return Err(InvalidValue::new(format!(
                "a pricing value has 1 to {MAX_WORD} characters"
            )));
        }
        if !word
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        {
            return Err(InvalidValue::new(format!(
                "`{word}` is not a pricing value (letters, digits and `_`)"
            )));
        }
        Ok(Self(word))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for PricingWord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(&self.0)
    }
}

/// The network's `pricing` object of one status report. Every field is optional: older reports lack
/// `type`, and `billable` is deprecated by Meta (kept while it is sent).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Pricing {
    /// `pricing_model`: `pmp` (per message) or `cbp` (conversation based).
    pub model: Option<PricingWord>,
    /// `category`: `marketing`, `utility`, `authentication`, `service`, …
    pub category: Option<PricingWord>,
    /// `type`: `regular`, `free_customer_service`, `free_entry_point`.
    pub kind: Option<PricingWord>,
    pub billable: Option<bool>,
}

impl Pricing {
    /// Whether the object says anything at all.
    pub fn is_empty(&self) -> bool {
        self.model.is_none() && self.category.is_none() && self.kind.is_none() && self.billable.is_none()
    }
}

/// Which pricing a message keeps after a report carrying `reported`: the report of the furthest status
/// wins (`advances`: the report moved the status on), since the network's later report is its final word
/// (a message's `delivered` report can say a `sent` one's conversation was a free entry point). A report
/// that only gets recorded (late, or a duplicate) fills the pricing only when none is known yet, so the
/// order reports arrive in cannot undo a later report's word. `None`: the stored pricing stays.
pub fn kept(current: Option<&Pricing>, reported: Option<&Pricing>, advances: bool) -> Option<Pricing> {
    let reported = reported.filter(|p| !p.is_empty())?;
    match current {
        Some(current) if current == reported => None,
        Some(_) if !advances => None,
        _ => Some(reported.clone()),
    }
}

/// What Herald knows of a send when it judges its pricing: when it goes, and the windows open with the
/// recipient at that moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SendMoment {
    pub at: Timestamp,
    /// The 24-hour customer service window is open.
    pub service_window_open: bool,
    /// A 72-hour free entry-point window (click-to-WhatsApp ad, Page call-to-action) is open.
    pub entry_point_open: bool,
}

/// The category and billing a send is expected to fall in before the network says, by the rules in force
/// when it goes ([`rules::BillingRules`]): a template is billed in its template's category, anything else
/// is a `service` message. Meta has the last word; this is what a dry run and an estimate go by.
///
/// Authentication templates are expected as `authentication`: Meta bills `authentication_international`
/// only to businesses it found eligible and based outside the recipient's country, which Herald cannot
/// know before the report says so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpectedPricing {
    pub category: PricingWord,
    pub billable: bool,
}

impl ExpectedPricing {
    /// The pricing of a send of `content` (`template_category`: the template's, when Herald knows the
    /// template). `None` when the category is unknown, or the moment is older than every rule Herald knows.
    pub fn for_content(
        content: &MessageContent,
        template_category: Option<&str>,
        moment: &SendMoment,
    ) -> Option<Self> {
        let category = match content {
            MessageContent::Template { .. } => PricingWord::parse(template_category?).ok()?,
            _ => PricingWord(SERVICE.to_owned()),
        };
        Self::for_category(category, moment)
    }

    /// The pricing of a message of `category` sent at `moment`: free inside an open entry-point window;
    /// a service message or a utility template inside an open service window as the rules say; billed
    /// otherwise. `None` before the rules Herald knows.
    pub fn for_category(category: PricingWord, moment: &SendMoment) -> Option<Self> {
        let rules = rules::BillingRules::in_force_at(moment.at)?;
        let billable = if moment.entry_point_open {
            false
        } else {
            match category.as_str() {
                SERVICE => rules.service_charged,
                UTILITY if moment.service_window_open => rules.utility_in_window_charged,
                _ => true,
            }
        };
        Some(Self { category, billable })
    }
}

/// The category of a non-template message.
const SERVICE: &str = "service";
const UTILITY: &str = "utility";

/// An ISO 4217 currency code: three uppercase ASCII letters (`EUR`, `USD`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Currency(String);

impl Currency {
    /// Uppercases `value`; refuses anything but three ASCII letters.
    ///
    /// # Errors
    /// [`InvalidValue`] naming what is wrong.
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        let code = value.trim().to_ascii_uppercase();
        if code.len() == 3 && code.bytes().all(|b| b.is_ascii_uppercase()) {
            Ok(Self(code))
        } else {
            Err(InvalidValue::new(format!(
                "`{value}` is not a currency code (three letters, ISO 4217)"
            )))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Millionths of a currency's unit per unit: amounts are kept as whole micro-units, so sums are exact.
pub const MICROS_PER_UNIT: u64 = 1_000_000;

/// The most one rate may be (one million units per message): far above any real price, it keeps every
/// sum of a bounded usage range inside `u64`.
pub const MAX_RATE_MICROS: u64 = 1_000_000 * MICROS_PER_UNIT;

/// An amount of money, in micro-units of its currency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cost {
    pub micros: u64,
    pub currency: Currency,
}

impl Cost {
    /// The amount as an exact decimal string: at least two decimals, more only when they are not zero
    /// (`0.0147`, `1.00`, `12.50`).
    pub fn amount(&self) -> String {
        let units = self.micros / MICROS_PER_UNIT;
        let fraction = format!("{:06}", self.micros % MICROS_PER_UNIT);
        let trimmed = fraction.trim_end_matches('0');
        let decimals = if trimmed.len() < 2 {
            fraction.get(..2).unwrap_or("00")
        } else {
            trimmed
        };
        format!("{units}.{decimals}")
    }

    /// Reads a decimal amount (`0.0147`, `3`, up to six decimals) into micro-units.
    ///
    /// # Errors
    /// [`InvalidValue`] for anything else, a negative amount, or one above [`MAX_RATE_MICROS`].
    pub fn parse_amount(value: &str) -> Result<u64, InvalidValue> {
        let bad = || {
            InvalidValue::new(format!(
                "`{value}` is not an amount (a decimal number of at most 6 decimals, e.g. 0.0147)"
            ))
        };
        let value = value.trim();
        let (units, fraction) = value.split_once('.').unwrap_or((value, "0"));
        if units.is_empty()
            || fraction.is_empty()
            || fraction.len() > 6
            || !units.bytes().all(|b| b.is_ascii_digit())
            || !fraction.bytes().all(|b| b.is_ascii_digit())
            || units.len() > 7
        {
            return Err(bad());
        }
        let units: u64 = units.parse().map_err(|_| bad())?;
        let fraction: u64 = format!("{fraction:0<6}").parse().map_err(|_| bad())?;
        let micros = units * MICROS_PER_UNIT + fraction;
        if micros > MAX_RATE_MICROS {
            return Err(InvalidValue::new(format!(
                "`{value}` is above the largest rate ({})",
                MAX_RATE_MICROS / MICROS_PER_UNIT
            )));
        }
        Ok(micros)
    }
}

/// The price an operator set for one billable message of a category.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rate {
    pub category: PricingWord,
    pub micros: u64,
    pub currency: Currency,
}

/// An organization's rates, by category: one currency for all of them (the use case that sets them keeps
/// it so), so every estimate and sum of one organization is in one currency.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RateCard {
    pub rates: Vec<Rate>,
}

impl RateCard {
    /// The rate of `category`. A card without a `service` rate prices service messages at its `utility`
    /// rate: Meta bills service messages (charged since 2026-10-01) at the market's utility rate
    /// (docs/cloud-api.md §6.1), so an operator who copied Meta's card needs no second line for them.
    fn rate(&self, category: &PricingWord) -> Option<&Rate> {
        let find = |name: &str| self.rates.iter().find(|r| r.category.as_str() == name);
        find(category.as_str()).or_else(|| {
            if category.as_str() == SERVICE {
                find(UTILITY)
            } else {
                None
            }
        })
    }

    /// What `count` messages of `category` cost: `None` when no rate applies; zero when the network (or
    /// the expectation) says they are not billable.
    pub fn estimate(&self, category: &PricingWord, billable: bool, count: u64) -> Option<Cost> {
        let rate = self.rate(category)?;
        let micros = if billable {
            rate.micros.saturating_mul(count)
        } else {
            0
        };
        Some(Cost {
            micros,
            currency: rate.currency.clone(),
        })
    }

    /// A message's estimated cost from its network pricing: `billable` is the network's word, and a
    /// `free_*` type counts as not billable when `billable` is missing.
    pub fn estimate_pricing(&self, pricing: &Pricing) -> Option<Cost> {
        let category = pricing.category.as_ref()?;
        self.estimate(category, billable(pricing), 1)
    }
}

/// Meta's rates of every market from the day a card takes effect until the next card's day, in one
/// currency (a card is imported whole: `herald admin rate import`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarketRateCard {
    pub effective_from: chrono::NaiveDate,
    pub currency: Currency,
    pub rates: Vec<rate_file::MarketRate>,
}

impl MarketRateCard {
    /// The card's rates of `market`, as an organization's card reads them.
    pub fn of_market(&self, market: markets::Market) -> RateCard {
        RateCard {
            rates: self
                .rates
                .iter()
                .filter(|r| r.market == market)
                .map(|r| Rate {
                    category: r.category.clone(),
                    micros: r.micros,
                    currency: self.currency.clone(),
                })
                .collect(),
        }
    }
}

/// Whether the network's pricing bills the message: its `billable`, else its `type` (`free_*` is not
/// billed), else yes.
pub fn billable(pricing: &Pricing) -> bool {
    pricing.billable.unwrap_or_else(|| {
        !pricing
            .kind
            .as_ref()
            .is_some_and(|kind| kind.as_str().starts_with("free_"))
    })
}

/// One group of an organization's messages for usage: those created on `day` (UTC) whose network pricing
/// said `category` (`None`: not priced yet) and `billable`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageCount {
    pub day: chrono::NaiveDate,
    pub category: Option<PricingWord>,
    pub billable: bool,
    pub messages: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_read_and_print_exactly() {
        assert_eq!(Cost::parse_amount("0.0147").unwrap(), 14_700);
        assert_eq!(Cost::parse_amount("3").unwrap(), 3_000_000);
        assert_eq!(Cost::parse_amount("1.5").unwrap(), 1_500_000);
        for bad in [
            "",
            "-1",
            "0.1234567",
            "1e3",
            "abc",
            ".5",
            "1.",
            "10000000",
            "1000001",
        ] {
            assert!(Cost::parse_amount(bad).is_err(), "{bad}");
        }
        let eur = Currency::parse("eur").unwrap();
        let cost = |micros| Cost {
            micros,
            currency: eur.clone(),
        };
        assert_eq!(cost(14_700).amount(), "0.0147");
        assert_eq!(cost(1_000_000).amount(), "1.00");
        assert_eq!(cost(12_500_000).amount(), "12.50");
        assert_eq!(cost(0).amount(), "0.00");
        assert_eq!(cost(1).amount(), "0.000001");
    }

    fn moment(day: &str, service_window_open: bool, entry_point_open: bool) -> SendMoment {
        let at = chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d")
            .unwrap()
            .and_hms_opt(12, 0, 0)
            .unwrap()
            .and_utc();
        SendMoment {
            at,
            service_window_open,
            entry_point_open,
        }
    }

    fn text() -> MessageContent {
        MessageContent::Text {
            body: crate::values::MessageText::parse("hello").unwrap(),
            preview_url: false,
        }
    }

    fn template() -> MessageContent {
        MessageContent::Template {
            template: crate::template::TemplateRef {
                name: crate::template::TemplateName::parse("order_update").unwrap(),
                language: crate::template::LanguageCode::parse("en").unwrap(),
            },
            variables: crate::template::TemplateVariables::default(),
        }
    }

    /// Whether a send is billed, by (category or `None` for a free-form message, day, service window open).
    fn billed(category: Option<&str>, day: &str, in_window: bool) -> bool {
        let content = if category.is_some() { template() } else { text() };
        ExpectedPricing::for_content(&content, category, &moment(day, in_window, false))
            .unwrap()
            .billable
    }

    #[test]
    fn a_service_reply_is_free_until_2026_09_30_and_billed_from_2026_10_01() {
        let expected = ExpectedPricing::for_content(&text(), None, &moment("2026-10-01", true, false));
        assert_eq!(expected.unwrap().category.as_str(), "service");
        assert!(!billed(None, "2025-06-30", true));
        assert!(!billed(None, "2025-07-01", true));
        assert!(!billed(None, "2026-09-30", true));
        assert!(billed(None, "2026-10-01", true));
    }

    #[test]
    fn a_utility_template_in_the_window_is_billed_until_2025_06_30_free_until_2026_09_30_then_billed() {
        assert!(billed(Some("utility"), "2025-06-30", true));
        assert!(!billed(Some("utility"), "2025-07-01", true));
        assert!(!billed(Some("utility"), "2026-09-30", true));
        assert!(billed(Some("utility"), "2026-10-01", true));
        for day in ["2025-06-30", "2025-07-01", "2026-09-30", "2026-10-01"] {
            assert!(billed(Some("utility"), day, false), "outside the window {day}");
            assert!(billed(Some("marketing"), day, true), "marketing {day}");
            assert!(billed(Some("authentication"), day, true), "authentication {day}");
        }
    }

    #[test]
    fn an_open_entry_point_window_keeps_every_message_free_in_every_period() {
        for day in ["2025-06-30", "2025-07-01", "2026-09-30", "2026-10-01"] {
            for content in [text(), template()] {
                let expected =
                    ExpectedPricing::for_content(&content, Some("marketing"), &moment(day, true, true));
                assert!(!expected.unwrap().billable, "{day}");
            }
        }
    }

    #[test]
    fn no_expectation_before_the_known_rules_or_without_a_template_category() {
        assert_eq!(
            ExpectedPricing::for_content(&text(), None, &moment("2024-10-31", true, false)),
            None
        );
        assert_eq!(
            ExpectedPricing::for_content(&template(), None, &moment("2026-10-01", false, false)),
            None
        );
    }

    #[test]
    fn a_card_without_a_service_rate_prices_service_at_its_utility_rate() {
        let rate = |category: &str, micros| Rate {
            category: PricingWord::parse(category).unwrap(),
            micros,
            currency: Currency::parse("EUR").unwrap(),
        };
        let service = PricingWord::parse("service").unwrap();
        let utility_only = RateCard {
            rates: vec![rate("utility", 8_000)],
        };
        assert_eq!(utility_only.estimate(&service, true, 2).unwrap().micros, 16_000);
        let both = RateCard {
            rates: vec![rate("utility", 8_000), rate("service", 5_000)],
        };
        assert_eq!(both.estimate(&service, true, 2).unwrap().micros, 10_000);
        assert_eq!(
            utility_only.estimate(&PricingWord::parse("marketing").unwrap(), true, 1),
            None
        );
    }

    #[test]
    fn the_card_prices_billable_messages_of_its_categories() {
        let card = RateCard {
            rates: vec![Rate {
                category: PricingWord::parse("marketing").unwrap(),
                micros: 50_000,
                currency: Currency::parse("EUR").unwrap(),
            }],
        };
        let marketing = PricingWord::parse("marketing").unwrap();
        assert_eq!(card.estimate(&marketing, true, 3).unwrap().amount(), "0.15");
        assert_eq!(card.estimate(&marketing, false, 3).unwrap().amount(), "0.00");
        assert_eq!(
            card.estimate(&PricingWord::parse("utility").unwrap(), true, 1),
            None
        );
        let free = Pricing {
            category: Some(marketing),
            kind: Some(PricingWord::parse("free_entry_point").unwrap()),
            ..Pricing::default()
        };
        assert_eq!(card.estimate_pricing(&free).unwrap().micros, 0);
    }

    fn pricing(category: &str, kind: &str) -> Pricing {
        Pricing {
            model: Some(PricingWord::parse("PMP").unwrap()),
            category: Some(PricingWord::parse(category).unwrap()),
            kind: Some(PricingWord::parse(kind).unwrap()),
            billable: Some(true),
        }
    }

    #[test]
    fn words_are_lowercased_and_checked() {
        assert_eq!(PricingWord::parse("PMP").unwrap().as_str(), "pmp");
        assert_eq!(
            PricingWord::parse("authentication_international")
                .unwrap()
                .as_str(),
            "authentication_international"
        );
        assert!(PricingWord::parse("").is_err());
        assert!(PricingWord::parse("a b").is_err());
        assert!(PricingWord::parse(&"a".repeat(65)).is_err());
    }

    #[test]
    fn the_first_report_sets_the_pricing() {
        let p = pricing("utility", "regular");
        assert_eq!(kept(None, Some(&p), true), Some(p.clone()));
        assert_eq!(kept(None, Some(&p), false), Some(p));
    }

    #[test]
    fn an_advancing_report_replaces_it_a_recorded_one_does_not() {
        let sent = pricing("marketing", "regular");
        let delivered = pricing("marketing", "free_entry_point");
        assert_eq!(kept(Some(&sent), Some(&delivered), true), Some(delivered.clone()));
        assert_eq!(kept(Some(&delivered), Some(&sent), false), None);
    }

    #[test]
    fn the_same_or_no_pricing_changes_nothing() {
        let p = pricing("utility", "regular");
        assert_eq!(kept(Some(&p), Some(&p), true), None);
        assert_eq!(kept(Some(&p), None, true), None);
        assert_eq!(kept(None, Some(&Pricing::default()), true), None);
    }
}
