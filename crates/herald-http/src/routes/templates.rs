//! `GET /api/v1/templates`, `GET /api/v1/templates/{name}/{language}`, `POST /api/v1/templates/sync`.

use crate::auth::Caller;
use crate::context::ApiContext;
use crate::error::{ApiError, HandlerResult, Problem};
use crate::responses::{KeyedResponses, ReadResponses, WriteResponses};
use actix_web::{HttpResponse, web};
use herald_domain::ports::TemplateQuery;
use herald_domain::template::{BodySpec, HeaderSpec, LanguageCode, Template, TemplateName};
use herald_domain::usecases::SyncError;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// A template as last synced from the network, with what a send must fill.
#[derive(Debug, Serialize, ToSchema)]
pub struct TemplateResource {
    pub name: String,
    pub language: String,
    /// The network's status: `APPROVED`, `PENDING`, `REJECTED`, `PAUSED`, `DISABLED`, …
    pub status: String,
    pub category: String,
    pub header: TemplateHeaderResource,
    pub body: TemplateBodyResource,
    pub buttons: Vec<TemplateButtonResource>,
    #[schema(format = DateTime)]
    pub synced_at: String,
    /// The network's quality rating: `GREEN`, `YELLOW`, `RED` or `UNKNOWN`; `null` until rated.
    #[schema(example = "GREEN")]
    pub quality: Option<String>,
    /// Why the network rejected it (`INVALID_FORMAT`, …); `null` unless `REJECTED`.
    pub rejected_reason: Option<String>,
    /// When Herald's copy last changed (a sync that found it changed, or a template event).
    #[schema(format = DateTime)]
    pub updated_at: Option<String>,
}

/// The header's format and whether a send supplies a parameter for it.
#[derive(Debug, Serialize, ToSchema)]
pub struct TemplateHeaderResource {
    /// `none`, `text`, `image`, `video`, `document` or `location`.
    pub format: String,
    /// Values a send supplies: 1 for a text header with a variable or a media header, else 0.
    pub parameters: u8,
}

/// The body's variables.
#[derive(Debug, Serialize, ToSchema)]
pub struct TemplateBodyResource {
    /// `positional` (`{{1}}`…) or `named` (`{{customer}}`).
    pub parameter_format: String,
    pub parameters: usize,
    /// The parameter names of a named template, in the template's order.
    pub names: Vec<String>,
}

/// A button and what a send gives it.
#[derive(Debug, Serialize, ToSchema)]
pub struct TemplateButtonResource {
    pub index: u8,
    /// `url`, `quick_reply`, `copy_code`, `flow` or `static`.
    pub sub_type: String,
    pub parameters: u8,
}

/// `{ "data": [...] }`
#[derive(Debug, Serialize, ToSchema)]
pub struct TemplateListResource {
    pub data: Vec<TemplateResource>,
}

/// The outcome of a sync.
#[derive(Debug, Serialize, ToSchema)]
pub struct TemplateSyncResource {
    pub business_accounts: usize,
    pub templates: usize,
}

/// Filters of the template listing.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TemplateListQuery {
    /// Only templates in this status (e.g. `APPROVED`).
    pub status: Option<String>,
    /// Only templates of this name.
    pub name: Option<String>,
}

