//! What a group of an organization's messages is estimated to cost (docs/api.md §5.2, docs/operations.md
//! "Rates by market"): the organization's own card where it has a rate for the category (the operator's
//! price for that organization, taken as it is), otherwise Meta's market card in force on the day, for
//! the recipient's market, lowered by the month's volume tiers and raised by the operator's markup.

use super::markets::Market;
use super::rate_file::MarketTier;
use super::{Cost, Currency, MarketRateCard, PricingWord, RateCard, SERVICE, UTILITY};
use crate::error::InvalidValue;
use chrono::NaiveDate;

/// Hundredths of a percent in one percent.
const BASIS_POINTS_PER_PERCENT: u32 = 100;
/// Hundredths of a percent in the whole (100 %).
const BASIS_POINTS_WHOLE: u128 = 10_000;

/// The operator's markup on Meta's market rates, in hundredths of a percent: `12.5` % is 1250.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Markup {
    basis_points: u32,
}

impl Markup {
    /// The largest markup, in percent: ten times Meta's rate on top of it.
    pub const MAX_PERCENT: u32 = 1_000;

    /// Reads a percentage: `0` to `1000`, at most two decimals (`12.5`, `7.25`).
    ///
    /// # Errors
    /// [`InvalidValue`] for anything else.
    pub fn parse_percent(value: &str) -> Result<Self, InvalidValue> {
        let bad = || {
            InvalidValue::new(format!(
                "`{}` is not a markup (a percentage from 0 to {}, at most 2 decimals, e.g. 12.5)",
                value.chars().take(32).collect::<String>(),
                Self::MAX_PERCENT
            ))
        };
        let value = value.trim();
        let (whole, fraction) = value.split_once('.').unwrap_or((value, "0"));
        if whole.is_empty()
            || whole.len() > 4
            || fraction.is_empty()
            || fraction.len() > 2
            || !whole.bytes().all(|b| b.is_ascii_digit())
            || !fraction.bytes().all(|b| b.is_ascii_digit())
        {
            return Err(bad());
        }
        let whole: u32 = whole.parse().map_err(|_| bad())?;
        let fraction: u32 = format!("{fraction:0<2}").parse().map_err(|_| bad())?;
        let basis_points = whole * BASIS_POINTS_PER_PERCENT + fraction;
        if basis_points > Self::MAX_PERCENT * BASIS_POINTS_PER_PERCENT {
            return Err(bad());
        }
        Ok(Self { basis_points })
    }

    /// A markup of `basis_points` hundredths of a percent, as stored.
    ///
    /// # Errors
    /// [`InvalidValue`] above [`Markup::MAX_PERCENT`].
    pub fn from_basis_points(basis_points: u32) -> Result<Self, InvalidValue> {
        if basis_points > Self::MAX_PERCENT * BASIS_POINTS_PER_PERCENT {
            return Err(InvalidValue::new(format!(
                "a markup of {basis_points} hundredths of a percent is above {} %",
                Self::MAX_PERCENT
            )));
        }
        Ok(Self { basis_points })
    }

    pub fn basis_points(self) -> u32 {
        self.basis_points
    }

    /// The percentage as an exact decimal (`12.50`).
    pub fn percent(self) -> String {
        format!(
            "{}.{:02}",
            self.basis_points / BASIS_POINTS_PER_PERCENT,
            self.basis_points % BASIS_POINTS_PER_PERCENT
        )
    }

    /// `micros` raised by the markup, rounded half up to the micro-unit.
    pub fn apply(self, micros: u64) -> u64 {
        let raised = u128::from(micros) * (BASIS_POINTS_WHOLE + u128::from(self.basis_points));
        let rounded = (raised + BASIS_POINTS_WHOLE / 2) / BASIS_POINTS_WHOLE;
        u64::try_from(rounded).unwrap_or(u64::MAX)
    }
}

/// Everything that prices one organization's messages over a range of days.
#[derive(Debug, Clone)]
pub struct PriceList {
    own: RateCard,
    /// Oldest first.
    cards: Vec<MarketRateCard>,
    markup: Option<Markup>,
    currency: Option<Currency>,
}

impl PriceList {
    /// The organization's `own` card, the market `cards` in force over the range (any order), and its
    /// `markup`. The list's currency is the own card's when it has a rate, else the newest market card's:
    /// a rate in another currency is not used (Herald converts no currency).
    pub fn new(own: RateCard, mut cards: Vec<MarketRateCard>, markup: Option<Markup>) -> Self {
        cards.sort_by_key(|card| card.effective_from);
        let currency = own
            .rates
            .first()
            .map(|rate| rate.currency.clone())
            .or_else(|| cards.last().map(|card| card.currency.clone()));
        Self {
            own,
            cards,
            markup,
            currency,
        }
    }

    /// The currency every estimate of the list is in; `None` when there is no rate at all.
    pub fn currency(&self) -> Option<&Currency> {
        self.currency.as_ref()
    }

