//! The broadcasts: a list with each one's progress, and one broadcast with its counts by status, why it
//! paused, its Cancel and Resume buttons, and a link to its messages in the message log.

use crate::auth::{Posted, context};
use crate::error::PageError;
use crate::pages::keys::PlainForm;
use crate::pages::messages::status_badge;
use crate::pages::parse_id;
use crate::session::Owner;
use crate::view::{self, Section};
use actix_web::http::header::LOCATION;
use actix_web::{HttpRequest, HttpResponse, web};
use herald_domain::broadcast::{Broadcast, BroadcastState, BroadcastView};
use herald_domain::ids::BroadcastId;
use herald_domain::message::MessageStatus;
use herald_domain::ports::BroadcastQuery;
use herald_domain::usecases::BroadcastChangeError;
use maud::{Markup, html};
use serde::Deserialize;

/// Rows per page of the list.
const PAGE_SIZE: u32 = 25;

/// The list's position (`before`: the last broadcast of the previous page).
#[derive(Debug, Default, Deserialize)]
pub struct ListQuery {
    #[serde(default)]
    before: String,
}

pub fn state_badge(state: BroadcastState) -> Markup {
    let tone = match state {
        BroadcastState::Completed => "ok",
        BroadcastState::Paused | BroadcastState::Cancelling => "warn",
        BroadcastState::Scheduled | BroadcastState::Running | BroadcastState::Cancelled => "neutral",
    };
    view::badge(state.as_str(), tone)
}

/// `released / total`, with the share released.
fn progress(broadcast: &Broadcast) -> Markup {
    let percent = (u64::from(broadcast.released) * 100)
        .checked_div(u64::from(broadcast.total))
        .unwrap_or(0);
    html! {
        (view::count(u64::from(broadcast.released))) " / " (view::count(u64::from(broadcast.total)))
        span.muted { " (" (percent) "%)" }
    }
}

/// The counts that say how it went, in a line (`delivered 10 · failed 1`); statuses at 0 are left out.
fn counts_line(view: &BroadcastView) -> Markup {
    let counts: Vec<(MessageStatus, u32)> = MessageStatus::ALL
        .into_iter()
        .map(|status| (status, view.counts.get(status)))
        .filter(|(_, n)| *n > 0)
        .collect();
    html! {
        @if counts.is_empty() {
            span.muted { "—" }
        }
        @for (i, (status, n)) in counts.iter().enumerate() {
            @if i > 0 { " · " }
            (status.as_str()) " " (view::count(u64::from(*n)))
        }
    }
}

