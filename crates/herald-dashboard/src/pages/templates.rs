//! Templates as Herald last synced them from the network: status (with a rejection's reason), quality,
//! category and what a send must fill; one template's whole copy; and a button that syncs now instead of
//! waiting for the periodic sync.

use crate::auth::{Posted, context};
use crate::error::PageError;
use crate::pages::account::quality_badge;
use crate::pages::keys::PlainForm;
use crate::session::Owner;
use crate::view::{self, Section};
use actix_web::http::header::LOCATION;
use actix_web::{HttpRequest, HttpResponse, web};
use herald_domain::network::QualityScore;
use herald_domain::ports::TemplateQuery;
use herald_domain::template::{BodySpec, HeaderSpec, LanguageCode, Template, TemplateName, TemplateStatus};
use herald_domain::usecases::SyncError;
use maud::{Markup, html};
use serde::Deserialize;

/// The statuses offered by the filter: the network's review states an owner looks for.
const STATUSES: [&str; 6] = [
    "APPROVED",
    "PENDING",
    "REJECTED",
    "PAUSED",
    "DISABLED",
    "IN_APPEAL",
];

#[derive(Debug, Default, Deserialize)]
pub struct ListQuery {
    #[serde(default)]
    status: String,
    /// Set by the sync button's redirect: how many templates the sync copied.
    synced: Option<usize>,
}

pub fn status_badge(status: &TemplateStatus) -> Markup {
    let tone = match status.as_str() {
        "APPROVED" => "ok",
        "PENDING" | "IN_APPEAL" | "PENDING_DELETION" => "neutral",
        "PAUSED" | "FLAGGED" | "LIMIT_EXCEEDED" => "warn",
        _ => "bad",
    };
    view::badge(status.as_str(), tone)
}

fn header_summary(header: &HeaderSpec) -> String {
    match header {
        HeaderSpec::None => "none".to_owned(),
        HeaderSpec::Text => "text, 1 parameter".to_owned(),
        HeaderSpec::NamedText(name) => format!("text, parameter {}", name.as_str()),
        HeaderSpec::Media(kind) => kind.as_str().to_owned(),
        HeaderSpec::Location => "location".to_owned(),
    }
}