    /// The market card in force on `day`.
    fn card_on(&self, day: NaiveDate) -> Option<&MarketRateCard> {
        self.cards.iter().rev().find(|card| card.effective_from <= day)
    }

    /// What `count` messages of `category` to `market` on `day` cost, all billable or none. `first` is
    /// the place of the first of them among the month's billable messages of that market and category
    /// (1-based), which picks their volume tiers; a dry run, not knowing it, passes 1. `None` when no
    /// rate applies.
    pub fn price(
        &self,
        day: NaiveDate,
        market: Market,
        category: &PricingWord,
        billable: bool,
        first: u64,
        count: u64,
    ) -> Option<Cost> {
        let billed = if billable { count } else { 0 };
        if let Some(rate) = self.own.rates.iter().find(|r| &r.category == category) {
            return Some(Cost {
                micros: rate.micros.saturating_mul(billed),
                currency: rate.currency.clone(),
            });
        }
        if let Some(cost) = self.market_price(day, market, category, first, billed) {
            return Some(cost);
        }
        // The own card's utility rate prices service messages when nothing else does.
        self.own.estimate(category, billable, count)
    }

    /// The market card's price of `billed` messages, tiered and marked up; `None` without a rate in the
    /// list's currency.
    fn market_price(
        &self,
        day: NaiveDate,
        market: Market,
        category: &PricingWord,
        first: u64,
        billed: u64,
    ) -> Option<Cost> {
        let card = self.card_on(day)?;
        if Some(&card.currency) != self.currency.as_ref() {
            return None;
        }
        let find = |name: &str| {
            card.rates
                .iter()
                .find(|r| r.market == market && r.category.as_str() == name)
        };
        // Meta bills service messages at the market's utility rate (docs/cloud-api.md §6.1).
        let rate = find(category.as_str()).or_else(|| {
            if category.as_str() == SERVICE {
                find(UTILITY)
            } else {
                None
            }
        })?;
        let tiers: Vec<&MarketTier> = card
            .tiers
            .iter()
            .filter(|t| t.market == market && t.category == *category)
            .collect();
        let micros = tiered_micros(rate.micros, &tiers, first.max(1), billed);
        Some(Cost {
            micros: self.markup.map_or(micros, |markup| markup.apply(micros)),
            currency: card.currency.clone(),
        })
    }
}

