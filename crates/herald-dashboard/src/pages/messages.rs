//! The message log with filters and paging, and one message with its history and the events sent for it.

use crate::auth::{Posted, context};
use crate::error::PageError;
use crate::pages::keys::PlainForm;
use crate::pages::parse_id;
use crate::session::Owner;
use crate::view::{self, Section};
use actix_web::http::header::LOCATION;
use actix_web::{HttpRequest, HttpResponse, web};
use chrono::{NaiveDate, TimeZone, Utc};
use herald_domain::Timestamp;
use herald_domain::contact::Recipient;
use herald_domain::ids::{BroadcastId, MessageId};
use herald_domain::interactive::InteractiveAction;
use herald_domain::message::{Message, MessageContent, MessageStatus, MessageType};
use herald_domain::ports::MessageQuery;
use herald_domain::usecases::CancelError;
use maud::{Markup, html};
use serde::Deserialize;

/// Rows per page of the log.
const PAGE_SIZE: u32 = 25;

/// The log's filters as they travel in the query string (and back into the form and the next-page link).
#[derive(Debug, Default, Deserialize)]
pub struct Filters {
    #[serde(default)]
    status: String,
    #[serde(default)]
    to: String,
    #[serde(default, rename = "type")]
    message_type: String,
    /// First day, `YYYY-MM-DD` (UTC), inclusive.
    #[serde(default)]
    from: String,
    /// Last day, `YYYY-MM-DD` (UTC), inclusive.
    #[serde(default)]
    until: String,
    #[serde(default)]
    before: String,
    /// Only the messages of this broadcast (`brd_…`), as its page links to them.
    #[serde(default)]
    broadcast: String,
}

/// Midnight UTC of `value` (`YYYY-MM-DD`), and of `days` days later. Years outside 1970–9999 are refused:
/// chrono takes `+262143-12-31`, and the day after it is past the last instant a timestamp can hold.
fn day_start(value: &str, field: &str, days: i64) -> Result<Timestamp, String> {
    NaiveDate::parse_from_str(value, "%Y-%m-%d")
        .ok()
        .filter(|d| (1970..=9999).contains(&chrono::Datelike::year(d)))
        .and_then(|d| d.checked_add_days(chrono::Days::new(days.unsigned_abs())))
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|t| Utc.from_utc_datetime(&t))
        .ok_or_else(|| format!("{field}: use a date like 2026-11-23"))
}

impl Filters {
    fn query(&self) -> Result<MessageQuery, Vec<String>> {
        let mut errors = Vec::new();
        let mut query = MessageQuery {
            limit: PAGE_SIZE,
            ..MessageQuery::default()
        };
        if !self.status.is_empty() {
            match MessageStatus::parse(&self.status) {
                Ok(status) => query.status = Some(status),
                Err(_) => errors.push("Status: pick one from the list".to_owned()),
            }
        }
        if !self.to.trim().is_empty() {
            match Recipient::parse(self.to.trim()) {
                Ok(to) => query.to = Some(to),
                Err(_) => errors.push(
                    "Recipient: an international number like +15551234567, or a user id like US.13491208655302741918"
                        .to_owned(),
                ),
            }
        }
        if !self.message_type.is_empty() {
            match MessageType::parse(&self.message_type) {
                Ok(t) => query.message_type = Some(t),
                Err(_) => errors.push("Type: pick one from the list".to_owned()),
            }
        }
        if !self.from.is_empty() {
            match day_start(&self.from, "From", 0) {
                Ok(at) => query.created_after = Some(at),
                Err(e) => errors.push(e),
            }
        }
        if !self.until.is_empty() {
            match day_start(&self.until, "Until", 1) {
                Ok(at) => query.created_before = Some(at),
                Err(e) => errors.push(e),
            }
        }
        if !self.broadcast.is_empty() {
            match BroadcastId::parse(&self.broadcast) {
                Ok(id) => query.broadcast = Some(id),
                Err(_) => errors.push("Broadcast: not a broadcast id; open it from its page".to_owned()),
            }
        }
        if !self.before.is_empty() {
            match MessageId::parse(&self.before) {
                Ok(id) => query.before = Some(id),
                Err(_) => errors.push("The page link is not valid; start from the first page".to_owned()),
            }
        }
        if errors.is_empty() { Ok(query) } else { Err(errors) }
    }