impl From<&Template> for TemplateResource {
    fn from(template: &Template) -> Self {
        let structure = &template.structure;
        let header = match &structure.header {
            HeaderSpec::None => TemplateHeaderResource {
                format: "none".into(),
                parameters: 0,
            },
            // The variable's name is in the definition; the resource says only that one text value is due.
            HeaderSpec::Text | HeaderSpec::NamedText(_) => TemplateHeaderResource {
                format: "text".into(),
                parameters: 1,
            },
            HeaderSpec::Media(kind) => TemplateHeaderResource {
                format: kind.as_str().into(),
                parameters: 1,
            },
            HeaderSpec::Location => TemplateHeaderResource {
                format: "location".into(),
                parameters: 1,
            },
        };
        let body = match &structure.body {
            BodySpec::Positional(count) => TemplateBodyResource {
                parameter_format: "positional".into(),
                parameters: *count,
                names: Vec::new(),
            },
            BodySpec::Named(names) => TemplateBodyResource {
                parameter_format: "named".into(),
                parameters: names.len(),
                names: names.iter().map(|n| n.as_str().to_owned()).collect(),
            },
        };
        Self {
            name: template.name.as_str().to_owned(),
            language: template.language.as_str().to_owned(),
            status: template.status.as_str().to_owned(),
            category: template.category.clone(),
            header,
            body,
            buttons: structure
                .buttons
                .iter()
                .map(|b| TemplateButtonResource {
                    index: b.index,
                    sub_type: b.kind.sub_type().to_owned(),
                    parameters: b.parameters,
                })
                .collect(),
            synced_at: crate::dto::time(template.synced_at),
            quality: template.health.quality.as_ref().map(|q| q.as_str().to_owned()),
            rejected_reason: template.health.rejected_reason.clone(),
            updated_at: template.health.updated_at.map(crate::dto::time),
        }
    }
}

/// The organization's templates as last synced from the network.
#[utoipa::path(
    get,
    path = "/api/v1/templates",
    tag = "templates",
    operation_id = "listTemplates",
    params(TemplateListQuery),
    responses(
        (status = 200, description = "The templates, by name then language.", body = TemplateListResource),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation_failed`: a filter is malformed.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        ReadResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn list_templates(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    query: web::Query<TemplateListQuery>,
) -> HandlerResult {
    let name = query
        .name
        .as_deref()
        .filter(|n| !n.is_empty())
        .map(TemplateName::parse)
        .transpose()
        .map_err(|e| ApiError::field("name", e.0))?;
    let status = query
        .status
        .as_deref()
        .filter(|s| !s.is_empty())
        .map(str::to_uppercase);
    let templates = ctx
        .templates
        .execute(&caller.0.organization.id, &TemplateQuery { status, name })
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::Ok().json(TemplateListResource {
        data: templates.iter().map(TemplateResource::from).collect(),
    }))
}

/// One template by name and language.
///
/// An organization with several business accounts may hold a copy in each: this answers the one a send
/// without `from` uses (the default sender's account), else the first.
#[utoipa::path(
    get,
    path = "/api/v1/templates/{name}/{language}",
    tag = "templates",
    operation_id = "getTemplate",
    params(("name" = String, Path, description = "Template name"), ("language" = String, Path, description = "Language code, e.g. `en_US`")),
    responses(
        (status = 200, description = "The template.", body = TemplateResource),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`template_not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        ReadResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn get_template(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    path: web::Path<(String, String)>,
) -> HandlerResult {
    let (name, language) = path.into_inner();
    let not_found = || ApiError::NotFound;
    let name = TemplateName::parse(&name).map_err(|_| not_found())?;
    let language = LanguageCode::parse(&language).map_err(|_| not_found())?;
    let template = ctx
        .templates
        .one(&caller.0.organization.id, &name, &language)
        .await
        .map_err(ApiError::from)?
        .ok_or_else(|| {
            ApiError::TemplateNotFound(herald_domain::template::TemplateRef {
                name: name.clone(),
                language: language.clone(),
            })
        })?;
    Ok(HttpResponse::Ok().json(TemplateResource::from(&template)))
}

/// Fetches the organization's templates from the network now (also done periodically).
#[utoipa::path(
    post,
    path = "/api/v1/templates/sync",
    tag = "templates",
    operation_id = "syncTemplates",
    responses(
        (status = 200, description = "Synced.", body = TemplateSyncResource),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`: the network or the store did not answer; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        WriteResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn sync_templates(ctx: web::Data<ApiContext>, caller: Caller) -> HandlerResult {
    let report = ctx
        .sync_templates
        .sync_organization(&caller.0.organization.id)
        .await
        .map_err(|error| match error {
            SyncError::Store(store) => ApiError::from(store),
            SyncError::Network(network) => {
                ApiError::Unavailable(format!("the network refused the listing: {network}"))
            }
        })?;
    Ok(HttpResponse::Ok().json(TemplateSyncResource {
        business_accounts: report.business_accounts,
        templates: report.templates,
    }))
}
