//! Inbound messages as resources (docs/api.md §5.1): the list, one message, and marking one read.

use crate::auth::Caller;
use crate::context::ApiContext;
use crate::cursor;
use crate::dto::{InboundListQuery, InboundPageResource, InboundReadRequest, InboundResource};
use crate::error::{ApiError, HandlerResult, Problem};
use crate::responses::{KeyedResponses, ReadResponses, WriteResponses};
use crate::routes::query::{parse_limit, parse_time, query_pairs};
use actix_web::{HttpRequest, HttpResponse, web};
use herald_domain::contact::Recipient;
use herald_domain::error::InvalidValue;
use herald_domain::ids::{InboundId, MessageId};
use herald_domain::ports::{InboundQuery, InboundView};
use herald_domain::usecases::InboundMessages;
use herald_domain::values::PhoneNumber;
use herald_domain::{FieldError, ValidationErrors};
use serde_json::Value;
use std::collections::HashSet;

/// The path's id. Inbound messages recorded before they had ids of their own were `msg_…` (the same
/// ULID), and events delivered then named them so: such an id still reads. Anything else names nothing.
fn inbound_id(id: &str) -> Result<InboundId, ApiError> {
    InboundId::parse(id)
        .or_else(|_| MessageId::parse(id).map(|legacy| InboundId::from_ulid(legacy.ulid())))
        .map_err(|_| ApiError::NotFound)
}

fn resource(view: &InboundView) -> Result<Value, ApiError> {
    serde_json::from_str(&view.json).map_err(|e| {
        ApiError::Internal(anyhow::anyhow!(
            "the store wrote an inbound resource that is not JSON: {e}"
        ))
    })
}

/// The organization's inbound messages, newest first, in pages.
#[utoipa::path(
    get,
    path = "/api/v1/inbound",
    tag = "inbound",
    operation_id = "listInbound",
    params(InboundListQuery),
    responses(
        (status = 200, description = "A page of inbound messages.", body = InboundPageResource),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation_failed`: a filter, `limit` or `cursor` is invalid.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        ReadResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn list_inbound(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    req: HttpRequest,
) -> HandlerResult {
    let query = parse_list_query(&query_pairs(&req)?).map_err(ApiError::Validation)?;
    let page = ctx
        .inbound
        .list(&caller.0.organization.id, query)
        .await
        .map_err(ApiError::from)?;
    let data = page
        .messages
        .iter()
        .map(resource)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(HttpResponse::Ok().json(InboundPageResource {
        data,
        next_cursor: page.next.as_ref().map(cursor::encode_inbound),
    }))
}

/// One inbound message.
#[utoipa::path(
    get,
    path = "/api/v1/inbound/{id}",
    tag = "inbound",
    operation_id = "getInbound",
    params(("id" = String, Path, description = "The inbound message id (`inb_…`)")),
    responses(
        (status = 200, description = "The message.", body = InboundResource),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not_found`: no such inbound message for this organization.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        ReadResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn get_inbound(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    id: web::Path<String>,
) -> HandlerResult {
    let id = inbound_id(&id)?;
    let view = ctx
        .inbound
        .get(&caller.0.organization.id, &id)
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::Ok().json(resource(&view)?))
}

