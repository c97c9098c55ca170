//! Webhook endpoints (create with the secret shown once, enable/disable, rotate, test) and their
//! deliveries with every attempt, with a redeliver button.

use crate::auth::{CsrfForm, Posted, context};
use crate::error::PageError;
use crate::pages::keys::PlainForm;
use crate::pages::parse_id;
use crate::session::Owner;
use crate::view::{self, Section};
use actix_web::http::header::LOCATION;
use actix_web::{HttpRequest, HttpResponse, web};
use herald_domain::customer_event::CustomerEventType;
use herald_domain::ids::{DeliveryId, WebhookId};
use herald_domain::usecases::EndpointPatch;
use herald_domain::webhook::{Delivery, DeliveryStatus, EventSelection, WebhookEndpoint, WebhookUrl};
use maud::{Markup, html};
use serde::Deserialize;
use std::collections::BTreeMap;

/// Deliveries per page of an endpoint.
const DELIVERIES_PER_PAGE: u32 = 25;

pub fn delivery_badge(status: DeliveryStatus) -> Markup {
    let tone = match status {
        DeliveryStatus::Succeeded => "ok",
        DeliveryStatus::Failed => "bad",
        DeliveryStatus::Pending => "neutral",
        DeliveryStatus::Skipped => "warn",
    };
    view::badge(status.as_str(), tone)
}

/// The form field of an event's box: `ev_` and the event's name with `_` for `.`.
fn event_field(kind: CustomerEventType) -> String {
    format!("ev_{}", kind.as_str().replace('.', "_"))
}

fn endpoint_state(endpoint: &WebhookEndpoint) -> Markup {
    html! {
        @if endpoint.enabled {
            (view::badge("enabled", "ok"))
        } @else {
            (view::badge("disabled", "bad"))
            @if let Some(reason) = &endpoint.disabled_reason { span.muted { " " (reason) } }
        }
    }
}