    fn next_link(&self, next: MessageId) -> String {
        let next = Filters {
            status: self.status.clone(),
            to: self.to.clone(),
            message_type: self.message_type.clone(),
            from: self.from.clone(),
            until: self.until.clone(),
            before: next.to_string(),
            broadcast: self.broadcast.clone(),
        };
        format!("/dashboard/messages?{}", serde_urlencoded_pairs(&next))
    }
}

/// The filters as a query string (only the ones set).
fn serde_urlencoded_pairs(filters: &Filters) -> String {
    let pairs = [
        ("status", &filters.status),
        ("to", &filters.to),
        ("type", &filters.message_type),
        ("from", &filters.from),
        ("until", &filters.until),
        ("broadcast", &filters.broadcast),
        ("before", &filters.before),
    ];
    pairs
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!("{k}={}", percent_encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

fn percent_encode(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => char::from(b).to_string(),
            other => format!("%{other:02X}"),
        })
        .collect()
}

pub fn status_badge(status: MessageStatus) -> Markup {
    let tone = match status {
        MessageStatus::Delivered | MessageStatus::Read => "ok",
        MessageStatus::Failed => "bad",
        MessageStatus::Scheduled
        | MessageStatus::Accepted
        | MessageStatus::Submitted
        | MessageStatus::Sent
        | MessageStatus::Cancelled => "neutral",
    };
    view::badge(status.as_str(), tone)
}

/// [`status_badge`] for a message's current status: `sent` is as far as a reaction goes, so it shows done.
fn message_status_badge(message: &Message) -> Markup {
    if !matches!(message.status, MessageStatus::Failed | MessageStatus::Cancelled)
        && message.content.is_final(message.status)
    {
        view::badge(message.status.as_str(), "ok")
    } else {
        status_badge(message.status)
    }
}

/// What the message says, in a line or a short list, for the kinds whose object is more than a text.
fn content_summary(content: &MessageContent) -> Option<Markup> {
    let summary = match content {
        MessageContent::Erased(_) => html! { "erased" },
        MessageContent::Interactive(message) => {
            let choices: Vec<&str> = match &message.action {
                InteractiveAction::Buttons(buttons) => buttons.iter().map(|b| b.title.as_str()).collect(),
                InteractiveAction::List { sections, .. } => sections
                    .iter()
                    .flat_map(|s| s.rows.iter().map(|r| r.title.as_str()))
                    .collect(),
                InteractiveAction::CtaUrl { display_text, .. } => vec![display_text.as_str()],
                InteractiveAction::Flow(flow) => vec![flow.cta.as_str()],
                InteractiveAction::LocationRequest => Vec::new(),
            };
            html! {
                (message.action.wire_type()) ": " (message.body.as_ref().map_or("", |b| b.as_str()))
                @if !choices.is_empty() { " [" (choices.join(" | ")) "]" }
            }
        }
        MessageContent::Reaction(reaction) => html! {
            @if reaction.emoji.removes() { "removes the reaction to " } @else { (reaction.emoji.as_str()) " to " }
            code { (reaction.target.message) }
        },
        MessageContent::Location(place) => html! {
            (place.latitude.as_str()) ", " (place.longitude.as_str())
            @if let Some(name) = &place.name { " · " (name.as_str()) }
            @if let Some(address) = &place.address { " · " (address.as_str()) }
        },
        MessageContent::Contacts(cards) => {
            let names: Vec<&str> = cards
                .iter()
                .filter_map(|c| c.name.formatted_name.as_ref().map(|n| n.as_str()))
                .collect();
            html! { (names.join(", ")) }
        }
        MessageContent::Text { .. } | MessageContent::Media { .. } | MessageContent::Template { .. } => {
            return None;
        }
    };
    Some(summary)
}

