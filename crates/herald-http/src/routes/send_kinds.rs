//! Sending the kinds beside text, files and templates (docs/api.md §4.6–§4.9): interactive messages,
//! reactions, locations and contact cards. Each is a JSON send like send-text, so each route only names its
//! operation; `json_send` does the rest.

use crate::auth::Caller;
use crate::context::ApiContext;
use crate::dto::{SendContactsRequest, SendInteractiveRequest, SendLocationRequest, SendReactionRequest};
use crate::error::{HandlerResult, Problem};
use crate::responses::{KeyedResponses, SendAccepted, SendResponses};
use crate::routes::send::json_send;
use crate::send_body::SendOperation;
use actix_web::{HttpRequest, web};
use utoipa::Path as _;

/// Send an interactive message: reply buttons, a list, a CTA URL button, a location request or a Flow;
/// only inside the 24-hour service window.
///
/// The body is Meta's `interactive` object (`type`, `header`, `body`, `footer`, `action`) with `to`; a
/// header file names an upload by `media_id` (then the message counts as media for the plan). Every limit
/// Meta documents is checked first, and a field error names the path (`action.buttons[2].reply.title`).
#[utoipa::path(
    post,
    path = "/api/v1/messages/send-interactive",
    tag = "messages",
    operation_id = "sendInteractive",
    request_body(content = SendInteractiveRequest, content_type = "application/json"),
    params(
        crate::dto::SendQuery,
        ("Idempotency-Key" = Option<String>, Header, description = "Up to 255 visible ASCII characters; a retry with the same key and body within 24 hours answers the first response."),
    ),
    responses(
        (status = 400, description = "`invalid_json`: the body is not valid JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`account_inactive`, `plan_forbids`.", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "`payload_too_large`: the body is over 256 KiB.", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "`unsupported_media_type`: the body is not `application/json`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation_failed` (a limit, an unknown `media_id` or `reply_to`), `header_media_mismatch`, `service_window_closed`, `idempotency_key_reused`.", body = Problem, content_type = "application/problem+json"),
        SendAccepted,
        SendResponses,
        KeyedResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn send_interactive(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    req: HttpRequest,
    payload: web::Payload,
) -> HandlerResult {
    let path = __path_send_interactive::path();
    json_send(&ctx, caller, &req, payload, SendOperation::Interactive, &path).await
}

/// React to a message of the conversation with an emoji (an empty emoji removes the reaction); only
/// inside the 24-hour service window.
///
/// `message_id` is a Herald id, `msg_…` (sent) or `inb_…` (received), of this organization and
/// conversation that the network already knows. A reaction's final status is `sent`: the network reports
/// nothing after it.
#[utoipa::path(
    post,
    path = "/api/v1/messages/send-reaction",
    tag = "messages",
    operation_id = "sendReaction",
    request_body(content = SendReactionRequest, content_type = "application/json"),
    params(
        crate::dto::SendQuery,
        ("Idempotency-Key" = Option<String>, Header, description = "Up to 255 visible ASCII characters; a retry with the same key and body within 24 hours answers the first response."),
    ),
    responses(
        (status = 400, description = "`invalid_json`: the body is not valid JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`account_inactive`, `plan_forbids`.", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "`payload_too_large`: the body is over 256 KiB.", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "`unsupported_media_type`: the body is not `application/json`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation_failed` (not one emoji; `message_id` unknown, of another conversation, or not yet `submitted`), `service_window_closed`, `idempotency_key_reused`.", body = Problem, content_type = "application/problem+json"),
        SendAccepted,
        SendResponses,
        KeyedResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn send_reaction(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    req: HttpRequest,
    payload: web::Payload,
) -> HandlerResult {
    let path = __path_send_reaction::path();
    json_send(&ctx, caller, &req, payload, SendOperation::Reaction, &path).await
}

/// Send a location; only inside the 24-hour service window.
#[utoipa::path(
    post,
    path = "/api/v1/messages/send-location",
    tag = "messages",
    operation_id = "sendLocation",
    request_body(content = SendLocationRequest, content_type = "application/json"),
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
pub(crate) async fn send_location(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    req: HttpRequest,
    payload: web::Payload,
) -> HandlerResult {
    let path = __path_send_location::path();
    json_send(&ctx, caller, &req, payload, SendOperation::Location, &path).await
}

/// Send contact cards (Meta's contact objects); only inside the 24-hour service window.
#[utoipa::path(
    post,
    path = "/api/v1/messages/send-contacts",
    tag = "messages",
    operation_id = "sendContacts",
    request_body(content = SendContactsRequest, content_type = "application/json"),
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
pub(crate) async fn send_contacts(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    req: HttpRequest,
    payload: web::Payload,
) -> HandlerResult {
    let path = __path_send_contacts::path();
    json_send(&ctx, caller, &req, payload, SendOperation::Contacts, &path).await
}
