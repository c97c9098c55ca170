//! Usage (`GET /api/v1/usage`, docs/api.md §5.2): an organization's messages counted by day, category and
//! market, each group priced by the organization's [`PriceList`].

use super::queries::QueryError;
use crate::ids::OrganizationId;
use crate::ports::{Clock, PricingStore};
use crate::pricing::estimate::PriceList;
use crate::pricing::markets::Market;
use crate::pricing::{Cost, PricingWord, UsageCount};
use crate::time::Timestamp;
use crate::{FieldError, ValidationErrors};
use chrono::{Datelike, Days, NaiveDate};
use std::sync::Arc;

/// One category's messages in a usage report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CategoryUsage {
    /// `None`: messages the network has not priced yet.
    pub category: Option<PricingWord>,
    pub messages: u64,
    /// Of them, those the network bills.
    pub billable: u64,
    /// The sum of the estimates of its messages that have a rate; `None` when none has.
    pub estimated_cost: Option<Cost>,
}

/// One market's messages in a usage report (the recipient's market on the day each was created).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarketUsage {
    pub market: Market,
    pub messages: u64,
    pub billable: u64,
    /// The sum of the estimates of its messages that have a rate; `None` when none has.
    pub estimated_cost: Option<Cost>,
}

/// One day of a usage report (UTC), with the categories and markets of that day's messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DayUsage {
    pub day: NaiveDate,
    pub messages: u64,
    /// The sum of the categories' estimates; `None` when none of them has a rate.
    pub estimated_cost: Option<Cost>,
    pub categories: Vec<CategoryUsage>,
    pub markets: Vec<MarketUsage>,
}

/// The answer of `GET /api/v1/usage`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageReport {
    pub from: NaiveDate,
    /// Inclusive.
    pub until: NaiveDate,
    /// The days with messages, oldest first.
    pub days: Vec<DayUsage>,
    /// The whole range, by category.
    pub totals: Vec<CategoryUsage>,
    /// The whole range, by market.
    pub markets: Vec<MarketUsage>,
    pub messages: u64,
    pub estimated_cost: Option<Cost>,
}

/// Sums an organization's messages and their estimated cost by day and category.
pub struct Usage {
    pricing: Arc<dyn PricingStore>,
    clock: Arc<dyn Clock>,
}

impl Usage {
    /// The longest range one request may ask for, in days, `from` and `until` included.
    pub const MAX_DAYS: i64 = 92;
    /// The range when the request names none: the last 30 days, today included.
    pub const DEFAULT_DAYS: i64 = 30;

    pub fn new(pricing: Arc<dyn PricingStore>, clock: Arc<dyn Clock>) -> Self {
        Self { pricing, clock }
    }

    /// The first day a usage range may name: no message of Herald's is older.
    pub const FIRST_DAY: (i32, u32, u32) = (2000, 1, 1);
    /// The last day a usage range may name: four-digit years, which every store and client reads alike.
    pub const LAST_DAY: (i32, u32, u32) = (9999, 12, 31);

    /// The report for the UTC days `from..=until`: `until` defaults to today, `from` to 29 days before
    /// `until` (not before [`Usage::FIRST_DAY`]).
    ///
    /// # Errors
    /// [`QueryError::Invalid`] naming `from` or `until` when a day is outside [`Usage::FIRST_DAY`] to
    /// [`Usage::LAST_DAY`], `from` is after `until`, or the range is longer than [`Usage::MAX_DAYS`]; a
    /// store failure.
    pub async fn execute(
        &self,
        organization: &OrganizationId,
        from: Option<NaiveDate>,
        until: Option<NaiveDate>,
    ) -> Result<UsageReport, QueryError> {
        let (from, until) = self.range(from, until).map_err(QueryError::Invalid)?;
        // The end is the next midnight, but never past the last day's last microsecond: a five-digit
        // year is not written as times are everywhere else (SQLite compares them as text). Checked
        // arithmetic, so that no date a client sends can panic.
        let last = bounds().1;
        let last_moment = last
            .and_hms_micro_opt(23, 59, 59, 999_999)
            .map_or_else(|| day_start(last), |moment| moment.and_utc());
        let end = until
            .checked_add_days(Days::new(1))
            .map(day_start)
            .map_or(last_moment, |end| end.min(last_moment));
        // Counted from the first of `from`'s month: a volume tier depends on the month's earlier messages.
        let month_start = from.with_day(1).unwrap_or(from);
        let counts = self
            .pricing
            .usage_counts(organization, day_start(month_start), end)
            .await?;
        let cards = self.pricing.market_cards_between(month_start, until).await?;
        let own = self.pricing.rate_card(organization).await?;
        let markup = self.pricing.markup(organization).await?;
        Ok(report(from, until, &counts, &PriceList::new(own, cards, markup)))
    }

