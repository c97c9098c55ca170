//! Following messages: one message, its status history, and the message log (docs/api.md §5).

use crate::auth::Caller;
use crate::context::ApiContext;
use crate::cursor;
use crate::dto::{EventListResource, EventResource, MessageListQuery, MessagePageResource, MessageResource};
use crate::error::{ApiError, HandlerResult, Problem};
use crate::responses::{KeyedResponses, ReadResponses, WriteResponses};
use crate::routes::query::{parse_limit, parse_time, query_pairs};
use actix_web::{HttpRequest, HttpResponse, web};
use herald_domain::contact::Recipient;
use herald_domain::error::InvalidValue;
use herald_domain::ids::MessageId;
use herald_domain::message::{MessageStatus, MessageType};
use herald_domain::ports::MessageQuery;
use herald_domain::usecases::ListMessages;
use herald_domain::values::ClientReference;
use herald_domain::{FieldError, ValidationErrors};
use std::collections::HashSet;

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
    let resources = priced(&ctx, &caller, std::slice::from_ref(&message)).await?;
    Ok(HttpResponse::Ok().json(resources.into_iter().next()))
}

/// The resources of `messages`, each with its estimated cost when the organization's rate card has a
/// rate for its network category (the card is read only when a message has pricing).
pub(crate) async fn priced(
    ctx: &ApiContext,
    caller: &Caller,
    messages: &[herald_domain::message::Message],
) -> Result<Vec<MessageResource>, ApiError> {
    let mut resources: Vec<MessageResource> = messages.iter().map(MessageResource::from).collect();
    if messages.iter().any(|m| m.pricing.is_some()) {
        let card = ctx
            .rate_cards
            .card(&caller.0.organization.id)
            .await
            .map_err(ApiError::from)?;
        for (resource, message) in resources.iter_mut().zip(messages) {
            resource.estimated_cost = message
                .pricing
                .as_ref()
                .and_then(|pricing| card.estimate_pricing(pricing))
                .as_ref()
                .map(crate::dto::CostResource::from);
        }
    }
    Ok(resources)
}

/// Cancels a message not dispatched yet (a scheduled one, typically): it becomes `cancelled`, its
/// `message.status` event goes out, and its quota count is given back.
#[utoipa::path(
    post,
    path = "/api/v1/messages/{id}/cancel",
    tag = "messages",
    operation_id = "cancelMessage",
    params(("id" = String, Path, description = "The message id (`msg_…`)")),
    responses(
        (status = 200, description = "Cancelled: the message, `status` `cancelled`.", body = MessageResource),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not_found`: no such message for this organization.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`not_cancellable`: a dispatch worker has taken the message, or it is final; `detail` names its status.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        WriteResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn cancel_message(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    id: web::Path<String>,
) -> HandlerResult {
    let id = MessageId::parse(&id).map_err(|_| ApiError::NotFound)?;
    let message = ctx
        .cancel_message
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
        data: priced(&ctx, &caller, &page.messages).await?,
        next_cursor: page.next.as_ref().map(cursor::encode),
    }))
}

/// The log's filters. Empty values count as absent; an unknown parameter never gets here (`Caller` refuses
/// every parameter the operation does not declare).
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
            "to" => query.to = errors.check(key, Recipient::parse(value)),
            "type" => query.message_type = errors.check(key, MessageType::parse(value)),
            "client_reference" => query.client_reference = errors.check(key, ClientReference::parse(value)),
            "created_after" => query.created_after = errors.check(key, parse_time(value)),
            "created_before" => query.created_before = errors.check(key, parse_time(value)),
            "limit" => {
                query.limit = errors
                    .check(key, parse_limit(value, ListMessages::MAX_LIMIT))
                    .unwrap_or(ListMessages::DEFAULT_LIMIT);
            }
            _ => query.before = errors.check(key, cursor::decode(value).map_err(InvalidValue::new)),
        }
    }
    errors.finish(query)
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
