//! Erasing a person (docs/api.md §7.2) from the dashboard: the owner names them on one page, confirms on a
//! second by typing the number or user id again and ticking that it cannot be undone, and then the same
//! `ErasePerson` use case as `DELETE /api/v1/contacts/{recipient}` runs, with the same answers (erased,
//! nobody by that id, an invalid id).
//!
//! Both steps are POSTed forms, so the person's number never lands in a URL (the browser's history, an access
//! log, a `Referer`); the review step changes nothing, the erase step is CSRF-checked like every form.

use crate::auth::{CsrfForm, Posted};
use crate::error::PageError;
use crate::session::Owner;
use crate::view::{self, Section};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse};
use herald_domain::contact::Recipient;
use herald_domain::usecases::{EraseError, Erased};
use maud::{Markup, html};
use serde::Deserialize;

/// The value of the "I understand" checkbox; its absence leaves the form unconfirmed.
const UNDERSTOOD: &str = "yes";

/// What an erasure removes and keeps, in short (docs/api.md §7.2 has the whole table).
fn what_happens() -> Markup {
    html! {
        ul {
            li { "Their queued messages are cancelled first (the quota is given back)." }
            li { "The content of every message to and from them, their contact (marketing preference, block, user id), their service windows, the payloads of the events about them and their files are erased." }
            li { "Ids, times, statuses and pricing are kept, under a marker instead of their number, so billing and statistics still add up." }
        }
    }
}

/// The page of an erasure step, with the owner's navigation.
fn erase_page(owner: &Owner, status: StatusCode, title: &str, body: Markup) -> HttpResponse {
    view::page(status, Some((owner, Section::Privacy)), title, body)
}

/// The first step: who to erase. `error` is the reason the last attempt was refused.
fn name_form(owner: &Owner, recipient: &str, error: Option<&str>) -> Markup {
    html! {
        h1 { "Erase a person" }
        section.card {
            p { "Erase what Herald holds about one person when they ask you to (or your privacy duties require it)." }
            (what_happens())
            @if let Some(error) = error {
                p.error role="alert" id="erase-error" { (error) }
            }
            form.inline method="post" action="/dashboard/erase/review" {
                (view::csrf_field(owner))
                label {
                    "Their number (E.164, e.g. +15551234567) or business-scoped user id"
                    input type="text" name="recipient" id="erase-recipient" value=(recipient) maxlength="128" autocomplete="off" required;
                }
                button type="submit" id="erase-review" { "Review…" }
            }
        }
    }
}

/// The second step: the confirmation, which needs the id typed again and the box ticked.
fn confirm_form(owner: &Owner, recipient: &Recipient, error: Option<&str>) -> Markup {
    html! {
        section.card.error-card {
            h1 { "Erase " code id="erase-person" { (recipient.as_str()) } "?" }
            (what_happens())
            p { strong { "This cannot be undone." } }
            @if let Some(error) = error {
                p.error role="alert" id="confirm-error" { (error) }
            }
            form method="post" action="/dashboard/erase" {
                (view::csrf_field(owner))
                input type="hidden" name="recipient" value=(recipient.as_str());
                label {
                    "Type the number or user id again to confirm"
                    input type="text" name="confirmation" id="erase-confirmation" maxlength="128" autocomplete="off" required;
                }
                label.check {
                    input type="checkbox" name="understood" id="erase-understood" value=(UNDERSTOOD) required;
                    " I understand that this person's content is erased for good"
                }
                div.actions {
                    button.danger type="submit" id="erase-confirm" { "Erase this person" }
                    a.button href="/dashboard/erase" { "Cancel" }
                }
            }
        }
    }
}

fn result_card(erased: &Erased) -> Markup {
    html! {
        h1 { "Erased" }
        section.card id="erase-result" role="status" {
            p.flash { "The person is erased. Their kept rows now read " code id="erased-marker" { (erased.marker.as_str()) } "." }
            dl.facts {
                dt { "Queued messages cancelled" } dd id="erased-cancelled" { (erased.cancelled) }
                dt { "Messages erased" } dd id="erased-messages" { (erased.messages) }
                dt { "Received messages erased" } dd id="erased-inbound" { (erased.inbound) }
                dt { "Files removed" } dd id="erased-files" { (erased.files) }
            }
            p.muted { "Erasing them again finds nothing new. A " code { "contact.erased" } " event went to your webhooks the first time." }
            p { a.button href="/dashboard/erase" { "Erase someone else" } }
        }
    }
}