/// Marks the message read on the network (the customer sees blue ticks), and with `typing` shows the
/// typing indicator too; answers the message with `read_at`.
#[utoipa::path(
    post,
    path = "/api/v1/inbound/{id}/read",
    tag = "inbound",
    operation_id = "readInbound",
    params(("id" = String, Path, description = "The inbound message id (`inb_…`)")),
    request_body(content = InboundReadRequest, description = "Optional; an empty body is `{}`."),
    responses(
        (status = 202, description = "The network took the read receipt.", body = InboundResource),
        (status = 400, description = "`invalid_json`.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not_found`: no such inbound message for this organization.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation_failed` (`typing` not a boolean); `network_refused`: the network refused for good (e.g. a message too old to mark).", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`: the store or the network is down; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        WriteResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn read_inbound(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    id: web::Path<String>,
    req: HttpRequest,
    payload: web::Payload,
) -> HandlerResult {
    let id = inbound_id(&id)?;
    // Read only now, after authentication and the key's write limit.
    let body = <web::Bytes as actix_web::FromRequest>::from_request(&req, &mut payload.into_inner()).await?;
    let typing = parse_read_body(&body)?;
    let view = ctx
        .inbound
        .mark_read(&caller.0.organization.id, &id, typing)
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::Accepted().json(resource(&view)?))
}

/// `{ "typing"?: bool }`; an empty body (or only whitespace) is `{}`. Any other field is refused.
fn parse_read_body(body: &[u8]) -> Result<bool, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(false);
    }
    let value: Value = serde_json::from_slice(body).map_err(|e| ApiError::InvalidJson(e.to_string()))?;
    let Value::Object(fields) = value else {
        return Err(ApiError::InvalidJson("the body must be a JSON object".to_owned()));
    };
    let mut errors = ValidationErrors::new();
    for key in fields.keys().filter(|key| *key != "typing") {
        errors.push(herald_domain::FieldError::new(
            key.as_str(),
            "is not a field of a read receipt; it takes only `typing`",
        ));
    }
    if !errors.is_empty() {
        return Err(ApiError::Validation(errors));
    }
    match fields.get("typing") {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(typing)) => Ok(*typing),
        Some(_) => Err(ApiError::Validation(ValidationErrors::single(
            "typing",
            "must be true or false",
        ))),
    }
}

/// The list's filters. Empty values count as absent; an unknown parameter never gets here (`Caller` refuses
/// every parameter the operation does not declare).
pub(crate) fn parse_list_query(pairs: &[(String, String)]) -> Result<InboundQuery, ValidationErrors> {
    const KNOWN: [&str; 7] = ["number", "sender", "type", "since", "until", "limit", "cursor"];
    let mut errors = ValidationErrors::new();
    let mut query = InboundQuery {
        limit: InboundMessages::DEFAULT_LIMIT,
        ..InboundQuery::default()
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
            "number" => query.number = errors.check(key, PhoneNumber::parse(value)),
            "sender" => query.sender = errors.check(key, Recipient::parse(value)),
            "type" => query.message_type = errors.check(key, parse_type(value)),
            "since" => query.since = errors.check(key, parse_time(value)),
            "until" => query.until = errors.check(key, parse_time(value)),
            "limit" => {
                query.limit = errors
                    .check(key, parse_limit(value, InboundMessages::MAX_LIMIT))
                    .unwrap_or(InboundMessages::DEFAULT_LIMIT);
            }
            _ => query.before = errors.check(key, cursor::decode_inbound(value).map_err(InvalidValue::new)),
        }
    }
    errors.finish(query)
}

/// The network's types are lowercase words with underscores; anything else matches nothing anyway.
fn parse_type(value: &str) -> Result<String, InvalidValue> {
    if value.len() <= 32 && value.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') {
        Ok(value.to_owned())
    } else {
        Err(InvalidValue::new(
            "must be a message type such as text, image, reaction or interactive",
        ))
    }
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
        let id = InboundId::from_ulid(ulid::Ulid::from_parts(5, 5));
        let query = parse_list_query(&pairs(&[
            ("number", "+15550001111"),
            ("sender", "+15551234567"),
            ("type", "reaction"),
            ("since", "2026-11-21T10:00:00Z"),
            ("until", "2026-11-22T10:00:00Z"),
            ("limit", "10"),
            ("cursor", &cursor::encode_inbound(&id)),
            ("unknown", "x"),
        ]))
        .unwrap();
        assert_eq!(query.number.unwrap().as_str(), "+15550001111");
        assert_eq!(query.sender.unwrap().as_str(), "+15551234567");
        assert_eq!(query.message_type.as_deref(), Some("reaction"));
        assert_eq!(query.limit, 10);
        assert_eq!(query.before, Some(id));
        assert!(query.since.unwrap() < query.until.unwrap());
        assert_eq!(parse_list_query(&[]).unwrap().limit, 50);
    }

    #[test]
    fn bad_filters_name_their_field() {
        let message_cursor = cursor::encode(&MessageId::from_ulid(ulid::Ulid::from_parts(5, 5)));
        assert_eq!(
            error_fields(&[
                ("number", "nope"),
                ("sender", "123"),
                ("type", "Text!"),
                ("since", "yesterday"),
                ("limit", "0"),
                ("cursor", &message_cursor),
            ]),
            ["number", "sender", "type", "since", "limit", "cursor"]
        );
        assert_eq!(
            error_fields(&[("limit", "201"), ("limit", "5")]),
            ["limit", "limit"]
        );
    }

    #[test]
    fn the_read_body_is_optional() {
        assert!(!parse_read_body(b"").unwrap());
        assert!(!parse_read_body(b" \n").unwrap());
        assert!(!parse_read_body(b"{}").unwrap());
        assert!(parse_read_body(br#"{"typing":true}"#).unwrap());
        assert!(matches!(parse_read_body(b"[1]"), Err(ApiError::InvalidJson(_))));
        assert!(matches!(parse_read_body(b"{"), Err(ApiError::InvalidJson(_))));
        assert!(matches!(
            parse_read_body(br#"{"typing":"yes"}"#),
            Err(ApiError::Validation(_))
        ));
    }

    #[test]
    fn old_msg_ids_of_inbound_messages_still_name_them() {
        let ulid = ulid::Ulid::from_parts(7, 7);
        let legacy = MessageId::from_ulid(ulid).to_string();
        assert_eq!(inbound_id(&legacy).unwrap(), InboundId::from_ulid(ulid));
        assert!(matches!(inbound_id("whk_x"), Err(ApiError::NotFound)));
    }
}
