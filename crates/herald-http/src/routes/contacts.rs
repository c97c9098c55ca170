//! The 24-hour service window of a contact (docs/api.md §7).

use crate::auth::Caller;
use crate::context::ApiContext;
use crate::dto::WindowResource;
use crate::error::{ApiError, HandlerResult, Problem};
use crate::responses::{KeyedResponses, ReadResponses};
use crate::routes::query::query_pairs;
use actix_web::{HttpRequest, HttpResponse, web};
use herald_domain::ValidationErrors;
use herald_domain::values::PhoneNumber;

/// Whether free-form messages to a number may go now (the 24-hour service window).
#[utoipa::path(
    get,
    path = "/api/v1/contacts/{number}/window",
    tag = "contacts",
    operation_id = "getWindow",
    params(
        ("number" = String, Path, description = "The recipient, E.164 and URL-encoded (`%2B15551234567`)"),
        ("from" = Option<String>, Query, description = "The sender number (E.164, URL-encoded); default: the organization's default sender"),
    ),
    responses(
        (status = 200, description = "The window.", body = WindowResource),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation_failed`: `number` or `from` is invalid.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        ReadResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn window(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    number: web::Path<String>,
    req: HttpRequest,
) -> HandlerResult {
    let mut errors = ValidationErrors::new();
    // actix's `Path` percent-decodes the segment, so `%2B1555…` arrives as `+1555…`.
    let number = errors.check("number", PhoneNumber::parse(&number));
    let mut from = None;
    for (key, value) in query_pairs(&req)? {
        if key == "from" && !value.is_empty() {
            from = errors.check("from", PhoneNumber::parse(&value));
        }
    }
    let number = match number {
        Some(number) if errors.is_empty() => number,
        _ => return Err(ApiError::Validation(errors).into()),
    };
    let view = ctx
        .window_status
        .execute(&caller.0.organization.id, number, from)
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::Ok().json(WindowResource::from(&view)))
}
