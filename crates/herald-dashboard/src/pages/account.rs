//! The account: plan, this month's usage against the quota and its estimated cost by category, send rate,
//! sender numbers.

mod cost;

use crate::auth::context;
use crate::error::PageError;
use crate::session::Owner;
use crate::view::{self, Section};
use actix_web::{HttpRequest, HttpResponse};
use herald_domain::organization::AccountStatus;
use maud::{Markup, html};

/// A quality rating as the network gives it (`GREEN`, `YELLOW`, `RED`, `UNKNOWN`), coloured.
pub fn quality_badge(rating: Option<&str>) -> Markup {
    match rating {
        Some(rating) => {
            let tone = match rating {
                "GREEN" => "ok",
                "YELLOW" => "warn",
                "RED" => "bad",
                _ => "neutral",
            };
            view::badge(rating, tone)
        }
        None => html! { span.muted { "not rated" } },
    }
}

pub async fn show(owner: Owner, req: HttpRequest) -> Result<HttpResponse, PageError> {
    let ctx = context(&req)?;
    let account = ctx.access.account(&owner.0, ctx.messages.as_ref()).await?;
    let senders = ctx.senders.list(owner.organization_id()).await?;
    let month = cost::this_month(&ctx.usage, owner.organization_id(), ctx.clock.now()).await?;
    let plan = &account.plan;
    let org = &account.organization;
    let body = html! {
        h1 { "Account" }
        section.card {
            h2 { (org.name.as_str()) }
            dl.facts {
                dt { "Organization id" } dd { code { (org.id) } }
                dt { "State" } dd {
                    @match org.status {
                        AccountStatus::Active => (view::badge("active", "ok")),
                        AccountStatus::Suspended => (view::badge("suspended", "warn")),
                        AccountStatus::Closed => (view::badge("closed", "bad")),
                    }
                }
                dt { "Owner" } dd { (owner.0.session.email) }
                dt { "Plan" } dd id="plan" { strong { (plan.name) } }
            }
        }
        section.card {
            h2 { "This month (" (account.period.as_str()) ")" }
            @match plan.monthly_quota {
                Some(quota) => {
                    p id="usage" { strong { (view::count(account.used)) } " of " (view::count(quota)) " messages" }
                    progress max=(quota) value=(account.used.min(quota)) { (account.used) " of " (quota) }
                }
                None => {
                    p id="usage" { strong { (view::count(account.used)) } " messages (no monthly limit)" }
                }
            }
            p.muted { "The count starts again " (view::time(account.resets_at)) "." }
        }
        (cost::card(&month))
        section.card {
            h2 { "Plan limits" }
            dl.facts {
                dt { "Send rate" } dd id="send-rate" { (view::count(plan.rate_per_second.into())) " messages/second, bursts of " (view::count(plan.burst.into())) }
                dt { "Message kinds" } dd {
                    @for (allowed, kind) in [(plan.text_allowed, "text"), (plan.template_allowed, "template"), (plan.media_allowed, "files and media")] {
                        @if allowed { (view::badge(kind, "neutral")) " " }
                    }
                }
                dt { "Largest file" } dd { (view::count(plan.max_file_bytes / 1_000_000)) " MB" }
                dt { "Webhook endpoints" } dd { (plan.webhook_endpoints) }
            }
        }
        section.card {
            h2 { "Sender numbers" }
            @if senders.is_empty() {
                p.muted { "No sender numbers yet: the operator adds them." }
            } @else {
                div.table {
                    table id="senders" {
                        thead { tr { th { "Number" } th { "Phone number id" } th { "Business account" } th { "Throughput" } th { "Quality" } th { "Messaging limit" } th {} } }
                        tbody {
                            @for view in &senders {
                                @let s = &view.sender;
                                tr {
                                    td { (s.number.as_str()) }
                                    td { code { (s.phone_number_id.as_str()) } }
                                    td { code { (s.waba_id.as_str()) } }
                                    td { (s.throughput_per_second) "/s" }
                                    td.sender-quality { (quality_badge(view.quality.quality_rating.as_deref())) }
                                    td { @match &view.quality.messaging_limit { Some(limit) => (limit), None => span.muted { "not reported" } } }
                                    td { @if s.is_default { (view::badge("default", "ok")) } }
                                }
                            }
                        }
                    }
                }
            }
        }
    };
    Ok(view::owner_page(&owner, Section::Account, "Account", body))
}