fn filter_form(filters: &Filters) -> Markup {
    html! {
        form.filters method="get" action="/dashboard/messages" {
            label { "Status"
                select name="status" id="filter-status" {
                    option value="" { "any" }
                    @for status in MessageStatus::ALL {
                        option value=(status.as_str()) selected[filters.status == status.as_str()] { (status.as_str()) }
                    }
                }
            }
            label { "Recipient" input type="tel" name="to" id="filter-to" value=(filters.to) placeholder="+15551234567"; }
            label { "Type"
                select name="type" id="filter-type" {
                    option value="" { "any" }
                    @for t in MessageType::ALL {
                        option value=(t.as_str()) selected[filters.message_type == t.as_str()] { (t.as_str()) }
                    }
                }
            }
            label { "From" input type="date" name="from" id="filter-from" value=(filters.from); }
            @if !filters.broadcast.is_empty() {
                input type="hidden" name="broadcast" value=(filters.broadcast);
            }
            label { "Until" input type="date" name="until" id="filter-until" value=(filters.until); }
            div.buttons {
                button type="submit" id="apply-filters" { "Filter" }
                a.button href="/dashboard/messages" { "Clear" }
            }
        }
    }
}

fn log_table(messages: &[Message]) -> Markup {
    html! {
        @if messages.is_empty() {
            p.muted id="no-messages" { "No messages match." }
        } @else {
            div.table {
                table id="messages" {
                    thead { tr { th { "Created" } th { "Message" } th { "To" } th { "Type" } th { "Status" } th { "Send at" } } }
                    tbody {
                        @for m in messages {
                            tr data-message-id=(m.id) {
                                td { (view::time(m.created_at)) }
                                td { a href={ "/dashboard/messages/" (m.id) } { code { (m.id) } } }
                                td { (m.to.as_str()) }
                                td { (m.content.message_type().as_str()) }
                                td { (message_status_badge(m)) }
                                td { @if let Some(at) = m.send_at { (view::time(at)) } @else { span.muted { "at once" } } }
                            }
                        }
                    }
                }
            }
        }
    }
}

pub async fn list(
    owner: Owner,
    req: HttpRequest,
    filters: web::Query<Filters>,
) -> Result<HttpResponse, PageError> {
    let ctx = context(&req)?;
    let filters = filters.into_inner();
    let (results, errors) = match filters.query() {
        Ok(query) => {
            let page = ctx.list_messages.execute(owner.organization_id(), query).await?;
            (Some(page), Vec::new())
        }
        Err(errors) => (None, errors),
    };
    let body = html! {
        h1 { "Messages" }
        @if !filters.broadcast.is_empty() {
            p id="broadcast-filter" {
                "Messages of broadcast "
                a href={ "/dashboard/broadcasts/" (filters.broadcast) } { code { (filters.broadcast) } }
                " · " a href="/dashboard/messages" { "all messages" }
            }
        }
        section.card {
            (filter_form(&filters))
            @for error in &errors {
                p.error role="alert" { (error) }
            }
        }
        @if let Some(page) = &results {
            section.card {
                (log_table(&page.messages))
                nav.pager {
                    @if !filters.before.is_empty() {
                        a.button href="/dashboard/messages" { "« Newest" }
                    }
                    @if let Some(next) = page.next {
                        a.button id="older" href=(filters.next_link(next)) { "Older »" }
                    }
                }
            }
        }
    };
    let mut response = view::owner_page(&owner, Section::Messages, "Messages", body);
    if !errors.is_empty() {
        *response.status_mut() = actix_web::http::StatusCode::BAD_REQUEST;
    }
    Ok(response)
}

/// The network's pricing of a message: category, type, model and whether it is billed; a dash until the
/// network priced it.
fn pricing(pricing: Option<&herald_domain::pricing::Pricing>) -> Markup {
    let word = |w: Option<&herald_domain::pricing::PricingWord>| w.map_or("—", |w| w.as_str()).to_owned();
    html! {
        @match pricing {
            None => { "—" }
            Some(p) => {
                code { (word(p.category.as_ref())) } " · " (word(p.kind.as_ref())) " · " (word(p.model.as_ref()).to_uppercase())
                " · " (match p.billable { Some(true) => "billable", Some(false) => "free", None => "billing not given" })
            }
        }
    }
}

