//! Rate cards and usage sums: what an organization's messages are estimated to cost.

use crate::ids::OrganizationId;
use crate::ports::StoreError;
use crate::pricing::{MarketRateCard, PricingWord, Rate, RateCard, UsageCount};
use crate::time::Timestamp;
use async_trait::async_trait;
use chrono::NaiveDate;

/// Each organization's rate card, and its messages counted by day and network pricing.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait PricingStore: Send + Sync + 'static {
    /// The organization's rates, by category (empty: no card).
    async fn rate_card(&self, organization: &OrganizationId) -> Result<RateCard, StoreError>;

    /// Sets (or replaces) the rate of `rate.category`. The caller keeps the card to one currency.
    async fn set_rate(
        &self,
        organization: &OrganizationId,
        rate: &Rate,
        now: Timestamp,
    ) -> Result<(), StoreError>;

    /// Removes the rate of `category`; answers whether there was one.
    async fn remove_rate(
        &self,
        organization: &OrganizationId,
        category: &PricingWord,
    ) -> Result<bool, StoreError>;

    /// Keeps `card` as Meta's rates from `card.effective_from` on, replacing every rate of a card of the
    /// same day, in one transaction: all of it is kept or none.
    async fn import_market_rates(&self, card: &MarketRateCard, now: Timestamp) -> Result<(), StoreError>;

    /// The market card in force on `day`: the one of the latest `effective_from` not after it; `None`
    /// when no card is that old.
    async fn market_rates_on(&self, day: NaiveDate) -> Result<Option<MarketRateCard>, StoreError>;

    /// The organization's outbound messages created in `[from, until)`, counted by UTC day of creation,
    /// network pricing category and whether it is billable ([`crate::pricing::billable`]; a message not
    /// priced yet counts as billable with no category). Sorted by day, then category.
    async fn usage_counts(
        &self,
        organization: &OrganizationId,
        from: Timestamp,
        until: Timestamp,
    ) -> Result<Vec<UsageCount>, StoreError>;
}