    /// The days of the request, defaulted and checked ([`usage_days`] with today's date).
    fn range(
        &self,
        from: Option<NaiveDate>,
        until: Option<NaiveDate>,
    ) -> Result<(NaiveDate, NaiveDate), ValidationErrors> {
        usage_days(from, until, self.clock.now().date_naive())
    }
}

/// The days `from..=until` of a usage request on `today`, defaulted (`until` today, `from` 29 days before
/// `until`, not before [`Usage::FIRST_DAY`]) and checked: each given day within [`Usage::FIRST_DAY`] to
/// [`Usage::LAST_DAY`], `from` not after `until`, at most [`Usage::MAX_DAYS`]. Never panics, whatever the
/// days (the cargo-fuzz target `usage_range` holds it to that).
///
/// # Errors
/// Naming `from` or `until`.
pub fn usage_days(
    from: Option<NaiveDate>,
    until: Option<NaiveDate>,
    today: NaiveDate,
) -> Result<(NaiveDate, NaiveDate), ValidationErrors> {
    let (first, last) = bounds();
    let mut errors = ValidationErrors::new();
    for (name, day) in [("from", from), ("until", until)] {
        if day.is_some_and(|day| day < first || day > last) {
            errors.push(FieldError::new(name, out_of_range()));
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let until = until.unwrap_or_else(|| today.clamp(first, last));
    let from = from.unwrap_or_else(|| {
        until
            .checked_sub_days(Days::new(Usage::DEFAULT_DAYS.unsigned_abs() - 1))
            .unwrap_or(first)
            .max(first)
    });
    if from > until {
        return Err(ValidationErrors::single(
            "from",
            format!("{from} is after until ({until})"),
        ));
    }
    if (until - from).num_days() + 1 > Usage::MAX_DAYS {
        return Err(ValidationErrors::single(
            "until",
            format!("a usage range is at most {} days", Usage::MAX_DAYS),
        ));
    }
    Ok((from, until))
}

/// [`Usage::FIRST_DAY`] and [`Usage::LAST_DAY`] as dates.
pub(super) fn bounds() -> (NaiveDate, NaiveDate) {
    let day = |(y, m, d): (i32, u32, u32)| NaiveDate::from_ymd_opt(y, m, d).unwrap_or_default();
    (day(Usage::FIRST_DAY), day(Usage::LAST_DAY))
}

fn out_of_range() -> String {
    let (first, last) = bounds();
    format!("must be a day from {first} to {last}")
}

fn day_start(day: NaiveDate) -> Timestamp {
    day.and_time(chrono::NaiveTime::MIN).and_utc()
}

/// Folds counts into the report, each group priced by `prices`. Counts of days before `from` (the rest
/// of its month) only place the range's messages in their month's volume tiers.
fn report(from: NaiveDate, until: NaiveDate, counts: &[UsageCount], prices: &PriceList) -> UsageReport {
    let mut ordered: Vec<&UsageCount> = counts.iter().collect();
    ordered.sort_by(|a, b| {
        (a.day, &a.category, a.market, a.billable).cmp(&(b.day, &b.category, b.market, b.billable))
    });
    let mut month_volume = MonthVolume::default();
    let mut days: Vec<DayUsage> = Vec::new();
    let mut totals: Vec<CategoryUsage> = Vec::new();
    let mut markets: Vec<MarketUsage> = Vec::new();
    for count in ordered {
        let first = month_volume.place(count);
        let cost = count.category.as_ref().and_then(|category| {
            prices.price(
                count.day,
                count.market,
                category,
                count.billable,
                first,
                count.messages,
            )
        });
        if count.day < from {
            continue;
        }
        if days.last().is_none_or(|d| d.day != count.day) {
            days.push(DayUsage {
                day: count.day,
                messages: 0,
                estimated_cost: None,
                categories: Vec::new(),
                markets: Vec::new(),
            });
        }
        if let Some(day) = days.last_mut() {
            add_category(&mut day.categories, count, cost.as_ref());
            add_market(&mut day.markets, count, cost.as_ref());
        }
        add_category(&mut totals, count, cost.as_ref());
        add_market(&mut markets, count, cost.as_ref());
    }
    for day in &mut days {
        day.messages = day.categories.iter().map(|c| c.messages).sum();
        day.estimated_cost = sum(day.categories.iter().map(|c| c.estimated_cost.as_ref()));
        day.markets.sort_by_key(|m| m.market);
    }
    markets.sort_by_key(|m| m.market);
    UsageReport {
        from,
        until,
        messages: totals.iter().map(|c| c.messages).sum(),
        estimated_cost: sum(totals.iter().map(|c| c.estimated_cost.as_ref())),
        days,
        totals,
        markets,
    }
}

/// The billable messages counted so far in each month, market and category, to place the next ones in
/// their volume tiers.
#[derive(Default)]
struct MonthVolume {
    counted: Vec<MonthCount>,
}

/// One month's, market's and category's billable messages counted so far.
struct MonthCount {
    month: (i32, u32),
    market: Market,
    category: Option<PricingWord>,
    billable: u64,
}

impl MonthVolume {
    /// The 1-based place in its month of the first message of `count`, and counts its billable ones.
    fn place(&mut self, count: &UsageCount) -> u64 {
        let month = (count.day.year(), count.day.month());
        let index = match self
            .counted
            .iter()
            .position(|c| c.month == month && c.market == count.market && c.category == count.category)
        {
            Some(index) => index,
            None => {
                self.counted.push(MonthCount {
                    month,
                    market: count.market,
                    category: count.category.clone(),
                    billable: 0,
                });
                self.counted.len() - 1
            }
        };
        let Some(entry) = self.counted.get_mut(index) else {
            return 1;
        };
        let first = entry.billable.saturating_add(1);
        if count.billable {
            entry.billable = entry.billable.saturating_add(count.messages);
        }
        first
    }
}

fn add_category(categories: &mut Vec<CategoryUsage>, count: &UsageCount, cost: Option<&Cost>) {
    let index = match categories.iter().position(|c| c.category == count.category) {
        Some(index) => index,
        None => {
            categories.push(CategoryUsage {
                category: count.category.clone(),
                messages: 0,
                billable: 0,
                estimated_cost: None,
            });
            categories.len() - 1
        }
    };
    if let Some(usage) = categories.get_mut(index) {
        usage.messages += count.messages;
        if count.billable {
            usage.billable += count.messages;
        }
        usage.estimated_cost = sum([usage.estimated_cost.as_ref(), cost]);
    }
}

fn add_market(markets: &mut Vec<MarketUsage>, count: &UsageCount, cost: Option<&Cost>) {
    let index = match markets.iter().position(|m| m.market == count.market) {
        Some(index) => index,
        None => {
            markets.push(MarketUsage {
                market: count.market,
                messages: 0,
                billable: 0,
                estimated_cost: None,
            });
            markets.len() - 1
        }
    };
    if let Some(usage) = markets.get_mut(index) {
        usage.messages += count.messages;
        if count.billable {
            usage.billable += count.messages;
        }
        usage.estimated_cost = sum([usage.estimated_cost.as_ref(), cost]);
    }
}

/// The sum of the estimates that exist (one price list, one currency); `None` when there is none.
pub(super) fn sum<'a>(costs: impl IntoIterator<Item = Option<&'a Cost>>) -> Option<Cost> {
    costs.into_iter().flatten().cloned().reduce(|total, cost| Cost {
        micros: total.micros.saturating_add(cost.micros),
        currency: total.currency,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pricing::estimate::Markup;
    use crate::pricing::{Currency, MarketRateCard, Rate, RateCard};

    fn day(d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, d).unwrap()
    }

    fn count(d: u32, category: Option<&str>, billable: bool, messages: u64) -> UsageCount {
        market_count(d, "other", category, billable, messages)
    }

    fn market_count(
        d: u32,
        market: &str,
        category: Option<&str>,
        billable: bool,
        messages: u64,
    ) -> UsageCount {
        UsageCount {
            day: day(d),
            market: Market::parse(market).unwrap(),
            category: category.map(|c| PricingWord::parse(c).unwrap()),
            billable,
            messages,
        }
    }

    #[test]
    fn counts_fold_into_days_and_totals_with_their_estimates() {
        let card = RateCard {
            rates: vec![Rate {
                category: PricingWord::parse("utility").unwrap(),
                micros: 10_000,
                currency: Currency::parse("EUR").unwrap(),
            }],
        };
        let counts = [
            count(1, None, true, 2),
            count(1, Some("utility"), false, 1),
            count(1, Some("utility"), true, 3),
            count(2, Some("marketing"), true, 4),
            count(2, Some("utility"), true, 1),
        ];
        let report = report(day(1), day(3), &counts, &PriceList::new(card, Vec::new(), None));
        assert_eq!(report.messages, 11);
        assert_eq!(report.days.len(), 2);
        let first = &report.days[0];
        assert_eq!(first.messages, 6);
        assert_eq!(first.categories.len(), 2);
        assert_eq!(first.categories[1].billable, 3);
        assert_eq!(first.estimated_cost.as_ref().unwrap().amount(), "0.03");
        let second = &report.days[1];
        assert_eq!(second.categories[0].estimated_cost, None, "no marketing rate");
        assert_eq!(second.estimated_cost.as_ref().unwrap().amount(), "0.01");
        assert_eq!(report.estimated_cost.unwrap().amount(), "0.04");
        let utility = report
            .totals
            .iter()
            .find(|c| c.category.as_ref().is_some_and(|w| w.as_str() == "utility"))
            .unwrap();
        assert_eq!((utility.messages, utility.billable), (5, 4));
    }

    fn market_card(rates: &[(&str, &str, u64)], tiers: &[(&str, &str, u64, u64)]) -> MarketRateCard {
        use crate::pricing::rate_file::{MarketRate, MarketTier};
        MarketRateCard {
            effective_from: NaiveDate::from_ymd_opt(2026, 10, 1).unwrap(),
            currency: Currency::parse("USD").unwrap(),
            rates: rates
                .iter()
                .map(|&(market, category, micros)| MarketRate {
                    market: Market::parse(market).unwrap(),
                    category: PricingWord::parse(category).unwrap(),
                    micros,
                })
                .collect(),
            tiers: tiers
                .iter()
                .map(|&(market, category, from, micros)| MarketTier {
                    market: Market::parse(market).unwrap(),
                    category: PricingWord::parse(category).unwrap(),
                    from,
                    micros,
                })
                .collect(),
        }
    }

    /// Each market's messages at its own rate, summed by day, by category and by market; the days of
    /// the month before `from` only place later messages in their volume tiers.
    #[test]
    fn markets_price_their_messages_and_the_month_before_from_places_the_tiers() {
        let card = market_card(
            &[
                ("brazil", "utility", 6_800),
                ("india", "utility", 1_400),
                ("other", "utility", 9_000),
            ],
            &[("india", "utility", 4, 1_000)],
        );
        let prices = PriceList::new(
            RateCard::default(),
            vec![card],
            Some(Markup::parse_percent("10").unwrap()),
        );
        let counts = [
            // Before the range: three billable Indian utility messages (and one free, not counted).
            market_count(2, "india", Some("utility"), true, 3),
            market_count(2, "india", Some("utility"), false, 1),
            market_count(5, "india", Some("utility"), true, 2),
            market_count(5, "brazil", Some("utility"), true, 1),
            market_count(6, "other", Some("utility"), true, 1),
            market_count(6, "brazil", None, true, 2),
        ];
        let report = report(day(5), day(6), &counts, &prices);
        assert_eq!(report.messages, 6, "the days before `from` are not reported");
        assert_eq!(report.days.len(), 2);
        // India's 4th and 5th messages of November are at the tier: 2 × 1000 + 10 %.
        let india = report
            .markets
            .iter()
            .find(|m| m.market.as_str() == "india")
            .unwrap();
        assert_eq!((india.messages, india.billable), (2, 2));
        assert_eq!(india.estimated_cost.as_ref().unwrap().micros, 2_200);
        let brazil = report
            .markets
            .iter()
            .find(|m| m.market.as_str() == "brazil")
            .unwrap();
        assert_eq!((brazil.messages, brazil.billable), (3, 3));
        assert_eq!(
            brazil.estimated_cost.as_ref().unwrap().micros,
            7_480,
            "unpriced ones have no estimate"
        );
        let first = &report.days[0];
        assert_eq!(first.markets.len(), 2);
        assert_eq!(first.estimated_cost.as_ref().unwrap().micros, 2_200 + 7_480);
        assert_eq!(report.days[1].estimated_cost.as_ref().unwrap().micros, 9_900);
        assert_eq!(report.estimated_cost.unwrap().micros, 2_200 + 7_480 + 9_900);
        let markets: Vec<&str> = report.markets.iter().map(|m| m.market.as_str()).collect();
        assert_eq!(markets, ["brazil", "india", "other"]);
    }

    fn usage(today: NaiveDate) -> Usage {
        let mut clock = crate::ports::MockClock::new();
        clock.expect_now().returning(move || day_start(today));
        Usage::new(Arc::new(crate::ports::MockPricingStore::new()), Arc::new(clock))
    }

    fn date(text: &str) -> NaiveDate {
        NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
    }

    fn fields(errors: &ValidationErrors) -> Vec<&str> {
        errors.errors().iter().map(|e| e.field.as_str()).collect()
    }

    /// Days beyond the documented range, the attacker's among them, are refused naming their parameter,
    /// before any arithmetic on them: nothing panics, whatever chrono can parse.
    #[test]
    fn days_outside_the_range_are_refused_naming_their_parameter() {
        let usage = usage(day(27));
        for (from, until, named) in [
            (None, Some(NaiveDate::MIN), vec!["until"]),
            (None, Some(date("-262143-01-01")), vec!["until"]),
            (
                Some(date("+262142-12-30")),
                Some(date("+262142-12-31")),
                vec!["from", "until"],
            ),
            (None, Some(NaiveDate::MAX), vec!["until"]),
            (None, Some(date("-4713-12-01")), vec!["until"]),
            (Some(date("1999-12-31")), Some(date("2000-01-10")), vec!["from"]),
            (
                Some(date("9999-12-01")),
                Some(date("+10000-01-01")),
                vec!["until"],
            ),
        ] {
            let errors = usage.range(from, until).unwrap_err();
            assert_eq!(fields(&errors), named, "{from:?} {until:?}");
        }
    }

    /// The ends of the range are taken, and a default `from` stops at the first day.
    #[test]
    fn the_first_and_last_days_are_taken_and_a_default_from_stops_at_the_first() {
        let usage = usage(day(27));
        assert_eq!(
            usage.range(None, Some(date("2000-01-05"))).unwrap(),
            (date("2000-01-01"), date("2000-01-05"))
        );
        assert_eq!(
            usage
                .range(Some(date("9999-12-01")), Some(date("9999-12-31")))
                .unwrap(),
            (date("9999-12-01"), date("9999-12-31"))
        );
        assert_eq!(
            usage.range(None, None).unwrap(),
            (day(1) - chrono::Duration::days(3), day(27))
        );
    }
}
