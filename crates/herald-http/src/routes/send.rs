//! Sending text and template messages from a JSON body (docs/api.md §4.1, §4.2), and what every send
//! shares: the `Idempotency-Key` and the `202 Accepted` answer.

use crate::auth::Caller;
use crate::context::ApiContext;
use crate::dry_run::dry_run_requested;
use crate::dto::{DryRunResource, MessageResource, SendTemplateRequest, SendTextRequest};
use crate::error::{ApiError, HandlerResult, Problem};
use crate::responses::{KeyedResponses, SendAccepted, SendResponses};
use crate::send_body::{self, SendOperation};
use actix_web::http::header;
use actix_web::{FromRequest, HttpRequest, HttpResponse, web};
use herald_domain::FieldError;
use herald_domain::error::InvalidValue;
use herald_domain::usecases::{SendCommand, SendOutcome};
use herald_domain::values::{IdempotencyKey, RequestFingerprint};
use serde_json::Value;
use utoipa::Path as _;

const IDEMPOTENCY_KEY: &str = "Idempotency-Key";
/// The same, as looked up: a `&str` name that is not a standard header is copied into a new `HeaderName` on
/// every lookup, present or not.
const IDEMPOTENCY_KEY_HEADER: header::HeaderName = header::HeaderName::from_static("idempotency-key");

