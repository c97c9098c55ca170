//! Wire types of pricing: a message's network pricing and estimated cost (docs/api.md §5), the
//! dry run's answer (§4), and usage (§5.2).

use super::time;
use crate::error::{ApiError, Problem};
use herald_domain::pricing::{Cost, ExpectedPricing};
use herald_domain::usecases::{CategoryUsage, DayUsage, DryRun, UsageReport, WindowState};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// The network's pricing of a message (Meta's `pricing` object, lowercased; docs/api.md §5).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct PricingResource {
    /// `pmp` (per message) or `cbp` (conversation based).
    #[schema(example = "pmp")]
    pub model: Option<String>,
    /// `marketing`, `utility`, `authentication`, `authentication_international`, `service`, …
    #[schema(example = "utility")]
    pub category: Option<String>,
    /// `regular`, `free_customer_service` or `free_entry_point`.
    #[serde(rename = "type")]
    #[schema(example = "regular")]
    pub type_: Option<String>,
    pub billable: Option<bool>,
}

impl From<&herald_domain::pricing::Pricing> for PricingResource {
    fn from(pricing: &herald_domain::pricing::Pricing) -> Self {
        let word = |w: Option<&herald_domain::pricing::PricingWord>| w.map(|w| w.as_str().to_owned());
        Self {
            model: word(pricing.model.as_ref()),
            category: word(pricing.category.as_ref()),
            type_: word(pricing.kind.as_ref()),
            billable: pricing.billable,
        }
    }
}

/// An amount of money: a decimal string, exact (no float), in an ISO 4217 currency.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct CostResource {
    #[schema(example = "0.0150")]
    pub amount: String,
    #[schema(example = "EUR")]
    pub currency: String,
}

impl From<&Cost> for CostResource {
    fn from(cost: &Cost) -> Self {
        Self {
            amount: cost.amount(),
            currency: cost.currency.as_str().to_owned(),
        }
    }
}

/// The query every send operation takes (docs/api.md §4).
#[derive(Debug, Clone, Copy, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SendQuery {
    /// `true`: run every check of the send and answer `200` with what it would meet; nothing is stored,
    /// counted, spent or sent. Only `true` or `false`.
    pub dry_run: Option<bool>,
}

/// The category a send would be billed in, before the network says.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct ExpectedPricingResource {
    #[schema(example = "utility")]
    pub category: String,
    pub billable: bool,
}

/// The service window with the recipient, as a dry run found it.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct DryRunWindowResource {
    pub open: bool,
    #[schema(format = DateTime)]
    pub last_inbound_at: Option<String>,
    /// When the window closes (or closed).
    #[schema(format = DateTime)]
    pub expires_at: Option<String>,
}

/// What a send would meet (`?dry_run=true`, docs/api.md §4).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct DryRunResource {
    /// Whether the send would be accepted now: `refusals` is empty.
    pub would_accept: bool,
    /// The problems the send would be refused with, in the order it would meet them: each is the body the
    /// send itself would answer (its `status` the send's status code).
    pub refusals: Vec<Problem>,
    /// The window with the recipient, once the sender is known.
    pub window: Option<DryRunWindowResource>,
    /// The category the message would be billed in, once known.
    pub pricing: Option<ExpectedPricingResource>,
    /// A marketing template's send path as it would be asked (`auto`, `cloud_api` or `marketing_messages`,
    /// docs/api.md §4.11), once the template is known; `null` for any other message (the Cloud API).
    #[schema(example = json!("auto"))]
    pub marketing_route: Option<String>,
    /// What the organization's rate card says one such message costs, when a rate applies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_cost: Option<CostResource>,
}

impl DryRunResource {
    pub(crate) fn new(run: DryRun, estimated_cost: Option<&Cost>) -> Self {
        Self {
            would_accept: run.would_accept(),
            window: run.window.as_ref().map(window),
            pricing: run.pricing.as_ref().map(expected),
            marketing_route: run.marketing_route.map(|route| route.as_str().to_owned()),
            estimated_cost: estimated_cost.map(CostResource::from),
            refusals: run
                .refusals
                .into_iter()
                .map(|refusal| ApiError::from(refusal).problem(None))
                .collect(),
        }
    }
}

fn window(state: &WindowState) -> DryRunWindowResource {
    DryRunWindowResource {
        open: state.open,
        last_inbound_at: state.last_inbound_at.map(time),
        expires_at: state.expires_at.map(time),
    }
}

fn expected(pricing: &ExpectedPricing) -> ExpectedPricingResource {
    ExpectedPricingResource {
        category: pricing.category.as_str().to_owned(),
        billable: pricing.billable,
    }
}

/// `GET /api/v1/usage`'s query (docs/api.md §5.2).
#[derive(Debug, Clone, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code, reason = "documents the query string, which is parsed by hand")]
pub struct UsageQuery {
    /// The first UTC day, `YYYY-MM-DD`, 2000-01-01 to 9999-12-31; default 29 days before `until` (not before
    /// 2000-01-01).
    pub from: Option<String>,
    /// The last UTC day, included, `YYYY-MM-DD`, 2000-01-01 to 9999-12-31; default today. At most 92 days from
    /// `from`.
    pub until: Option<String>,
}

/// One category's messages.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct CategoryUsageResource {
    /// The network's pricing category; `null` for messages it has not priced yet.
    #[schema(example = "utility")]
    pub category: Option<String>,
    pub messages: u64,
    /// Of them, those the network bills.
    pub billable: u64,
    /// The billable messages at the rate card's rate, when it has one for the category.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_cost: Option<CostResource>,
}

/// One UTC day.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct DayUsageResource {
    #[schema(example = "2026-11-27", format = Date)]
    pub day: String,
    pub messages: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_cost: Option<CostResource>,
    pub categories: Vec<CategoryUsageResource>,
}

/// Messages and their estimated cost by day and category (docs/api.md §5.2).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct UsageResource {
    #[schema(example = "2026-11-01", format = Date)]
    pub from: String,
    #[schema(example = "2026-11-30", format = Date)]
    pub until: String,
    pub messages: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_cost: Option<CostResource>,
    /// The range by category.
    pub categories: Vec<CategoryUsageResource>,
    /// The days with messages, oldest first.
    pub days: Vec<DayUsageResource>,
}

fn category(usage: &CategoryUsage) -> CategoryUsageResource {
    CategoryUsageResource {
        category: usage.category.as_ref().map(|c| c.as_str().to_owned()),
        messages: usage.messages,
        billable: usage.billable,
        estimated_cost: usage.estimated_cost.as_ref().map(CostResource::from),
    }
}

fn day(usage: &DayUsage) -> DayUsageResource {
    DayUsageResource {
        day: usage.day.to_string(),
        messages: usage.messages,
        estimated_cost: usage.estimated_cost.as_ref().map(CostResource::from),
        categories: usage.categories.iter().map(category).collect(),
    }
}

impl From<&UsageReport> for UsageResource {
    fn from(report: &UsageReport) -> Self {
        Self {
            from: report.from.to_string(),
            until: report.until.to_string(),
            messages: report.messages,
            estimated_cost: report.estimated_cost.as_ref().map(CostResource::from),
            categories: report.totals.iter().map(category).collect(),
            days: report.days.iter().map(day).collect(),
        }
    }
}
