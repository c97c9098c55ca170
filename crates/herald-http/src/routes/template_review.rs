//! `POST /api/v1/templates`, `PATCH /api/v1/templates/{name}/{language}`, `DELETE /api/v1/templates/{name}`
//! and `DELETE /api/v1/templates/{name}/{language}` (docs/api.md §6.1): templates created, edited and
//! deleted through the network's review.

use crate::auth::Caller;
use crate::context::ApiContext;
use crate::error::{ApiError, HandlerResult, Problem};
use crate::responses::{KeyedResponses, WriteResponses};
use crate::routes::templates::TemplateResource;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use herald_domain::ValidationErrors;
use herald_domain::error::FieldError;
use herald_domain::ports::NetworkError;
use herald_domain::template::definition::{Node, TemplateDefinition};
use herald_domain::template::{LanguageCode, Template, TemplateName, TemplateRef};
use herald_domain::usecases::TemplateReviewError;
use herald_domain::values::PhoneNumber;
use serde_json::Value;

/// A JSON value as the domain's template rules read it.
fn node(value: &Value) -> Node {
    match value {
        Value::Null => Node::Null,
        Value::Bool(b) => Node::Bool(*b),
        Value::Number(n) => Node::Number(n.to_string()),
        Value::String(s) => Node::Text(s.clone()),
        Value::Array(items) => Node::List(items.iter().map(node).collect()),
        Value::Object(fields) => Node::Object(fields.iter().map(|(k, v)| (k.clone(), node(v))).collect()),
    }
}

/// `from`, when given: the sender number whose business account holds the template.
fn from_field(body: &Value, errors: &mut ValidationErrors) -> Option<PhoneNumber> {
    match body.get("from") {
        None | Some(Value::Null) => None,
        Some(Value::String(number)) => errors.check("from", PhoneNumber::parse(number)),
        Some(_) => {
            errors.push(FieldError::new("from", "must be a string"));
            None
        }
    }
}

/// The top-level fields of a template's body: Meta's `message_templates` fields and `from`.
const FIELDS: [&str; 7] = [
    "name",
    "language",
    "category",
    "parameter_format",
    "allow_category_change",
    "components",
    "from",
];

/// Refuses every top-level field a template's body does not take, each named.
fn refuse_unknown_fields(body: &Value) -> Result<(), ApiError> {
    let mut errors = ValidationErrors::new();
    for key in body.as_object().into_iter().flat_map(|object| object.keys()) {
        if !FIELDS.contains(&key.as_str()) {
            errors.push(FieldError::new(
                key.as_str(),
                "is not a field of a template; it takes `name`, `language`, `category`, `parameter_format`, \
                 `allow_category_change`, `components` and `from`",
            ));
        }
    }
    errors.finish(()).map_err(ApiError::Validation)
}

/// The definition with `from` taken out, and every field error of both.
fn definition(mut body: Value) -> Result<(TemplateDefinition, Option<PhoneNumber>), ApiError> {
    let mut errors = ValidationErrors::new();
    let from = from_field(&body, &mut errors);
    if let Some(object) = body.as_object_mut() {
        object.remove("from");
    }
    match TemplateDefinition::parse(&node(&body)) {
        Ok(definition) if errors.is_empty() => Ok((definition, from)),
        Ok(_) => Err(ApiError::Validation(errors)),
        Err(more) => {
            errors.append(more);
            Err(ApiError::Validation(errors))
        }
    }
}

fn review_error(error: TemplateReviewError, reference: Option<TemplateRef>) -> ApiError {
    match error {
        TemplateReviewError::UnknownSender => {
            ApiError::field("from", "no sender of the organization has this number")
        }
        TemplateReviewError::Exists(name, language) => {
            ApiError::TemplateExists(TemplateRef { name, language })
        }
        TemplateReviewError::NotFound => match reference {
            Some(reference) => ApiError::TemplateNotFound(reference),
            None => ApiError::NotFound,
        },
        TemplateReviewError::SampleNotFound(id) => ApiError::field(
            "example.media_id",
            format!("{id} is not an upload of this organization"),
        ),
        TemplateReviewError::SampleMismatch { id, expected, actual } => ApiError::HeaderMediaMismatch(
            format!("The sample {id} is {actual}, but its header's format is {expected}"),
        ),
        TemplateReviewError::Network(NetworkError::Permanent(refusal)) => {
            ApiError::NetworkRefused(format!("{} ({})", refusal.title, refusal.detail))
        }
        TemplateReviewError::Network(other) => ApiError::Unavailable(format!("the network: {other}")),
        TemplateReviewError::Store(store) => ApiError::from(store),
    }
}

fn created(template: &Template) -> HttpResponse {
    HttpResponse::Created()
        .insert_header((
            header::LOCATION,
            format!("/api/v1/templates/{}/{}", template.name, template.language),
        ))
        .json(TemplateResource::from(template))
}

