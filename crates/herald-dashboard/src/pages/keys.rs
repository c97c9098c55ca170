//! API keys: the list, creating one (shown once), disabling one (after a confirmation).

use crate::auth::{CsrfForm, Posted};
use crate::error::PageError;
use crate::pages::parse_id;
use crate::session::Owner;
use crate::view::{self, Section};
use actix_web::http::header::LOCATION;
use actix_web::{HttpRequest, HttpResponse, web};
use herald_domain::api_key::{ApiKeyRecord, ApiKeyStatus};
use herald_domain::ids::ApiKeyId;
use herald_domain::values::DisplayName;
use maud::{Markup, html};
use serde::Deserialize;

#[derive(Deserialize)]
pub struct Flash {
    disabled: Option<String>,
}

fn keys_body(owner: &Owner, keys: &[ApiKeyRecord], notice: Markup) -> Markup {
    html! {
        h1 { "API keys" }
        (notice)
        section.card {
            h2 { "Create a key" }
            form.inline method="post" action="/dashboard/keys" {
                (view::csrf_field(owner))
                label { "Name (optional)" input type="text" name="name" id="key-name" maxlength="200" placeholder="e.g. production server"; }
                button type="submit" id="create-key" { "Create key" }
            }
        }
        section.card {
            h2 { "Your keys" }
            @if keys.is_empty() {
                p.muted { "No keys yet." }
            } @else {
                div.table {
                    table id="keys" {
                        thead { tr { th { "Name" } th { "Key" } th { "Created" } th { "Last used" } th { "Status" } th {} } }
                        tbody {
                            @for key in keys.iter().rev() {
                                tr data-key-id=(key.id) {
                                    td { (key.name.as_ref().map_or("—", DisplayName::as_str)) }
                                    td { code { (key.prefix) "…" } }
                                    td { (view::time(key.created_at)) }
                                    td { (view::optional_time(key.last_used_at)) }
                                    td {
                                        @match key.status {
                                            ApiKeyStatus::Active => (view::badge("active", "ok")),
                                            ApiKeyStatus::Disabled => (view::badge("disabled", "bad")),
                                        }
                                    }
                                    td {
                                        @if key.status == ApiKeyStatus::Active {
                                            a.button.danger href={ "/dashboard/keys/" (key.id) "/disable" } { "Disable…" }
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
}

pub async fn list(
    owner: Owner,
    req: HttpRequest,
    flash: web::Query<Flash>,
) -> Result<HttpResponse, PageError> {
    let ctx = crate::auth::context(&req)?;
    let keys = ctx.admin.list_keys(owner.organization_id()).await?;
    let notice = view::flash(
        flash
            .disabled
            .as_ref()
            .map(|_| "The key is disabled: the API refuses it within a second."),
    );
    Ok(view::owner_page(
        &owner,
        Section::Keys,
        "API keys",
        keys_body(&owner, &keys, notice),
    ))
}

#[derive(Deserialize)]
pub struct CreateForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    name: String,
}

impl CsrfForm for CreateForm {
    fn csrf(&self) -> &str {
        &self.csrf
    }
}

pub async fn create(req: HttpRequest, posted: Posted<CreateForm>) -> Result<HttpResponse, PageError> {
    let ctx = crate::auth::context(&req)?;
    let Posted { owner, form } = posted;
    let name = match form.name.trim() {
        "" => None,
        name => Some(DisplayName::parse(name).map_err(|e| PageError::BadRequest(format!("Name: {}", e.0)))?),
    };
    let (record, key) = ctx.admin.create_key(owner.organization_id(), name).await?;
    tracing::info!(organization = %owner.organization_id(), key = %record.id, "API key created in the dashboard");
    let keys = ctx.admin.list_keys(owner.organization_id()).await?;
    let notice = view::secret_once(
        "Your new API key",
        "new-key",
        key.expose(),
        "Send it in the Authorization header as a Bearer token; Herald keeps only its digest.",
    );
    Ok(view::owner_page(
        &owner,
        Section::Keys,
        "API keys",
        keys_body(&owner, &keys, notice),
    ))
}

async fn owned_key(owner: &Owner, req: &HttpRequest, id: &str) -> Result<ApiKeyRecord, PageError> {
    let ctx = crate::auth::context(req)?;
    let id = parse_id(id, ApiKeyId::parse)?;
    ctx.admin
        .list_keys(owner.organization_id())
        .await?
        .into_iter()
        .find(|k| k.id == id)
        .ok_or(PageError::NotFound)
}

pub async fn confirm_disable(
    owner: Owner,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    let key = owned_key(&owner, &req, &path).await?;
    let body = html! {
        section.card.narrow {
            h1 { "Disable this key?" }
            p {
                "Key " code { (key.prefix) "…" }
                @if let Some(name) = &key.name { " (" (name.as_str()) ")" }
                " will be refused by the API within a second. This cannot be undone: make a new key instead."
            }
            form method="post" action={ "/dashboard/keys/" (key.id) "/disable" } {
                (view::csrf_field(&owner))
                button.danger type="submit" id="confirm-disable" { "Disable key" }
                " "
                a.button href="/dashboard/keys" { "Cancel" }
            }
        }
    };
    Ok(view::owner_page(&owner, Section::Keys, "Disable key", body))
}

#[derive(Deserialize)]
pub struct PlainForm {
    #[serde(default)]
    csrf: String,
}

impl CsrfForm for PlainForm {
    fn csrf(&self) -> &str {
        &self.csrf
    }
}

pub async fn disable(
    req: HttpRequest,
    path: web::Path<String>,
    posted: Posted<PlainForm>,
) -> Result<HttpResponse, PageError> {
    let ctx = crate::auth::context(&req)?;
    let owner = posted.owner;
    let id = parse_id(&path, ApiKeyId::parse)?;
    let key = ctx.admin.disable_key_of(owner.organization_id(), &id).await?;
    tracing::info!(organization = %owner.organization_id(), key = %key.id, "API key disabled in the dashboard");
    Ok(HttpResponse::SeeOther()
        .insert_header((LOCATION, format!("/dashboard/keys?disabled={}", key.id)))
        .finish())
}