pub async fn list(
    owner: Owner,
    req: HttpRequest,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, PageError> {
    let ctx = context(&req)?;
    let org = owner.organization_id();
    let before = if query.before.is_empty() {
        None
    } else {
        Some(parse_id(&query.before, BroadcastId::parse).map_err(|_| {
            PageError::BadRequest("The page link is not valid; start from the first page.".to_owned())
        })?)
    };
    let mut views = ctx
        .broadcasts
        .list(
            org,
            &BroadcastQuery {
                state: None,
                before,
                limit: PAGE_SIZE + 1,
            },
        )
        .await?;
    let next = (views.len() > PAGE_SIZE as usize).then(|| {
        views.truncate(PAGE_SIZE as usize);
        views.last().map(|v| v.broadcast.id)
    });
    let body = html! {
        h1 { "Broadcasts" }
        p.muted { "One template to many recipients, created with " code { "POST /api/v1/broadcasts" } " and released at the sender's pace." }
        section.card {
            @if views.is_empty() {
                p.muted id="no-broadcasts" { "No broadcasts yet." }
            } @else {
                div.table {
                    table id="broadcasts" {
                        thead { tr { th { "Created" } th { "Broadcast" } th { "Template" } th { "Status" } th { "Released" } th { "Messages" } } }
                        tbody {
                            @for v in &views {
                                @let b = &v.broadcast;
                                tr data-broadcast-id=(b.id) {
                                    td { (view::time(b.created_at)) }
                                    td { a href={ "/dashboard/broadcasts/" (b.id) } { code { (b.id) } } }
                                    td { code { (b.template.name.as_str()) } " (" (b.template.language.as_str()) ")" }
                                    td { (state_badge(b.state)) }
                                    td { (progress(b)) }
                                    td { (counts_line(v)) }
                                }
                            }
                        }
                    }
                }
            }
            nav.pager {
                @if !query.before.is_empty() {
                    a.button href="/dashboard/broadcasts" { "« Newest" }
                }
                @if let Some(Some(next)) = next {
                    a.button id="older" href={ "/dashboard/broadcasts?before=" (next) } { "Older »" }
                }
            }
        }
    };
    Ok(view::owner_page(&owner, Section::Broadcasts, "Broadcasts", body))
}

/// What the page says after its Cancel or Resume button was pressed.
#[derive(Debug, Default, Deserialize)]
pub struct ShowNotice {
    #[serde(default)]
    cancel: String,
    #[serde(default)]
    resume: String,
}

pub async fn show(
    owner: Owner,
    req: HttpRequest,
    path: web::Path<String>,
    notice: web::Query<ShowNotice>,
) -> Result<HttpResponse, PageError> {
    let ctx = context(&req)?;
    let id = parse_id(&path, BroadcastId::parse)?;
    let view = ctx
        .broadcasts
        .get(owner.organization_id(), &id)
        .await?
        .ok_or(PageError::NotFound)?;
    let b = &view.broadcast;
    let body = html! {
        p { a href="/dashboard/broadcasts" { "« Broadcasts" } }
        h1 { "Broadcast " code { (b.id) } }
        @match notice.cancel.as_str() {
            "done" => { p.flash role="status" id="broadcast-notice" { "Cancelled: nothing more is released, and the messages not yet taken by dispatch are cancelled with their quota given back." } }
            "refused" => { p.error role="alert" id="broadcast-notice" { "It can no longer be cancelled: it is " (b.state.as_str()) "." } }
            _ => {}
        }
        @match notice.resume.as_str() {
            "done" => { p.flash role="status" id="broadcast-notice" { "Resumed: its messages are released again." } }
            "refused" => { p.error role="alert" id="broadcast-notice" { "Only a paused broadcast can be resumed; it is " (b.state.as_str()) "." } }
            _ => {}
        }
        section.card {
            dl.facts {
                dt { "Status" } dd id="broadcast-status" { (state_badge(b.state)) }
                dt { "Template" } dd { code { (b.template.name.as_str()) } " (" (b.template.language.as_str()) ")" }
                dt { "From" } dd { (b.from.as_str()) }
                @if let Some(at) = b.send_at {
                    dt { "Send at" } dd id="broadcast-send-at" { (view::time(at)) }
                }
                dt { "Released" } dd id="broadcast-progress" { (progress(b)) }
                dt { "Created" } dd { (view::time(b.created_at)) }
                dt { "Updated" } dd { (view::time(b.updated_at)) }
                @if let Some(at) = b.completed_at {
                    dt { "Completed" } dd { (view::time(at)) }
                }
                @if let Some(at) = b.cancelled_at {
                    dt { "Cancelled" } dd { (view::time(at)) }
                }
            }
            div.actions {
                @if b.state == BroadcastState::Paused {
                    form.actions method="post" action={ "/dashboard/broadcasts/" (b.id) "/resume" } {
                        (view::csrf_field(&owner))
                        button type="submit" id="resume-broadcast" { "Resume" }
                    }
                }
                @if !b.state.is_final() {
                    form.actions method="post" action={ "/dashboard/broadcasts/" (b.id) "/cancel" } {
                        (view::csrf_field(&owner))
                        button.danger type="submit" id="cancel-broadcast" { "Cancel" }
                    }
                }
            }
        }
        @if let Some(pause) = &b.pause {
            section.card.error-card id="broadcast-pause" {
                h2 { "Paused" }
                p { strong { code { (pause.code) } } @if let Some(n) = pause.network_code { " (network code " (n) ")" } " · " (view::time(pause.paused_at)) }
                p { (pause.detail) }
                p.muted { "Fix the cause (the sender's quality, the template, the account), then resume it." }
            }
        }
        section.card {
            h2 { "Messages by status" }
            div.table {
                table id="broadcast-counts" {
                    thead { tr { th { "Status" } th { "Messages" } } }
                    tbody {
                        @for status in MessageStatus::ALL {
                            tr {
                                td { (status_badge(status)) }
                                td data-status=(status.as_str()) { (view::count(u64::from(view.counts.get(status)))) }
                            }
                        }
                    }
                }
            }
            p { a.button id="broadcast-messages" href={ "/dashboard/messages?broadcast=" (b.id) } { "Its messages in the log »" } }
        }
    };
    Ok(view::owner_page(&owner, Section::Broadcasts, "Broadcast", body))
}

/// The Cancel button: back to the broadcast's page, which says how it went.
pub async fn cancel(
    req: HttpRequest,
    path: web::Path<String>,
    posted: Posted<PlainForm>,
) -> Result<HttpResponse, PageError> {
    let ctx = context(&req)?;
    let owner = posted.owner;
    let id = parse_id(&path, BroadcastId::parse)?;
    let outcome = outcome(ctx.broadcasts.cancel(owner.organization_id(), &id).await)?;
    Ok(HttpResponse::SeeOther()
        .insert_header((LOCATION, format!("/dashboard/broadcasts/{id}?cancel={outcome}")))
        .finish())
}

/// The Resume button of a paused broadcast.
pub async fn resume(
    req: HttpRequest,
    path: web::Path<String>,
    posted: Posted<PlainForm>,
) -> Result<HttpResponse, PageError> {
    let ctx = context(&req)?;
    let owner = posted.owner;
    let id = parse_id(&path, BroadcastId::parse)?;
    let outcome = outcome(ctx.broadcasts.resume(owner.organization_id(), &id).await)?;
    Ok(HttpResponse::SeeOther()
        .insert_header((LOCATION, format!("/dashboard/broadcasts/{id}?resume={outcome}")))
        .finish())
}

fn outcome<T>(result: Result<T, BroadcastChangeError>) -> Result<&'static str, PageError> {
    match result {
        Ok(_) => Ok("done"),
        Err(BroadcastChangeError::WrongState { .. }) => Ok("refused"),
        Err(BroadcastChangeError::NotFound) => Err(PageError::NotFound),
        Err(BroadcastChangeError::Store(error)) => Err(error.into()),
    }
}
