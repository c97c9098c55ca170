//! The handlers: parse, call one use case, map the result. No policy lives here.

use crate::auth::Caller;
use crate::dto::{
    EventListResource, EventResource, HealthResource, MessageListQuery, MessagePageResource, MessageResource,
    SendTemplateRequest, SendTextRequest, WindowResource,
};
use crate::error::{ApiError, Problem};
use crate::responses::{KeyedResponses, ReadResponses, SendAccepted, SendResponses};
use crate::send_body::{self, SendOperation};
use crate::{ApiContext, cursor, openapi};
use actix_web::http::header::{self, ContentType};
use actix_web::{FromRequest, HttpRequest, HttpResponse, web};
use herald_domain::error::InvalidValue;
use herald_domain::ids::MessageId;
use herald_domain::message::{MessageStatus, MessageType};
use herald_domain::ports::MessageQuery;
use herald_domain::usecases::{ListMessages, SendCommand, SendOutcome};
use herald_domain::values::{ClientReference, IdempotencyKey, PhoneNumber, RequestFingerprint};
use herald_domain::{FieldError, Timestamp, ValidationErrors};
use serde_json::Value;
use std::collections::HashSet;

pub(crate) const SEND_TEMPLATE_PATH: &str = "/api/v1/messages/send-template";
pub(crate) const SEND_TEXT_PATH: &str = "/api/v1/messages/send-text";
pub(crate) const SEND_FILE_PATH: &str = "/api/v1/messages/send-file";
pub(crate) const SEND_TEMPLATE_MEDIA_PATH: &str = "/api/v1/messages/send-template-media";

const IDEMPOTENCY_KEY: &str = "Idempotency-Key";

pub(crate) type HandlerResult = Result<HttpResponse, actix_web::Error>;

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
    send(&ctx, caller, &req, payload, SendOperation::Template).await
}

/// Send a free-form text message; only inside the 24-hour service window.
#[utoipa::path(
    post,
    path = "/api/v1/messages/send-text",
    tag = "messages",
    operation_id = "sendText",
    request_body(content = SendTextRequest, content_type = "application/json"),
    params(
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
    send(&ctx, caller, &req, payload, SendOperation::Text).await
}

pub(crate) async fn send(
    ctx: &ApiContext,
    caller: Caller,
    req: &HttpRequest,
    payload: web::Payload,
    operation: SendOperation,
) -> HandlerResult {
    // The body is read only now, after authentication, so a bad key answers 401 whatever the body.
    let body = web::Json::<Value>::from_request(req, &mut payload.into_inner())
        .await?
        .into_inner();
    let path = match operation {
        SendOperation::Template => SEND_TEMPLATE_PATH,
        SendOperation::Text => SEND_TEXT_PATH,
        SendOperation::File => SEND_FILE_PATH,
    };
    let (idempotency, header_error) = idempotency(req, path, &body);
    let Caller(caller) = caller;
    let command = SendCommand {
        organization: caller.organization,
        plan: caller.plan,
        kind: send_body::message_kind(operation, &body),
        draft: send_body::with_header_error(send_body::draft(operation, &body), header_error),
        idempotency,
    };
    let outcome = ctx.send.execute(command).await.map_err(ApiError::from)?;
    Ok(accepted(outcome))
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
    response.json(MessageResource::from(&message))
}