/// `GET /dashboard/erase`: the first step.
pub async fn form(owner: Owner) -> HttpResponse {
    erase_page(
        &owner,
        StatusCode::OK,
        "Erase a person",
        name_form(&owner, "", None),
    )
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReviewForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    recipient: String,
}

impl CsrfForm for ReviewForm {
    fn csrf(&self) -> &str {
        &self.csrf
    }
}

/// `POST /dashboard/erase/review`: checks the id and shows the confirmation; changes nothing.
pub async fn review(posted: Posted<ReviewForm>) -> HttpResponse {
    let Posted { owner, form } = posted;
    match Recipient::parse(form.recipient.trim()) {
        Ok(recipient) => erase_page(
            &owner,
            StatusCode::OK,
            "Erase a person?",
            confirm_form(&owner, &recipient, None),
        ),
        Err(invalid) => erase_page(
            &owner,
            StatusCode::BAD_REQUEST,
            "Erase a person",
            name_form(&owner, form.recipient.trim(), Some(&invalid.0)),
        ),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EraseForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    recipient: String,
    #[serde(default)]
    confirmation: String,
    #[serde(default)]
    understood: String,
}

impl CsrfForm for EraseForm {
    fn csrf(&self) -> &str {
        &self.csrf
    }
}

/// `POST /dashboard/erase`: erases the person once the confirmation names the same one and the box is ticked.
pub async fn erase(req: HttpRequest, posted: Posted<EraseForm>) -> Result<HttpResponse, PageError> {
    let ctx = crate::auth::context(&req)?;
    let Posted { owner, form } = posted;
    let recipient = match Recipient::parse(form.recipient.trim()) {
        Ok(recipient) => recipient,
        Err(invalid) => {
            return Ok(erase_page(
                &owner,
                StatusCode::BAD_REQUEST,
                "Erase a person",
                name_form(&owner, form.recipient.trim(), Some(&invalid.0)),
            ));
        }
    };
    let refusal = if Recipient::parse(form.confirmation.trim()).ok().as_ref() != Some(&recipient) {
        Some("The number or user id typed again is not the same: nothing was erased.")
    } else if form.understood != UNDERSTOOD {
        Some("Tick the box to confirm that the erasure cannot be undone: nothing was erased.")
    } else {
        None
    };
    if let Some(refusal) = refusal {
        return Ok(erase_page(
            &owner,
            StatusCode::BAD_REQUEST,
            "Erase a person?",
            confirm_form(&owner, &recipient, Some(refusal)),
        ));
    }
    match ctx.erase.erase(owner.organization_id(), &recipient).await {
        Ok(erased) => {
            // The marker only: the number is what is being erased.
            tracing::info!(organization = %owner.organization_id(), erased = %erased.marker.as_str(), "a person erased in the dashboard");
            Ok(erase_page(&owner, StatusCode::OK, "Erased", result_card(&erased)))
        }
        Err(EraseError::NotFound) => Ok(erase_page(
            &owner,
            StatusCode::NOT_FOUND,
            "Nobody to erase",
            name_form(
                &owner,
                "",
                Some(
                    "Nobody by that number or user id: no message, contact or erasure names them. Nothing was erased.",
                ),
            ),
        )),
        Err(EraseError::Busy) => Ok(erase_page(
            &owner,
            StatusCode::SERVICE_UNAVAILABLE,
            "Erase a person?",
            confirm_form(
                &owner,
                &recipient,
                Some(
                    "New messages to this person kept being queued while erasing: their content is not erased yet (queued messages may have been cancelled). Try again.",
                ),
            ),
        )),
        Err(EraseError::Store(error)) => Err(error.into()),
    }
}