/// The sum of the prices of the month's messages `first..first + count` (1-based places): each at the
/// rate of the last tier whose `from` is not after its place, or at `base` before the first tier.
/// `tiers` are in increasing `from` (the rate file keeps them so).
fn tiered_micros(base: u64, tiers: &[&MarketTier], first: u64, count: u64) -> u64 {
    if count == 0 {
        return 0;
    }
    let last = first.saturating_add(count - 1);
    let steps: Vec<(u64, u64)> = std::iter::once((1, base))
        .chain(tiers.iter().map(|tier| (tier.from, tier.micros)))
        .collect();
    let mut total: u64 = 0;
    for (index, &(from, micros)) in steps.iter().enumerate() {
        let until = steps
            .get(index + 1)
            .map_or(u64::MAX, |&(next, _)| next.saturating_sub(1));
        let low = from.max(first);
        let high = until.min(last);
        if low <= high {
            total = total.saturating_add(micros.saturating_mul(high - low + 1));
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pricing::Rate;
    use crate::pricing::rate_file::MarketRate;

    fn word(text: &str) -> PricingWord {
        PricingWord::parse(text).unwrap()
    }

    fn day(text: &str) -> NaiveDate {
        NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
    }

    fn market(slug: &str) -> Market {
        Market::parse(slug).unwrap()
    }

    fn card(effective: &str, currency: &str, rates: &[(&str, &str, u64)]) -> MarketRateCard {
        MarketRateCard {
            effective_from: day(effective),
            currency: Currency::parse(currency).unwrap(),
            rates: rates
                .iter()
                .map(|&(m, c, micros)| MarketRate {
                    market: market(m),
                    category: word(c),
                    micros,
                })
                .collect(),
            tiers: Vec::new(),
        }
    }

    fn own(rates: &[(&str, u64)]) -> RateCard {
        RateCard {
            rates: rates
                .iter()
                .map(|&(c, micros)| Rate {
                    category: word(c),
                    micros,
                    currency: Currency::parse("USD").unwrap(),
                })
                .collect(),
        }
    }

    fn micros(list: &PriceList, on: &str, m: &str, category: &str, first: u64, count: u64) -> Option<u64> {
        list.price(day(on), market(m), &word(category), true, first, count)
            .map(|cost| cost.micros)
    }

    #[test]
    fn markups_read_percentages_of_at_most_two_decimals_up_to_1000() {
        assert_eq!(Markup::parse_percent("12.5").unwrap().basis_points(), 1_250);
        assert_eq!(Markup::parse_percent("0").unwrap().basis_points(), 0);
        assert_eq!(Markup::parse_percent("1000").unwrap().basis_points(), 100_000);
        assert_eq!(Markup::parse_percent("7.25").unwrap().percent(), "7.25");
        for bad in [
            "", "-1", "1000.01", "1001", "12.345", "1e2", ".5", "5.", "abc", "10000",
        ] {
            assert!(Markup::parse_percent(bad).is_err(), "{bad}");
        }
        assert!(Markup::from_basis_points(100_001).is_err());
        let ten = Markup::parse_percent("10").unwrap();
        assert_eq!(ten.apply(6_800), 7_480);
        assert_eq!(
            Markup::parse_percent("0.01").unwrap().apply(49),
            49,
            "rounded half up"
        );
        assert_eq!(Markup::parse_percent("0.01").unwrap().apply(50), 50);
        assert_eq!(Markup::parse_percent("0.01").unwrap().apply(5_000), 5_001);
        assert_eq!(Markup::parse_percent("1000").unwrap().apply(u64::MAX), u64::MAX);
    }

    #[test]
    fn each_market_at_the_card_in_force_that_day() {
        let list = PriceList::new(
            RateCard::default(),
            vec![
                card(
                    "2026-10-01",
                    "USD",
                    &[("brazil", "utility", 6_800), ("india", "utility", 1_400)],
                ),
                card("2026-07-01", "USD", &[("brazil", "utility", 8_000)]),
            ],
            None,
        );
        assert_eq!(
            micros(&list, "2026-09-30", "brazil", "utility", 1, 2),
            Some(16_000)
        );
        assert_eq!(
            micros(&list, "2026-10-01", "brazil", "utility", 1, 2),
            Some(13_600)
        );
        assert_eq!(micros(&list, "2026-10-01", "india", "utility", 1, 1), Some(1_400));
        assert_eq!(micros(&list, "2026-09-30", "india", "utility", 1, 1), None);
        assert_eq!(micros(&list, "2026-06-30", "brazil", "utility", 1, 1), None);
        // Service at the market's utility rate; nothing billable costs nothing.
        assert_eq!(
            micros(&list, "2026-10-01", "brazil", "service", 1, 1),
            Some(6_800)
        );
        let free = list.price(day("2026-10-01"), market("brazil"), &word("utility"), false, 1, 5);
        assert_eq!(free.unwrap().micros, 0);
    }

    #[test]
    fn the_own_card_wins_where_it_has_the_category_and_takes_no_markup() {
        let list = PriceList::new(
            own(&[("marketing", 50_000)]),
            vec![card(
                "2026-10-01",
                "USD",
                &[("brazil", "marketing", 62_500), ("brazil", "utility", 6_800)],
            )],
            Some(Markup::parse_percent("10").unwrap()),
        );
        assert_eq!(
            micros(&list, "2026-10-01", "brazil", "marketing", 1, 2),
            Some(100_000)
        );
        assert_eq!(
            micros(&list, "2026-10-01", "brazil", "utility", 1, 1),
            Some(7_480)
        );
    }

    #[test]
    fn a_market_card_in_another_currency_than_the_own_card_is_not_used() {
        let list = PriceList::new(
            own(&[("marketing", 50_000)]),
            vec![card("2026-10-01", "EUR", &[("brazil", "utility", 6_800)])],
            None,
        );
        assert_eq!(list.currency().unwrap().as_str(), "USD");
        assert_eq!(micros(&list, "2026-10-01", "brazil", "utility", 1, 1), None);
    }

    fn tier(m: &str, category: &str, from: u64, micros: u64) -> MarketTier {
        MarketTier {
            market: market(m),
            category: word(category),
            from,
            micros,
        }
    }

    #[test]
    fn the_nth_billable_message_of_a_month_is_priced_at_its_tier() {
        let mut tiered = card("2026-10-01", "USD", &[("india", "utility", 1_400)]);
        tiered.tiers = vec![
            tier("india", "utility", 11, 1_000),
            tier("india", "utility", 21, 500),
        ];
        let list = PriceList::new(RateCard::default(), vec![tiered], None);
        // Messages 1..=10 at the list rate.
        assert_eq!(
            micros(&list, "2026-10-02", "india", "utility", 1, 10),
            Some(14_000)
        );
        // Messages 9..=12: two at the list rate, two at the first tier.
        assert_eq!(micros(&list, "2026-10-02", "india", "utility", 9, 4), Some(4_800));
        // Messages 19..=23 span the first and second tiers.
        assert_eq!(
            micros(&list, "2026-10-02", "india", "utility", 19, 5),
            Some(2 * 1_000 + 3 * 500)
        );
        assert_eq!(
            micros(&list, "2026-10-02", "india", "utility", 1_000_000, 1),
            Some(500)
        );
        let marked = PriceList::new(
            RateCard::default(),
            list.cards.clone(),
            Some(Markup::parse_percent("100").unwrap()),
        );
        assert_eq!(
            micros(&marked, "2026-10-02", "india", "utility", 9, 4),
            Some(9_600)
        );
    }
}
