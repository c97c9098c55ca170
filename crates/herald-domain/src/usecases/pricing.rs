//! Rate cards, market cards and markups (set by the operator), and the estimate of a dry run's messages;
//! usage (`GET /api/v1/usage`) is in `usage.rs`.

use super::usage::{bounds, sum};
use crate::ValidationErrors;
use crate::ids::OrganizationId;
use crate::ports::{AccountStore, Clock, MarkupTarget, PricingStore, StoreError};
use crate::pricing::estimate::{Markup, PriceList};
use crate::pricing::markets::Market;
use crate::pricing::rate_file::{RateFile, RateFileError};
use crate::pricing::{Cost, Currency, MarketRateCard, PricingWord, Rate, RateCard};
use chrono::NaiveDate;
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

/// Why a markup could not be set; nothing is written.
#[derive(Debug, thiserror::Error)]
pub enum MarkupError {
    #[error("no organization {0}")]
    UnknownOrganization(OrganizationId),
    #[error("no plan `{0}`")]
    UnknownPlan(String),
    #[error("validation failed: {0}")]
    Invalid(ValidationErrors),
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
            tiers: file.tiers,
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

    /// Sets the markup on Meta's market rates of an organization or a plan to `percent` (`0` to `1000`, at
    /// most two decimals), or clears it (`None`).
    ///
    /// # Errors
    /// See [`MarkupError`]: a bad percentage (naming `percent`), an unknown organization or plan.
    pub async fn set_markup(
        &self,
        target: &MarkupTarget,
        percent: Option<&str>,
    ) -> Result<Option<Markup>, MarkupError> {
        let markup = percent
            .map(Markup::parse_percent)
            .transpose()
            .map_err(|e| MarkupError::Invalid(ValidationErrors::single("percent", e.to_string())))?;
        if !self.pricing.set_markup(target, markup).await? {
            return Err(match target {
                MarkupTarget::Organization(id) => MarkupError::UnknownOrganization(*id),
                MarkupTarget::Plan(plan) => MarkupError::UnknownPlan(plan.as_str().to_owned()),
            });
        }
        Ok(markup)
    }

    /// The markup in force for the organization: its own, else its plan's.
    ///
    /// # Errors
    /// A store failure.
    pub async fn markup(&self, organization: &OrganizationId) -> Result<Option<Markup>, StoreError> {
        self.pricing.markup(organization).await
    }

    /// What a dry run's messages would cost: `counts` messages by recipient market, of `category`,
    /// sent on the UTC day `day`, priced as [`PriceList::price`] prices them (the own card's rate, else
    /// the market card in force that day with the markup), at the first volume tier (a dry run does not
    /// know the month's volume). `None` when no message has a rate.
    ///
    /// # Errors
    /// A store failure.
    pub async fn estimate(
        &self,
        organization: &OrganizationId,
        day: NaiveDate,
        category: &PricingWord,
        billable: bool,
        counts: &[(Market, u64)],
    ) -> Result<Option<Cost>, StoreError> {
        let own = self.pricing.rate_card(organization).await?;
        let cards = self.pricing.market_cards_between(day, day).await?;
        let markup = self.pricing.markup(organization).await?;
        let prices = PriceList::new(own, cards, markup);
        Ok(sum(counts
            .iter()
            .map(|&(market, count)| prices.price(day, market, category, billable, 1, count))
            .collect::<Vec<_>>()
            .iter()
            .map(Option::as_ref)))
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