fn body_summary(body: &BodySpec) -> String {
    match body {
        BodySpec::Positional(0) => "no parameter".to_owned(),
        BodySpec::Positional(1) => "1 parameter".to_owned(),
        BodySpec::Positional(n) => format!("{n} parameters"),
        BodySpec::Named(names) if names.is_empty() => "no parameter".to_owned(),
        BodySpec::Named(names) => names
            .iter()
            .map(|n| format!("{{{{{}}}}}", n.as_str()))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

fn template_path(t: &Template) -> String {
    format!("/dashboard/templates/{}/{}", t.name, t.language)
}

fn list_body(owner: &Owner, templates: &[Template], query: &ListQuery) -> Markup {
    html! {
        h1 { "Templates" }
        @if let Some(count) = query.synced {
            (view::flash(Some(&format!("Synced from the network: {count} templates."))))
        }
        section.card {
            form.filters method="get" action="/dashboard/templates" {
                label { "Status"
                    select name="status" id="filter-status" {
                        option value="" { "any" }
                        @for s in STATUSES {
                            option value=(s) selected[query.status == s] { (s) }
                        }
                    }
                }
                button type="submit" { "Filter" }
            }
            form method="post" action="/dashboard/templates/sync" {
                (view::csrf_field(owner))
                button type="submit" id="sync-templates" { "Sync from the network now" }
            }
        }
        section.card {
            @if templates.is_empty() {
                p.muted { "No templates. Create them with POST /api/v1/templates, or in Meta's manager, then sync." }
            } @else {
                div.table {
                    table id="templates" {
                        thead { tr { th { "Name" } th { "Language" } th { "Category" } th { "Status" } th { "Quality" } th { "Header" } th { "Body" } th { "Buttons" } th { "Synced" } } }
                        tbody {
                            @for t in templates {
                                tr data-template=(format!("{}/{}", t.name, t.language)) {
                                    td { a href=(template_path(t)) { (t.name.as_str()) } }
                                    td { (t.language.as_str()) }
                                    td { (t.category) }
                                    td { (status_badge(&t.status))
                                        @if let Some(reason) = &t.health.rejected_reason { br; span.muted.rejected-reason { (reason) } } }
                                    td { (quality_badge(t.health.quality.as_ref().map(QualityScore::as_str))) }
                                    td { (header_summary(&t.structure.header)) }
                                    td { (body_summary(&t.structure.body)) }
                                    td { (t.structure.buttons.len()) }
                                    td { (view::time(t.synced_at)) }
                                }
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
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, PageError> {
    let ctx = context(&req)?;
    let query = query.into_inner();
    let status = Some(query.status.trim())
        .filter(|s| !s.is_empty())
        .map(|s| {
            TemplateStatus::parse(s)
                .map(|s| s.as_str().to_owned())
                .map_err(|_| PageError::BadRequest("Status: pick one from the list.".to_owned()))
        })
        .transpose()?;
    let templates = ctx
        .templates
        .execute(owner.organization_id(), &TemplateQuery { status, name: None })
        .await?;
    Ok(view::owner_page(
        &owner,
        Section::Templates,
        "Templates",
        list_body(&owner, &templates, &query),
    ))
}

pub async fn show(
    owner: Owner,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, PageError> {
    let ctx = context(&req)?;
    let (name, language) = path.into_inner();
    // A malformed name or language names no template the owner has.
    let name = TemplateName::parse(&name).map_err(|_| PageError::NotFound)?;
    let language = LanguageCode::parse(&language).map_err(|_| PageError::NotFound)?;
    let template = ctx
        .templates
        .one(owner.organization_id(), &name, &language)
        .await?
        .ok_or(PageError::NotFound)?;
    let t = &template;
    let body = html! {
        p { a href="/dashboard/templates" { "← Templates" } }
        h1 { (t.name.as_str()) " (" (t.language.as_str()) ")" }
        section.card {
            dl.facts {
                dt { "Status" } dd id="template-status" { (status_badge(&t.status)) }
                dt { "Category" } dd id="template-category" { (t.category) }
                dt { "Quality" } dd id="template-quality" { (quality_badge(t.health.quality.as_ref().map(QualityScore::as_str))) }
                @if let Some(reason) = &t.health.rejected_reason {
                    dt { "Rejected because" } dd id="template-rejected-reason" { (reason) }
                }
                dt { "Last changed" } dd { (view::optional_time(t.health.updated_at)) }
                dt { "Business account" } dd { code { (t.waba_id.as_str()) } }
                dt { "Network id" } dd { @match &t.network_id { Some(id) => code { (id) }, None => span.muted { "not known" } } }
                dt { "Synced" } dd { (view::time(t.synced_at)) }
            }
        }
        section.card {
            h2 { "What a send fills" }
            dl.facts {
                dt { "Header" } dd id="template-header" { (header_summary(&t.structure.header)) }
                dt { "Body" } dd id="template-body" { (body_summary(&t.structure.body)) }
                @if let Some(offer) = &t.structure.offer {
                    dt { "Limited-time offer" } dd id="template-offer" { @if offer.has_expiration { "expiration time" } @else { "no expiration" } }
                }
                @if !t.structure.cards.is_empty() {
                    dt { "Carousel" } dd {
                        ol id="template-cards" start="0" {
                            @for card in &t.structure.cards {
                                li { (card.header.as_str()) " header · body " (body_summary(&card.body)) " · " (card.buttons.len()) " buttons" }
                            }
                        }
                    }
                }
                dt { "Buttons" } dd {
                    @if t.structure.buttons.is_empty() {
                        span.muted { "none" }
                    } @else {
                        ol id="template-buttons" start="0" {
                            @for b in &t.structure.buttons {
                                li { (b.kind.sub_type()) @if b.parameters > 0 { ", " (b.parameters) " parameter" @if b.parameters > 1 { "s" } } }
                            }
                        }
                    }
                }
            }
        }
    };
    Ok(view::owner_page(
        &owner,
        Section::Templates,
        t.name.as_str(),
        body,
    ))
}

/// Syncs the organization's templates now. A network failure is the owner's to see (a token problem, the
/// network down), so it is shown as a bad request with the network's reason, never as an internal error.
pub async fn sync(req: HttpRequest, posted: Posted<PlainForm>) -> Result<HttpResponse, PageError> {
    let ctx = context(&req)?;
    let owner = posted.owner;
    let report = ctx
        .sync_templates
        .sync_organization(owner.organization_id())
        .await
        .map_err(|e| match e {
            SyncError::Network(e) => {
                PageError::BadRequest(format!("The network did not list the templates: {e}"))
            }
            SyncError::Store(e) => PageError::from(e),
        })?;
    tracing::info!(organization = %owner.organization_id(), templates = report.templates, "templates synced from the dashboard");
    Ok(HttpResponse::SeeOther()
        .insert_header((
            LOCATION,
            format!("/dashboard/templates?synced={}", report.templates),
        ))
        .finish())
}