/// Send a template message (or a text message with `"type": "text"`).
///
/// Answers `202 Accepted` with the message in status `accepted`. Variables take the full form
/// (`header`, `body`, `buttons`) or a shorthand for the body: an array (positional) or an object of
/// strings (named). A retry with the same `Idempotency-Key` and body answers the first response again,
/// with `Idempotent-Replayed: true`.
#[utoipa::path(
    post,
    path = "/api/v1/messages/send-template",
    tag = "messages",
    operation_id = "sendTemplate",
    request_body(content = SendTemplateRequest, content_type = "application/json"),
    params(
        crate::dto::SendQuery,
        ("Idempotency-Key" = Option<String>, Header, description = "Up to 255 visible ASCII characters; a retry with the same key and body within 24 hours answers the first response."),
    ),
    responses(
        (status = 400, description = "`invalid_json`: the body is not valid JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`account_inactive`, `plan_forbids`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`template_not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "`payload_too_large`: the body is over 256 KiB.", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "`unsupported_media_type`: the body is not `application/json`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation_failed`, `template_not_approved`, `template_variables_mismatch`, `header_media_mismatch`, `service_window_closed` (text form), `idempotency_key_reused`.", body = Problem, content_type = "application/problem+json"),
        SendAccepted,
        SendResponses,
        KeyedResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn send_template(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    req: HttpRequest,
    payload: web::Payload,
) -> HandlerResult {
    json_send(
        &ctx,
        caller,
        &req,
        payload,
        SendOperation::Template,
        &__path_send_template::path(),
    )
    .await
}

/// Send a free-form text message; only inside the 24-hour service window.
#[utoipa::path(
    post,
    path = "/api/v1/messages/send-text",
    tag = "messages",
    operation_id = "sendText",
    request_body(content = SendTextRequest, content_type = "application/json"),
    params(
        crate::dto::SendQuery,
        ("Idempotency-Key" = Option<String>, Header, description = "Up to 255 visible ASCII characters; a retry with the same key and body within 24 hours answers the first response."),
    ),
    responses(
        (status = 400, description = "`invalid_json`: the body is not valid JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`account_inactive`, `plan_forbids`.", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "`payload_too_large`: the body is over 256 KiB.", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "`unsupported_media_type`: the body is not `application/json`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation_failed`, `service_window_closed`, `idempotency_key_reused`.", body = Problem, content_type = "application/problem+json"),
        SendAccepted,
        SendResponses,
        KeyedResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn send_text(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    req: HttpRequest,
    payload: web::Payload,
) -> HandlerResult {
    json_send(
        &ctx,
        caller,
        &req,
        payload,
        SendOperation::Text,
        &__path_send_text::path(),
    )
    .await
}

/// A send whose body is JSON; `path` is the operation's, part of the idempotency fingerprint.
pub(crate) async fn json_send(
    ctx: &ApiContext,
    caller: Caller,
    req: &HttpRequest,
    payload: web::Payload,
    operation: SendOperation,
    path: &str,
) -> HandlerResult {
    // The body is read only now, after authentication, so a bad key answers 401 whatever the body.
    let body = web::Json::<Value>::from_request(req, &mut payload.into_inner())
        .await?
        .into_inner();
    let dry_run = dry_run_requested(req)?;
    let (idempotency, header_error) = idempotency(req, path, &body);
    let Caller(caller) = caller;
    let command = SendCommand {
        organization: caller.organization,
        plan: caller.plan,
        kind: send_body::message_kind(operation, &body),
        draft: send_body::with_header_error(send_body::draft(operation, &body), header_error),
        idempotency,
    };
    if dry_run {
        return dry_run_answer(ctx, command, None).await;
    }
    let outcome = ctx.send.execute(command).await.map_err(ApiError::from)?;
    Ok(accepted(outcome))
}

/// `200` with what the send would meet (docs/api.md §4): the domain's dry run, and the rate card's
/// estimate of the category it found.
pub(crate) async fn dry_run_answer(
    ctx: &ApiContext,
    command: SendCommand,
    upload: Option<herald_domain::media::StagedFile>,
) -> HandlerResult {
    let organization = command.organization.id;
    let run = ctx.send.dry_run(command, upload).await.map_err(ApiError::from)?;
    let estimated_cost = match &run.pricing {
        Some(pricing) => ctx
            .rate_cards
            .card(&organization)
            .await
            .map_err(ApiError::from)?
            .estimate(&pricing.category, pricing.billable, 1),
        None => None,
    };
    Ok(HttpResponse::Ok().json(DryRunResource::new(run, estimated_cost.as_ref())))
}

/// `202 Accepted` with the message and its `Location` (and `Idempotent-Replayed` for a replay).
pub(crate) fn accepted(outcome: SendOutcome) -> HttpResponse {
    let (message, replayed) = match outcome {
        SendOutcome::Accepted(message) => (message, false),
        SendOutcome::Replayed(message) => (message, true),
    };
    let mut response = HttpResponse::Accepted();
    response.insert_header((header::LOCATION, format!("/api/v1/messages/{}", message.id)));
    if replayed {
        response.insert_header(("Idempotent-Replayed", "true"));
    }
    let resource = MessageResource::from(&message);
    // Written into a buffer of about its final size: `json()` starts at 128 bytes and grows it three times
    // for a message's ~650, a copy each time, on every send.
    let mut body = Vec::with_capacity(ACCEPTED_BODY_CAPACITY);
    match serde_json::to_writer(&mut body, &resource) {
        Ok(()) => response.insert_header(header::ContentType::json()).body(body),
        // Cannot happen for this type; `json()` answers a serialization failure as actix does.
        Err(_) => response.json(&resource),
    }
}

/// About the size of a `202`'s message resource (a template send's is ~650 bytes).
const ACCEPTED_BODY_CAPACITY: usize = 1024;

/// The `Idempotency-Key` with the request's fingerprint, or the header's field error.
pub(crate) fn idempotency(
    req: &HttpRequest,
    path: &str,
    body: &Value,
) -> (Option<(IdempotencyKey, RequestFingerprint)>, Option<FieldError>) {
    idempotency_with(req, || send_body::fingerprint(path, body))
}

/// [`idempotency`] with the fingerprint computed by `fingerprint` (a multipart form has its own).
pub(crate) fn idempotency_with(
    req: &HttpRequest,
    fingerprint: impl FnOnce() -> RequestFingerprint,
) -> (Option<(IdempotencyKey, RequestFingerprint)>, Option<FieldError>) {
    let Some(value) = req.headers().get(IDEMPOTENCY_KEY_HEADER) else {
        return (None, None);
    };
    let key = value
        .to_str()
        .map_err(|_| InvalidValue::new("Idempotency-Key must be visible ASCII characters"))
        .and_then(IdempotencyKey::parse);
    match key {
        Ok(key) => (Some((key, fingerprint())), None),
        Err(error) => (None, Some(error.at(IDEMPOTENCY_KEY))),
    }
}