/// A message's estimated cost at the organization's rate card (docs/api.md §12): the amount and currency, or
/// why there is none.
fn estimated(priced: bool, cost: Option<&herald_domain::pricing::Cost>) -> Markup {
    html! {
        @match cost {
            Some(cost) => { (cost.amount()) " " (cost.currency.as_str()) }
            None if priced => { "—" span.muted { " · no rate for this category on the rate card" } }
            None => { "—" span.muted { " · not priced by the network yet" } }
        }
    }
}

/// What the message page says after its Cancel button was pressed.
#[derive(Debug, Default, Deserialize)]
pub struct ShowNotice {
    #[serde(default)]
    cancel: String,
}

pub async fn show(
    owner: Owner,
    req: HttpRequest,
    path: web::Path<String>,
    notice: web::Query<ShowNotice>,
) -> Result<HttpResponse, PageError> {
    let ctx = context(&req)?;
    let id = parse_id(&path, MessageId::parse)?;
    let org = owner.organization_id();
    let message = ctx.get_message.execute(org, &id).await?;
    let history = ctx.message_events.execute(org, &id).await?;
    let sent = ctx.access.sent_events(org, &id).await?;
    // As the API's message resource: the card is read only for a message the network priced.
    let estimated_cost = match &message.pricing {
        Some(pricing) => ctx.rate_cards.card(org).await?.estimate_pricing(pricing),
        None => None,
    };
    let body = html! {
        p { a href="/dashboard/messages" { "« Messages" } }
        h1 { "Message " code { (message.id) } }
        @if notice.cancel == "done" {
            p.flash role="status" id="cancel-notice" { "Cancelled: it will not be sent, and its quota count was given back." }
        } @else if notice.cancel == "refused" {
            @if matches!(message.status, MessageStatus::Scheduled | MessageStatus::Accepted) {
                p.error role="alert" id="cancel-notice" { "Too late to cancel: a dispatch worker has taken this message." }
            } @else {
                p.error role="alert" id="cancel-notice" {
                    "Not cancelled: the message is " (message.status.as_str())
                    "; only a scheduled or accepted message not yet taken by dispatch can be cancelled."
                }
            }
        }
        section.card {
            dl.facts {
                dt { "Status" } dd id="message-status" { (message_status_badge(&message)) }
                @if let Some(at) = message.send_at {
                    dt { "Send at" } dd id="message-send-at" { (view::time(at)) }
                }
                dt { "To" } dd { (message.to.as_str()) }
                dt { "From" } dd { (message.from.as_str()) }
                dt { "Type" } dd { (message.content.message_type().as_str()) }
                @if let Some(summary) = content_summary(&message.content) {
                    dt { "Content" } dd id="message-content" { (summary) }
                }
                @if let Some(target) = &message.reply_to {
                    dt { "Replies to" } dd id="message-reply-to" { code { (target.message) } }
                }
                @if let Some(broadcast) = message.broadcast_id {
                    dt { "Broadcast" } dd id="message-broadcast" { a href={ "/dashboard/broadcasts/" (broadcast) } { code { (broadcast) } } }
                }
                dt { "Reference" } dd { (message.client_reference.as_ref().map_or("—", |r| r.as_str())) }
                dt { "Network id" } dd { code { (message.network_message_id.as_deref().unwrap_or("—")) } }
                dt { "Pricing" } dd id="message-pricing" { (pricing(message.pricing.as_ref())) }
                dt { "Estimated cost" } dd id="message-estimated-cost" { (estimated(message.pricing.is_some(), estimated_cost.as_ref())) }
                dt { "Created" } dd { (view::time(message.created_at)) }
                dt { "Updated" } dd { (view::time(message.updated_at)) }
            }
            @if message.status == MessageStatus::Scheduled {
                form.actions method="post" action={ "/dashboard/messages/" (message.id) "/cancel" } {
                    (view::csrf_field(&owner))
                    button.danger type="submit" id="cancel-message" { "Cancel" }
                }
            }
        }
        @if let Some(error) = &message.error {
            section.card.error-card id="message-error" {
                h2 { "Error" }
                p { strong { (error.title) } " (" code { (error.code) } @if let Some(n) = error.network_code { ", network code " (n) } ")" }
                p { (error.detail) }
            }
        }
        section.card {
            h2 { "Status timeline" }
            ol.timeline id="timeline" {
                @for event in &history {
                    li class=(if event.applied { "applied" } else { "ignored" }) {
                        (status_badge(event.status)) " "
                        (view::time(event.occurred_at))
                        span.muted { " · from " (event.source.as_str()) @if !event.applied { " · not applied (out of order or repeated)" } }
                        @if let Some(error) = &event.error {
                            div.error { (error.title) ": " (error.detail) }
                        }
                    }
                }
            }
        }
        section.card {
            h2 { "Events sent to your webhooks" }
            @if sent.is_empty() {
                p.muted { "No events yet." }
            } @else {
                div.table {
                    table id="sent-events" {
                        thead { tr { th { "#" } th { "Event" } th { "When" } th { "Deliveries" } } }
                        tbody {
                            @for event in &sent {
                                tr {
                                    td { (event.sequence) }
                                    td { (event.event_type.as_str()) br; code.small { (event.event_id) } }
                                    td { (view::time(event.occurred_at)) }
                                    td {
                                        @if event.deliveries.is_empty() { span.muted { "no endpoint subscribed" } }
                                        @for d in &event.deliveries {
                                            div {
                                                a href={ "/dashboard/webhooks/" (d.endpoint_id) } { code.small { (d.endpoint_id) } }
                                                " " (crate::pages::webhooks::delivery_badge(d.status))
                                                span.muted { " " (d.attempts) " attempt(s)" }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    };
    Ok(view::owner_page(&owner, Section::Messages, "Message", body))
}

/// The Cancel button of a scheduled message: back to its page, which says how it went.
pub async fn cancel(
    req: HttpRequest,
    path: web::Path<String>,
    posted: Posted<PlainForm>,
) -> Result<HttpResponse, PageError> {
    let ctx = context(&req)?;
    let owner = posted.owner;
    let id = parse_id(&path, MessageId::parse)?;
    let outcome = match ctx.cancel_message.execute(owner.organization_id(), &id).await {
        Ok(_) => "done",
        Err(CancelError::NotCancellable(_)) => "refused",
        Err(CancelError::NotFound) => return Err(PageError::NotFound),
        Err(CancelError::Store(error)) => return Err(error.into()),
    };
    Ok(HttpResponse::SeeOther()
        .insert_header((LOCATION, format!("/dashboard/messages/{id}?cancel={outcome}")))
        .finish())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code fails loudly by design")]

    use super::Filters;

    fn filters(from: &str, until: &str) -> Filters {
        Filters {
            status: String::new(),
            to: String::new(),
            message_type: String::new(),
            from: from.to_owned(),
            until: until.to_owned(),
            before: String::new(),
            broadcast: String::new(),
        }
    }

    #[test]
    fn dates_at_the_edge_of_the_calendar_are_refused_not_panicked_on() {
        for date in [
            "+262143-12-31",
            "-262143-01-01",
            "9999-99-99",
            "0001-01-01",
            "10000-01-01",
        ] {
            let errors = filters(date, date).query().unwrap_err();
            assert_eq!(errors.len(), 2, "{date}: {errors:?}");
        }
        let query = filters("2026-11-23", "9999-12-31").query().unwrap();
        assert!(query.created_after.is_some() && query.created_before.is_some());
    }

    #[test]
    fn the_type_filter_takes_audio_and_stickers() {
        for kind in ["audio", "sticker"] {
            let mut filters = filters("", "");
            kind.clone_into(&mut filters.message_type);
            let query = filters.query().unwrap();
            assert_eq!(query.message_type.map(|t| t.as_str()), Some(kind));
        }
    }
}
