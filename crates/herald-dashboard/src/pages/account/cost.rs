//! The account page's estimated cost of this month by pricing category: the same sums as
//! `GET /api/v1/usage` for the UTC days from the month's first to today.

use chrono::Datelike;
use herald_domain::Timestamp;
use herald_domain::ids::OrganizationId;
use herald_domain::pricing::Cost;
use herald_domain::usecases::{QueryError, Usage, UsageReport};
use maud::{Markup, html};

/// This month's usage report (the first UTC day of `now`'s month to `now`'s day).
///
/// # Errors
/// A store failure.
pub async fn this_month(
    usage: &Usage,
    organization: &OrganizationId,
    now: Timestamp,
) -> Result<UsageReport, QueryError> {
    let today = now.date_naive();
    let first = today.with_day(1).unwrap_or(today);
    usage.execute(organization, Some(first), Some(today)).await
}

/// The card: one row per category, then the month's total.
pub fn card(report: &UsageReport) -> Markup {
    html! {
        section.card {
            h2 { "Estimated cost this month" }
            @if report.totals.is_empty() {
                p.muted id="month-cost-none" { "No messages this month." }
            } @else {
                div.table {
                    table id="month-cost" {
                        thead { tr { th { "Category" } th { "Messages" } th { "Billed" } th { "Estimated cost" } } }
                        tbody {
                            @for usage in &report.totals {
                                tr {
                                    td { @match &usage.category { Some(category) => code { (category.as_str()) }, None => span.muted { "not priced yet" } } }
                                    td { (crate::view::count(usage.messages)) }
                                    td { (crate::view::count(usage.billable)) }
                                    td { (cost(usage.estimated_cost.as_ref())) }
                                }
                            }
                        }
                        tfoot { tr { th { "Total" } td { (crate::view::count(report.messages)) } td {} td id="month-cost-total" { (cost(report.estimated_cost.as_ref())) } } }
                    }
                }
            }
            p.muted { "From the network's pricing of each message at the operator's rate card. Messages the network has not priced yet count as billed; a category without a rate has no estimate." }
        }
    }
}

fn cost(cost: Option<&Cost>) -> Markup {
    html! {
        @match cost {
            Some(cost) => { (cost.amount()) " " (cost.currency.as_str()) }
            None => span.muted { "no rate" },
        }
    }
}