/// Submit a template for the network's review.
///
/// The body is Meta's own `message_templates` body (`name`, `language`, `category`, `parameter_format`,
/// `allow_category_change`, `components`) plus `from`, the sender whose business account gets it (default:
/// the default sender). Every Meta rule is checked before the network: field errors name the path
/// (`components[1].buttons[0].url`). A media header's sample is an upload (`example.media_id`) or the
/// network's handle (`example.header_handle`). Answers `201` with Herald's copy, usually `PENDING`; the
/// review's outcome arrives as a status change.
#[utoipa::path(
    post,
    path = "/api/v1/templates",
    tag = "templates",
    operation_id = "createTemplate",
    request_body(content = crate::dto::TemplateCreateRequest, content_type = "application/json", description = "Meta's template definition, plus `from`."),
    responses(
        (status = 201, description = "Submitted; Herald's copy.", body = TemplateResource),
        (status = 400, description = "`invalid_json`.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`template_exists`: that name and language exist; edit it instead.", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "`unsupported_media_type`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation_failed` (with the path of every broken rule), `header_media_mismatch` (a sample of another kind), `network_refused` (the network's review refused the definition).", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`: the network or the store did not answer; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        WriteResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn create_template(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    req: HttpRequest,
    payload: web::Payload,
) -> HandlerResult {
    let body = crate::json_body::read_json::<Value>(&req, payload).await?;
    let body = body.into_inner();
    refuse_unknown_fields(&body)?;
    let (definition, from) = definition(body)?;
    let template = ctx
        .manage_templates
        .create(&caller.0.organization.id, from.as_ref(), &definition)
        .await
        .map_err(|e| review_error(e, None))?;
    Ok(created(&template))
}

/// Edit a template: new `components` (and optionally `category`); it goes back to review.
#[utoipa::path(
    patch,
    path = "/api/v1/templates/{name}/{language}",
    tag = "templates",
    operation_id = "editTemplate",
    params(("name" = String, Path, description = "Template name"), ("language" = String, Path, description = "Language code")),
    request_body(content = crate::dto::TemplateEditRequest, content_type = "application/json", description = "`components` in Meta's shape, `category`?, `parameter_format`?, `from`?."),
    responses(
        (status = 200, description = "Submitted again; Herald's copy.", body = TemplateResource),
        (status = 400, description = "`invalid_json`.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`template_not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "`unsupported_media_type`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation_failed`, `header_media_mismatch`, `network_refused`.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        WriteResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn edit_template(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    path: web::Path<(String, String)>,
    req: HttpRequest,
    payload: web::Payload,
) -> HandlerResult {
    let body = crate::json_body::read_json::<Value>(&req, payload).await?;
    let reference = reference(path.into_inner())?;
    let organization = &caller.0.organization.id;
    let mut body = body.into_inner();
    refuse_unknown_fields(&body)?;
    let Some(object) = body.as_object_mut() else {
        return Err(ApiError::field("body", "must be a JSON object").into());
    };
    for field in ["name", "language"] {
        if object.contains_key(field) {
            return Err(ApiError::field(field, "is the path's; an edit cannot change it").into());
        }
    }
    object.insert("name".into(), Value::from(reference.name.as_str()));
    object.insert("language".into(), Value::from(reference.language.as_str()));
    if !object.contains_key("category") {
        let copy = ctx
            .templates
            .one(organization, &reference.name, &reference.language)
            .await
            .map_err(ApiError::from)?
            .ok_or_else(|| ApiError::TemplateNotFound(reference.clone()))?;
        object.insert("category".into(), Value::from(copy.category));
    }
    let (definition, from) = definition(body)?;
    let template = ctx
        .manage_templates
        .edit(organization, from.as_ref(), &definition)
        .await
        .map_err(|e| review_error(e, Some(reference)))?;
    Ok(HttpResponse::Ok().json(TemplateResource::from(&template)))
}

fn reference((name, language): (String, String)) -> Result<TemplateRef, ApiError> {
    let name = TemplateName::parse(&name).map_err(|_| ApiError::NotFound)?;
    let language = LanguageCode::parse(&language).map_err(|_| ApiError::NotFound)?;
    Ok(TemplateRef { name, language })
}

/// Delete one language of a template.
#[utoipa::path(
    delete,
    path = "/api/v1/templates/{name}/{language}",
    tag = "templates",
    operation_id = "deleteTemplateLanguage",
    params(("name" = String, Path, description = "Template name"), ("language" = String, Path, description = "Language code")),
    responses(
        (status = 204, description = "Deleted on the network; Herald's copy is gone."),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`template_not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`network_refused`: the network would not delete it (the simulator's seeded templates, say).", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        WriteResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn delete_template_language(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    path: web::Path<(String, String)>,
) -> HandlerResult {
    let reference = reference(path.into_inner())?;
    ctx.manage_templates
        .delete(
            &caller.0.organization.id,
            None,
            &reference.name,
            Some(&reference.language),
        )
        .await
        .map_err(|e| review_error(e, Some(reference)))?;
    Ok(HttpResponse::NoContent().finish())
}

/// Delete every language of a template.
#[utoipa::path(
    delete,
    path = "/api/v1/templates/{name}",
    tag = "templates",
    operation_id = "deleteTemplate",
    params(("name" = String, Path, description = "Template name")),
    responses(
        (status = 204, description = "Deleted on the network; Herald's copies are gone."),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not_found`: no template of this name.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`network_refused`: the network would not delete it (the simulator's seeded templates, say).", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        WriteResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn delete_template(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    path: web::Path<String>,
) -> HandlerResult {
    let name = TemplateName::parse(&path.into_inner()).map_err(|_| ApiError::NotFound)?;
    ctx.manage_templates
        .delete(&caller.0.organization.id, None, &name, None)
        .await
        .map_err(|e| review_error(e, None))?;
    Ok(HttpResponse::NoContent().finish())
}