fn list_body(owner: &Owner, endpoints: &[WebhookEndpoint], notice: Markup) -> Markup {
    html! {
        h1 { "Webhooks" }
        (notice)
        section.card {
            h2 { "Add an endpoint" }
            form method="post" action="/dashboard/webhooks" {
                (view::csrf_field(owner))
                label { "URL" input type="url" name="url" id="webhook-url" required placeholder="https://example.com/herald-events"; }
                fieldset {
                    legend { "Events" }
                    @for kind in CustomerEventType::SUBSCRIBABLE {
                        label.check { input type="checkbox" name=(event_field(kind)) value="on" checked; " " (kind.as_str()) }
                    }
                }
                label { "Description (optional)" input type="text" name="description" maxlength="500"; }
                button type="submit" id="create-webhook" { "Add endpoint" }
            }
        }
        section.card {
            h2 { "Endpoints" }
            @if endpoints.is_empty() {
                p.muted { "No endpoints yet." }
            } @else {
                div.table {
                    table id="webhooks" {
                        thead { tr { th { "URL" } th { "Events" } th { "State" } th { "Created" } } }
                        tbody {
                            @for e in endpoints {
                                tr data-webhook-id=(e.id) {
                                    td { a href={ "/dashboard/webhooks/" (e.id) } { (e.url.as_str()) } }
                                    td { (e.events.names().join(", ")) }
                                    td { (endpoint_state(e)) }
                                    td { (view::time(e.created_at)) }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

pub async fn list(owner: Owner, req: HttpRequest) -> Result<HttpResponse, PageError> {
    let ctx = context(&req)?;
    let endpoints = ctx.webhooks.list(owner.organization_id()).await?;
    Ok(view::owner_page(
        &owner,
        Section::Webhooks,
        "Webhooks",
        list_body(&owner, &endpoints, html! {}),
    ))
}

#[derive(Deserialize)]
pub struct CreateForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    url: String,
    /// The ticked event boxes (`ev_message_status=on`, …), beside the named fields.
    #[serde(flatten)]
    ticked: BTreeMap<String, String>,
    #[serde(default)]
    description: String,
}

impl CsrfForm for CreateForm {
    fn csrf(&self) -> &str {
        &self.csrf
    }
}

pub async fn create(req: HttpRequest, posted: Posted<CreateForm>) -> Result<HttpResponse, PageError> {
    let ctx = context(&req)?;
    let Posted { owner, form } = posted;
    let url =
        WebhookUrl::parse(form.url.trim()).map_err(|e| PageError::BadRequest(format!("URL: {}", e.0)))?;
    let names: Vec<&str> = CustomerEventType::SUBSCRIBABLE
        .into_iter()
        .filter(|kind| form.ticked.contains_key(&event_field(*kind)))
        .map(CustomerEventType::as_str)
        .collect();
    if names.is_empty() {
        return Err(PageError::BadRequest("Events: pick at least one.".to_owned()));
    }
    let events =
        EventSelection::parse(&names).map_err(|e| PageError::BadRequest(format!("Events: {}", e.0)))?;
    let description = Some(form.description.trim().to_owned()).filter(|d| !d.is_empty());
    let (endpoint, secret) = ctx
        .webhooks
        .create(
            owner.organization_id(),
            &owner.0.plan,
            url,
            Some(events),
            description,
        )
        .await?;
    tracing::info!(organization = %owner.organization_id(), endpoint = %endpoint.id, "webhook endpoint created in the dashboard");
    let endpoints = ctx.webhooks.list(owner.organization_id()).await?;
    let notice = view::secret_once(
        "The endpoint's signing secret",
        "new-secret",
        &secret,
        "Your server verifies every event's signature with it.",
    );
    Ok(view::owner_page(
        &owner,
        Section::Webhooks,
        "Webhooks",
        list_body(&owner, &endpoints, notice),
    ))
}

#[derive(Deserialize)]
pub struct DeliveriesQuery {
    before: Option<String>,
    done: Option<String>,
}

fn attempts_of(delivery: &Delivery) -> Markup {
    html! {
        @if delivery.attempts.is_empty() {
            span.muted { "no attempt yet" }
        } @else {
            ol.attempts {
                @for a in &delivery.attempts {
                    li {
                        "#" (a.number) " " (view::time(a.at)) " · "
                        @match a.status_code { Some(code) => { "HTTP " (code) }, None => { "no answer" } }
                        @if let Some(kind) = &a.error_kind { " · " span.error { (kind) } }
                        " · " (a.duration_ms) " ms"
                    }
                }
            }
        }
    }
}

pub async fn show(
    owner: Owner,
    req: HttpRequest,
    path: web::Path<String>,
    query: web::Query<DeliveriesQuery>,
) -> Result<HttpResponse, PageError> {
    let ctx = context(&req)?;
    let id = parse_id(&path, WebhookId::parse)?;
    let org = owner.organization_id();
    let endpoint = ctx.webhooks.get(org, &id).await?;
    let before = match &query.before {
        Some(b) if !b.is_empty() => Some(
            DeliveryId::parse(b)
                .map_err(|_| PageError::BadRequest("The page link is not valid.".to_owned()))?,
        ),
        _ => None,
    };
    let deliveries = ctx
        .webhooks
        .deliveries(org, &id, None, before, DELIVERIES_PER_PAGE)
        .await?;
    let notice = match query.done.as_deref() {
        Some("enabled") => Some("The endpoint is enabled."),
        Some("disabled") => Some("The endpoint is disabled: its events are kept as skipped deliveries."),
        Some("test") => Some("A webhook.test event is queued to this endpoint."),
        Some("redeliver") => Some("The delivery is queued again."),
        _ => None,
    };
    let action = |what: &str| format!("/dashboard/webhooks/{}/{what}", endpoint.id);
    let body = html! {
        p { a href="/dashboard/webhooks" { "« Webhooks" } }
        h1 { "Endpoint" }
        (view::flash(notice))
        section.card {
            dl.facts {
                dt { "URL" } dd { code { (endpoint.url.as_str()) } }
                dt { "Id" } dd { code { (endpoint.id) } }
                dt { "Events" } dd { (endpoint.events.names().join(", ")) }
                dt { "State" } dd id="webhook-state" { (endpoint_state(&endpoint)) }
                dt { "Description" } dd { (endpoint.description.as_deref().unwrap_or("—")) }
                dt { "Secret" } dd { span.muted { "shown only when created or rotated" } }
                dt { "Created" } dd { (view::time(endpoint.created_at)) }
            }
            div.actions {
                @if endpoint.enabled {
                    form method="post" action=(action("disable")) { (view::csrf_field(&owner)) button type="submit" id="disable-webhook" { "Disable" } }
                } @else {
                    form method="post" action=(action("enable")) { (view::csrf_field(&owner)) button type="submit" id="enable-webhook" { "Enable" } }
                }
                form method="post" action=(action("rotate")) { (view::csrf_field(&owner)) button type="submit" id="rotate-webhook" { "Rotate secret" } }
                form method="post" action=(action("test")) { (view::csrf_field(&owner)) button type="submit" id="test-webhook" { "Send a test event" } }
            }
        }
        section.card {
            h2 { "Deliveries" }
            @if deliveries.is_empty() {
                p.muted { "No deliveries yet." }
            } @else {
                div.table {
                    table id="deliveries" {
                        thead { tr { th { "Event" } th { "Status" } th { "Attempts" } th { "Next attempt" } th {} } }
                        tbody {
                            @for d in &deliveries {
                                tr data-delivery-id=(d.id) {
                                    td { (d.event_type.as_str()) br; code.small { (d.event_id) } br; (view::time(d.created_at)) }
                                    td { (delivery_badge(d.status)) }
                                    td { (attempts_of(d)) }
                                    td { @if let Some(at) = d.next_attempt_at { (view::time(at)) } @else { span.muted { "—" } } }
                                    td {
                                        form method="post" action=(action(&format!("deliveries/{}/redeliver", d.id))) {
                                            (view::csrf_field(&owner))
                                            button type="submit" { "Redeliver" }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                @if deliveries.len() == DELIVERIES_PER_PAGE as usize {
                    @if let Some(last) = deliveries.last() {
                        nav.pager { a.button href={ "/dashboard/webhooks/" (endpoint.id) "?before=" (last.id) } { "Older »" } }
                    }
                }
            }
        }
    };
    Ok(view::owner_page(&owner, Section::Webhooks, "Endpoint", body))
}

fn back_to(endpoint: &WebhookId, done: &str) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((LOCATION, format!("/dashboard/webhooks/{endpoint}?done={done}")))
        .finish()
}

async fn set_enabled(
    req: HttpRequest,
    path: web::Path<String>,
    owner: Owner,
    enabled: bool,
) -> Result<HttpResponse, PageError> {
    let ctx = context(&req)?;
    let id = parse_id(&path, WebhookId::parse)?;
    let patch = EndpointPatch {
        enabled: Some(enabled),
        ..EndpointPatch::default()
    };
    ctx.webhooks.update(owner.organization_id(), &id, patch).await?;
    Ok(back_to(&id, if enabled { "enabled" } else { "disabled" }))
}

pub async fn enable(
    req: HttpRequest,
    path: web::Path<String>,
    posted: Posted<PlainForm>,
) -> Result<HttpResponse, PageError> {
    set_enabled(req, path, posted.owner, true).await
}

pub async fn disable(
    req: HttpRequest,
    path: web::Path<String>,
    posted: Posted<PlainForm>,
) -> Result<HttpResponse, PageError> {
    set_enabled(req, path, posted.owner, false).await
}

pub async fn rotate(
    req: HttpRequest,
    path: web::Path<String>,
    posted: Posted<PlainForm>,
) -> Result<HttpResponse, PageError> {
    let ctx = context(&req)?;
    let owner = posted.owner;
    let id = parse_id(&path, WebhookId::parse)?;
    let (endpoint, secret) = ctx.webhooks.rotate_secret(owner.organization_id(), &id).await?;
    tracing::info!(organization = %owner.organization_id(), endpoint = %endpoint.id, "webhook secret rotated in the dashboard");
    let body = html! {
        p { a href={ "/dashboard/webhooks/" (endpoint.id) } { "« Back to the endpoint" } }
        h1 { "Secret rotated" }
        (view::secret_once(
            "The endpoint's new signing secret",
            "new-secret",
            &secret,
            "The previous secret keeps signing too for 24 hours, so you can switch without losing events.",
        ))
    };
    Ok(view::owner_page(
        &owner,
        Section::Webhooks,
        "Secret rotated",
        body,
    ))
}

pub async fn test(
    req: HttpRequest,
    path: web::Path<String>,
    posted: Posted<PlainForm>,
) -> Result<HttpResponse, PageError> {
    let ctx = context(&req)?;
    let id = parse_id(&path, WebhookId::parse)?;
    ctx.webhooks
        .send_test(posted.owner.organization_id(), &id)
        .await?;
    Ok(back_to(&id, "test"))
}

pub async fn redeliver(
    req: HttpRequest,
    path: web::Path<(String, String)>,
    posted: Posted<PlainForm>,
) -> Result<HttpResponse, PageError> {
    let ctx = context(&req)?;
    let (endpoint, delivery) = path.into_inner();
    let id = parse_id(&endpoint, WebhookId::parse)?;
    let delivery = parse_id(&delivery, DeliveryId::parse)?;
    ctx.webhooks
        .redeliver(posted.owner.organization_id(), &id, &delivery)
        .await?;
    Ok(back_to(&id, "redeliver"))
}