/// The `Idempotency-Key` with the request's fingerprint, or the header's field error.
fn idempotency(
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
    let Some(value) = req.headers().get(IDEMPOTENCY_KEY) else {
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

/// One message.
#[utoipa::path(
    get,
    path = "/api/v1/messages/{id}",
    tag = "messages",
    operation_id = "getMessage",
    params(("id" = String, Path, description = "The message id (`msg_…`)")),
    responses(
        (status = 200, description = "The message.", body = MessageResource),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not_found`: no such message for this organization.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        ReadResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn get_message(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    id: web::Path<String>,
) -> HandlerResult {
    // A malformed id names no message, so it answers like an unknown one.
    let id = MessageId::parse(&id).map_err(|_| ApiError::NotFound)?;
    let message = ctx
        .get_message
        .execute(&caller.0.organization.id, &id)
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::Ok().json(MessageResource::from(&message)))
}

/// A message's status history, oldest first, including late reports that changed nothing.
#[utoipa::path(
    get,
    path = "/api/v1/messages/{id}/events",
    tag = "messages",
    operation_id = "getMessageEvents",
    params(("id" = String, Path, description = "The message id (`msg_…`)")),
    responses(
        (status = 200, description = "The history.", body = EventListResource),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not_found`: no such message for this organization.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        ReadResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn message_events(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    id: web::Path<String>,
) -> HandlerResult {
    let id = MessageId::parse(&id).map_err(|_| ApiError::NotFound)?;
    let events = ctx
        .message_events
        .execute(&caller.0.organization.id, &id)
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::Ok().json(EventListResource {
        data: events.iter().map(EventResource::from).collect(),
    }))
}

/// The message log, newest first, in pages.
#[utoipa::path(
    get,
    path = "/api/v1/messages",
    tag = "messages",
    operation_id = "listMessages",
    params(MessageListQuery),
    responses(
        (status = 200, description = "A page of messages.", body = MessagePageResource),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation_failed`: a filter, `limit` or `cursor` is invalid.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        ReadResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn list_messages(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    req: HttpRequest,
) -> HandlerResult {
    let query = parse_list_query(&query_pairs(&req)?).map_err(ApiError::Validation)?;
    let page = ctx
        .list_messages
        .execute(&caller.0.organization.id, query)
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::Ok().json(MessagePageResource {
        data: page.messages.iter().map(MessageResource::from).collect(),
        next_cursor: page.next.as_ref().map(cursor::encode),
    }))
}

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

fn query_pairs(req: &HttpRequest) -> Result<Vec<(String, String)>, ApiError> {
    web::Query::<Vec<(String, String)>>::from_query(req.query_string())
        .map(web::Query::into_inner)
        .map_err(|_| ApiError::field("query", "the query string cannot be decoded"))
}

/// The log's filters. Empty values count as absent; unknown parameters are ignored.
pub(crate) fn parse_list_query(pairs: &[(String, String)]) -> Result<MessageQuery, ValidationErrors> {
    const KNOWN: [&str; 8] = [
        "status",
        "to",
        "type",
        "client_reference",
        "created_after",
        "created_before",
        "limit",
        "cursor",
    ];
    let mut errors = ValidationErrors::new();
    let mut query = MessageQuery {
        limit: ListMessages::DEFAULT_LIMIT,
        ..MessageQuery::default()
    };
    let mut seen = HashSet::new();
    for (key, value) in pairs {
        let key = key.as_str();
        if !KNOWN.contains(&key) || value.is_empty() {
            continue;
        }
        if !seen.insert(key) {
            errors.push(FieldError::new(key, "is given more than once"));
            continue;
        }
        match key {
            "status" => query.status = errors.check(key, MessageStatus::parse(value)),
            "to" => query.to = errors.check(key, PhoneNumber::parse(value)),
            "type" => query.message_type = errors.check(key, MessageType::parse(value)),
            "client_reference" => query.client_reference = errors.check(key, ClientReference::parse(value)),
            "created_after" => query.created_after = errors.check(key, parse_time(value)),
            "created_before" => query.created_before = errors.check(key, parse_time(value)),
            "limit" => {
                query.limit = errors
                    .check(key, parse_limit(value))
                    .unwrap_or(ListMessages::DEFAULT_LIMIT);
            }
            _ => query.before = errors.check(key, cursor::decode(value).map_err(InvalidValue::new)),
        }
    }
    errors.finish(query)
}

fn parse_time(value: &str) -> Result<Timestamp, InvalidValue> {
    chrono::DateTime::parse_from_rfc3339(value)
        .map(|t| t.with_timezone(&chrono::Utc))
        .map_err(|_| InvalidValue::new("must be an RFC 3339 time such as 2026-11-21T10:15:30Z"))
}

fn parse_limit(value: &str) -> Result<u32, InvalidValue> {
    value
        .parse::<u32>()
        .ok()
        .filter(|n| (1..=ListMessages::MAX_LIMIT).contains(n))
        .ok_or_else(|| InvalidValue::new("must be an integer from 1 to 200"))
}

/// Whether the process is alive.
#[utoipa::path(
    get,
    path = "/healthz",
    tag = "operations",
    operation_id = "healthz",
    responses((status = 200, description = "Alive.", body = HealthResource))
)]
pub(crate) async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(HealthResource {
        status: "ok".to_owned(),
    })
}

/// Whether the store is reachable and its migrations current.
#[utoipa::path(
    get,
    path = "/readyz",
    tag = "operations",
    operation_id = "readyz",
    responses(
        (status = 200, description = "Ready.", body = HealthResource),
        (status = 503, description = "`unavailable`: not ready.", body = Problem, content_type = "application/problem+json"),
    )
)]
pub(crate) async fn readyz(ctx: web::Data<ApiContext>) -> HandlerResult {
    match ctx.readiness.check().await {
        Ok(()) => Ok(HttpResponse::Ok().json(HealthResource {
            status: "ok".to_owned(),
        })),
        // The reason goes to the log (with the request id), not to whoever asked.
        Err(reason) => Err(ApiError::Unavailable(reason).into()),
    }
}

/// This document.
#[utoipa::path(
    get,
    path = "/api/v1/openapi.json",
    tag = "operations",
    operation_id = "openapi",
    responses((status = 200, description = "The OpenAPI 3.1 document of this API.", content_type = "application/json", body = Object))
)]
pub(crate) async fn openapi_json() -> HttpResponse {
    HttpResponse::Ok()
        .content_type(ContentType::json())
        .body(openapi::document_json())
}

/// The API reference as an HTML page.
#[utoipa::path(
    get,
    path = "/docs",
    tag = "operations",
    operation_id = "docs",
    responses((status = 200, description = "The reference, rendered from the OpenAPI document.", content_type = "text/html", body = String))
)]
pub(crate) async fn docs() -> HttpResponse {
    HttpResponse::Ok()
        .content_type(ContentType::html())
        .body(openapi::docs_html())
}

/// Unknown paths.
pub(crate) async fn not_found() -> Result<HttpResponse, ApiError> {
    Err(ApiError::NotFound)
}

/// Known paths, unknown methods.
pub(crate) async fn method_not_allowed() -> Result<HttpResponse, ApiError> {
    Err(ApiError::MethodNotAllowed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
        items
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    fn error_fields(items: &[(&str, &str)]) -> Vec<String> {
        parse_list_query(&pairs(items))
            .unwrap_err()
            .errors()
            .iter()
            .map(|e| e.field.clone())
            .collect()
    }

    #[test]
    fn list_filters_parse() {
        let id = MessageId::from_ulid(ulid::Ulid::from_parts(5, 5));
        let cursor = cursor::encode(&id);
        let query = parse_list_query(&pairs(&[
            ("status", "delivered"),
            ("to", "+15551234567"),
            ("type", "template"),
            ("client_reference", "order-1"),
            ("created_after", "2026-11-21T10:15:30.123Z"),
            ("created_before", "2026-11-22T00:00:00+01:00"),
            ("limit", "200"),
            ("cursor", &cursor),
            ("unknown", "ignored"),
        ]))
        .unwrap();
        assert_eq!(query.status, Some(MessageStatus::Delivered));
        assert_eq!(query.to.unwrap().as_str(), "+15551234567");
        assert_eq!(query.message_type, Some(MessageType::Template));
        assert_eq!(query.client_reference.unwrap().as_str(), "order-1");
        assert_eq!(
            query.created_before.unwrap(),
            chrono::DateTime::parse_from_rfc3339("2026-11-21T23:00:00Z").unwrap()
        );
        assert!(query.created_after.is_some());
        assert_eq!(query.limit, 200);
        assert_eq!(query.before, Some(id));
    }

    #[test]
    fn defaults_and_empty_values() {
        let query = parse_list_query(&pairs(&[("status", ""), ("to", "")])).unwrap();
        assert_eq!(query.limit, 50);
        assert_eq!(query.status, None);
        assert_eq!(query.before, None);
    }

    #[test]
    fn every_bad_filter_is_named() {
        assert_eq!(
            error_fields(&[
                ("status", "queued"),
                ("to", " 15551234567"),
                ("type", "sms"),
                ("created_after", "yesterday"),
                ("created_before", "2026-11-21"),
                ("limit", "0"),
                ("cursor", "bogus"),
            ]),
            [
                "status",
                "to",
                "type",
                "created_after",
                "created_before",
                "limit",
                "cursor"
            ]
        );
        assert_eq!(error_fields(&[("limit", "201")]), ["limit"]);
        assert_eq!(error_fields(&[("limit", "ten")]), ["limit"]);
        assert_eq!(
            error_fields(&[("status", "sent"), ("status", "read")]),
            ["status"]
        );
    }
}
