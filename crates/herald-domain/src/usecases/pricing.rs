//! Rate cards (set by the operator) and usage (`GET /api/v1/usage`): what an organization's messages are
//! estimated to cost, from the network's pricing of each message and the organization's rates.

use super::queries::QueryError;
use crate::ids::OrganizationId;
use crate::ports::{AccountStore, Clock, PricingStore, StoreError};
use crate::pricing::rate_file::{RateFile, RateFileError};
use crate::pricing::{Cost, Currency, MarketRateCard, PricingWord, Rate, RateCard, UsageCount};
use crate::time::Timestamp;
use crate::{FieldError, ValidationErrors};
use chrono::{Days, NaiveDate};
use std::sync::Arc;

/// Why a rate could not be set.
#[derive(Debug, thiserror::Error)]
pub enum RateError {
    #[error("no organization {0}")]
    UnknownOrganization(OrganizationId),
    #[error("validation failed: {0}")]
    Invalid(ValidationErrors),
    /// A card holds one currency, so every sum of the organization is in one.
    #[error("the organization's rates are in {existing}; remove them first to change the currency")]
    CurrencyMismatch { existing: String },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Why a market rate file was not imported; nothing of it is kept.
#[derive(Debug, thiserror::Error)]
pub enum RateImportError {
    /// The file, at its line and column.
    #[error(transparent)]
    File(#[from] RateFileError),
    #[error("`{0}` is not a day (YYYY-MM-DD from 2000-01-01 to 9999-12-31)")]
    Day(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Each organization's rate card: the operator sets it (`herald admin rate …`), estimates read it.
pub struct RateCards {
    accounts: Arc<dyn AccountStore>,
    pricing: Arc<dyn PricingStore>,
    clock: Arc<dyn Clock>,
}

impl RateCards {
    pub fn new(
        accounts: Arc<dyn AccountStore>,
        pricing: Arc<dyn PricingStore>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            accounts,
            pricing,
            clock,
        }
    }

    /// The organization's rates (empty when none are set).
    ///
    /// # Errors
    /// A store failure.
    pub async fn card(&self, organization: &OrganizationId) -> Result<RateCard, StoreError> {
        self.pricing.rate_card(organization).await
    }

    /// Sets the rate of `category` to `amount` (a decimal, e.g. `0.0147`) in `currency`.
    ///
    /// # Errors
    /// See [`RateError`]: an unknown organization, a bad category, amount or currency, or a currency other
    /// than the card's.
    pub async fn set(
        &self,
        organization: &OrganizationId,
        category: &str,
        amount: &str,
        currency: &str,
    ) -> Result<Rate, RateError> {
        let mut errors = ValidationErrors::new();
        let category = PricingWord::parse(category)
            .map_err(|e| errors.push(crate::FieldError::new("category", e.to_string())))
            .ok();
        let micros = Cost::parse_amount(amount)
            .map_err(|e| errors.push(crate::FieldError::new("amount", e.to_string())))
            .ok();
        let currency = Currency::parse(currency)
            .map_err(|e| errors.push(crate::FieldError::new("currency", e.to_string())))
            .ok();
        let (Some(category), Some(micros), Some(currency)) = (category, micros, currency) else {
            return Err(RateError::Invalid(errors));
        };
        if self.accounts.organization(organization).await?.is_none() {
            return Err(RateError::UnknownOrganization(*organization));
        }
        let card = self.pricing.rate_card(organization).await?;
        if let Some(other) = card
            .rates
            .iter()
            .find(|r| r.currency != currency && r.category != category)
        {
            return Err(RateError::CurrencyMismatch {
                existing: other.currency.as_str().to_owned(),
            });
        }
        let rate = Rate {
            category,
            micros,
            currency,
        };
        self.pricing
            .set_rate(organization, &rate, self.clock.now())
            .await?;
        Ok(rate)
    }

    /// Imports Meta's rate-card file `text` as the rates of every market from the UTC day `effective`
    /// (`YYYY-MM-DD`) on, replacing a card imported before for the same day. All or nothing: the file is
    /// read whole first, and kept in one transaction.
    ///
    /// # Errors
    /// See [`RateImportError`]: the file's first fault with its line and column, a bad day, a store failure.
    pub async fn import(&self, text: &str, effective: &str) -> Result<MarketRateCard, RateImportError> {
        let (first, last) = bounds();
        let effective_from = NaiveDate::parse_from_str(effective.trim(), "%Y-%m-%d")
            .ok()
            .filter(|day| (first..=last).contains(day))
            .ok_or_else(|| RateImportError::Day(effective.chars().take(32).collect()))?;
        let file = RateFile::parse(text)?;
        let card = MarketRateCard {
            effective_from,
            currency: file.currency,
            rates: file.rates,
        };
        self.pricing.import_market_rates(&card, self.clock.now()).await?;
        Ok(card)
    }

    /// The market card in force on the UTC day `day` (`YYYY-MM-DD`); `None` when none is that old.
    ///
    /// # Errors
    /// [`RateImportError::Day`] for a bad day; a store failure.
    pub async fn market_card(&self, day: &str) -> Result<Option<MarketRateCard>, RateImportError> {
        let (first, last) = bounds();
        let day = NaiveDate::parse_from_str(day.trim(), "%Y-%m-%d")
            .ok()
            .filter(|d| (first..=last).contains(d))
            .ok_or_else(|| RateImportError::Day(day.chars().take(32).collect()))?;
        Ok(self.pricing.market_rates_on(day).await?)
    }

    /// Removes the rate of `category`; answers whether there was one.
    ///
    /// # Errors
    /// [`RateError::Invalid`] for a bad category; a store failure.
    pub async fn remove(&self, organization: &OrganizationId, category: &str) -> Result<bool, RateError> {
        let category = PricingWord::parse(category)
            .map_err(|e| RateError::Invalid(ValidationErrors::single("category", e.to_string())))?;
        Ok(self.pricing.remove_rate(organization, &category).await?)
    }
}

/// One category's messages in a usage report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CategoryUsage {
    /// `None`: messages the network has not priced yet.
    pub category: Option<PricingWord>,
    pub messages: u64,
    /// Of them, those the network bills.
    pub billable: u64,
    /// `None` when the card has no rate for the category.
    pub estimated_cost: Option<Cost>,
}

/// One day of a usage report (UTC), with the categories of that day's messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DayUsage {
    pub day: NaiveDate,
    pub messages: u64,
    /// The sum of the categories' estimates; `None` when none of them has a rate.
    pub estimated_cost: Option<Cost>,
    pub categories: Vec<CategoryUsage>,
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
        let counts = self
            .pricing
            .usage_counts(organization, day_start(from), end)
            .await?;
        let card = self.pricing.rate_card(organization).await?;
        Ok(report(from, until, &counts, &card))
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
fn bounds() -> (NaiveDate, NaiveDate) {
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

/// Folds counts (sorted by day, then category, as the port answers) into the report.
fn report(from: NaiveDate, until: NaiveDate, counts: &[UsageCount], card: &RateCard) -> UsageReport {
    let mut days: Vec<DayUsage> = Vec::new();
    let mut totals: Vec<CategoryUsage> = Vec::new();
    for count in counts {
        if days.last().is_none_or(|d| d.day != count.day) {
            days.push(DayUsage {
                day: count.day,
                messages: 0,
                estimated_cost: None,
                categories: Vec::new(),
            });
        }
        if let Some(day) = days.last_mut() {
            add(&mut day.categories, count);
        }
        add(&mut totals, count);
    }
    for categories in days.iter_mut().map(|d| &mut d.categories).chain([&mut totals]) {
        for usage in categories.iter_mut() {
            usage.estimated_cost = usage
                .category
                .as_ref()
                .and_then(|category| card.estimate(category, true, usage.billable));
        }
    }
    for day in &mut days {
        day.messages = day.categories.iter().map(|c| c.messages).sum();
        day.estimated_cost = sum(&day.categories);
    }
    UsageReport {
        from,
        until,
        messages: totals.iter().map(|c| c.messages).sum(),
        estimated_cost: sum(&totals),
        days,
        totals,
    }
}

fn add(categories: &mut Vec<CategoryUsage>, count: &UsageCount) {
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
    }
}

/// The sum of the estimates that exist (one card, one currency); `None` when there is none.
fn sum(categories: &[CategoryUsage]) -> Option<Cost> {
    categories
        .iter()
        .filter_map(|c| c.estimated_cost.clone())
        .reduce(|total, cost| Cost {
            micros: total.micros.saturating_add(cost.micros),
            currency: total.currency,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, d).unwrap()
    }

    fn count(d: u32, category: Option<&str>, billable: bool, messages: u64) -> UsageCount {
        UsageCount {
            day: day(d),
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
        let report = report(day(1), day(3), &counts, &card);
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
