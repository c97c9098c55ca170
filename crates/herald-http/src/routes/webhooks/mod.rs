//! Customer webhook endpoints (docs/api.md §9): register, list, change, delete, rotate the secret, send a test,
//! inspect deliveries, redeliver one, recover after an outage.
//!
//! The signing secret leaves Herald only in the answers of create and rotate-secret; every other answer
//! is built from [`WebhookResource`], which has no field for it.

mod resources;

pub use resources::{
    CreateWebhookRequest, DeliveryAttemptResource, DeliveryPageResource, DeliveryResource, RecoverRequest,
    RecoverResource, RedeliverResource, UpdateWebhookRequest, WebhookListResource, WebhookResource,
    WebhookTestResource, WebhookWithSecretResource,
};

use crate::auth::Caller;
use crate::context::ApiContext;
use crate::error::{ApiError, HandlerResult, Problem, RateScope};
use crate::responses::{KeyedResponses, ReadResponses, WriteResponses};
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use herald_domain::ValidationErrors;
use herald_domain::ids::{DeliveryId, WebhookId};
use herald_domain::usecases::{EndpointPatch, WebhookError};
use herald_domain::webhook::{DeliveryStatus, EventSelection, WebhookUrl};

/// Deliveries per page when `limit` is not given.
const DEFAULT_PAGE: u32 = 50;
/// Tags the delivery cursor's encoding so it can change later.
const CURSOR_VERSION: &str = "d1:";
impl From<WebhookError> for ApiError {
    fn from(error: WebhookError) -> Self {
        match error {
            WebhookError::NotFound => Self::NotFound,
            WebhookError::PlanForbids { limit } => Self::WebhookLimit { limit },
            WebhookError::Invalid(errors) => Self::Validation(errors),
            WebhookError::TestsPending { limit } => Self::RateLimited {
                limit,
                retry_after_seconds: TESTS_PENDING_RETRY_SECONDS,
                scope: RateScope::WebhookTests,
            },
            WebhookError::Store(store) => store.into(),
        }
    }
}

/// How long a client refused for pending test events is asked to wait: about one delivery attempt's
/// timeout, after which a pending test has been tried.
const TESTS_PENDING_RETRY_SECONDS: u64 = 15;

/// Another organization's id and a malformed id answer the same 404, so ids are no oracle.
fn webhook_id(text: &str) -> Result<WebhookId, ApiError> {
    WebhookId::parse(text).map_err(|_| ApiError::NotFound)
}

fn delivery_id(text: &str) -> Result<DeliveryId, ApiError> {
    DeliveryId::parse(text).map_err(|_| ApiError::NotFound)
}

fn parse_events(errors: &mut ValidationErrors, names: Option<&Vec<String>>) -> Option<EventSelection> {
    let names = names?;
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    errors.check("events", EventSelection::parse(&names))
}

fn parse_url(errors: &mut ValidationErrors, url: &str) -> Option<WebhookUrl> {
    errors.check("url", WebhookUrl::parse(url))
}

fn check_description(errors: &mut ValidationErrors, description: Option<&String>) {
    if let Err(WebhookError::Invalid(found)) =
        herald_domain::usecases::check_description(description.map(String::as_str))
    {
        for error in found.errors() {
            errors.push(error.clone());
        }
    }
}

fn encode_cursor(last: &DeliveryId) -> String {
    URL_SAFE_NO_PAD.encode(format!("{CURSOR_VERSION}{last}"))
}

fn decode_cursor(cursor: &str) -> Result<DeliveryId, &'static str> {
    const INVALID: &str = "is not a cursor returned by this API";
    let bytes = URL_SAFE_NO_PAD.decode(cursor).map_err(|_| INVALID)?;
    let text = String::from_utf8(bytes).map_err(|_| INVALID)?;
    let id = text.strip_prefix(CURSOR_VERSION).ok_or(INVALID)?;
    DeliveryId::parse(id).map_err(|_| INVALID)
}

/// Register an endpoint. The answer carries its signing secret, shown this once.
#[utoipa::path(
    post,
    path = "/api/v1/webhooks",
    tag = "webhooks",
    operation_id = "createWebhook",
    request_body(content = CreateWebhookRequest, content_type = "application/json"),
    responses(
        (status = 201, description = "Created; `secret` is shown only here.", body = WebhookWithSecretResource,
            headers(("Location" = String, description = "/api/v1/webhooks/{id}"))),
        (status = 400, description = "`invalid_json`.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`account_inactive`; `plan_forbids`: the plan's endpoint count is reached.", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "`unsupported_media_type`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation_failed`: `url` (malformed, not https, or a loopback/private/link-local destination), `events`, `description`.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        WriteResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn create_webhook(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    req: HttpRequest,
    payload: web::Payload,
) -> HandlerResult {
    let body = crate::json_body::read_json::<CreateWebhookRequest>(&req, payload).await?;
    let body = body.into_inner();
    let mut errors = ValidationErrors::new();
    let url = match body.url.as_deref() {
        Some(url) => parse_url(&mut errors, url),
        None => {
            errors.push(herald_domain::FieldError::new("url", "is required"));
            None
        }
    };
    let events = parse_events(&mut errors, body.events.as_ref());
    check_description(&mut errors, body.description.as_ref());
    let Some(url) = url.filter(|_| errors.is_empty()) else {
        return Err(ApiError::Validation(errors).into());
    };
    let (endpoint, secret) = ctx
        .webhooks
        .create(
            &caller.0.organization.id,
            &caller.0.plan,
            url,
            events,
            body.description,
        )
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, format!("/api/v1/webhooks/{}", endpoint.id)))
        .json(WebhookWithSecretResource {
            endpoint: WebhookResource::from(&endpoint),
            secret,
        }))
}

/// The organization's endpoints, oldest first.
#[utoipa::path(
    get,
    path = "/api/v1/webhooks",
    tag = "webhooks",
    operation_id = "listWebhooks",
    responses(
        (status = 200, description = "The endpoints (never their secrets).", body = WebhookListResource),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        ReadResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn list_webhooks(ctx: web::Data<ApiContext>, caller: Caller) -> HandlerResult {
    let endpoints = ctx
        .webhooks
        .list(&caller.0.organization.id)
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::Ok().json(WebhookListResource {
        data: endpoints.iter().map(WebhookResource::from).collect(),
    }))
}

/// One endpoint.
#[utoipa::path(
    get,
    path = "/api/v1/webhooks/{id}",
    tag = "webhooks",
    operation_id = "getWebhook",
    params(("id" = String, Path, description = "`whk_…`")),
    responses(
        (status = 200, description = "The endpoint (never its secret).", body = WebhookResource),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not_found`: no such endpoint in this organization.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        ReadResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn get_webhook(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    id: web::Path<String>,
) -> HandlerResult {
    let id = webhook_id(&id)?;
    let endpoint = ctx
        .webhooks
        .get(&caller.0.organization.id, &id)
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::Ok().json(WebhookResource::from(&endpoint)))
}

/// Change an endpoint's url, events, description or `enabled`.
#[utoipa::path(
    patch,
    path = "/api/v1/webhooks/{id}",
    tag = "webhooks",
    operation_id = "updateWebhook",
    params(("id" = String, Path, description = "`whk_…`")),
    request_body(content = UpdateWebhookRequest, content_type = "application/json"),
    responses(
        (status = 200, description = "The changed endpoint.", body = WebhookResource),
        (status = 400, description = "`invalid_json`.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "`unsupported_media_type`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation_failed`: `url`, `events`, `description`.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        WriteResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn update_webhook(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    id: web::Path<String>,
    req: HttpRequest,
    payload: web::Payload,
) -> HandlerResult {
    let body = crate::json_body::read_json::<UpdateWebhookRequest>(&req, payload).await?;
    let id = webhook_id(&id)?;
    let body = body.into_inner();
    let mut errors = ValidationErrors::new();
    let url = body.url.as_deref().and_then(|url| parse_url(&mut errors, url));
    let events = parse_events(&mut errors, body.events.as_ref());
    check_description(&mut errors, body.description.as_ref().and_then(Option::as_ref));
    if !errors.is_empty() {
        return Err(ApiError::Validation(errors).into());
    }
    let patch = EndpointPatch {
        url,
        events,
        description: body.description,
        enabled: body.enabled,
    };
    let endpoint = ctx
        .webhooks
        .update(&caller.0.organization.id, &id, patch)
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::Ok().json(WebhookResource::from(&endpoint)))
}

/// Delete an endpoint and its delivery history.
#[utoipa::path(
    delete,
    path = "/api/v1/webhooks/{id}",
    tag = "webhooks",
    operation_id = "deleteWebhook",
    params(("id" = String, Path, description = "`whk_…`")),
    responses(
        (status = 204, description = "Deleted."),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        WriteResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn delete_webhook(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    id: web::Path<String>,
) -> HandlerResult {
    let id = webhook_id(&id)?;
    ctx.webhooks
        .delete(&caller.0.organization.id, &id)
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::NoContent().finish())
}

/// A new signing secret, shown this once; for 24 hours the old one signs too (a second signature).
#[utoipa::path(
    post,
    path = "/api/v1/webhooks/{id}/rotate-secret",
    tag = "webhooks",
    operation_id = "rotateWebhookSecret",
    params(("id" = String, Path, description = "`whk_…`")),
    responses(
        (status = 200, description = "The endpoint with its new `secret`, shown only here.", body = WebhookWithSecretResource),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        WriteResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn rotate_secret(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    id: web::Path<String>,
) -> HandlerResult {
    let id = webhook_id(&id)?;
    let (endpoint, secret) = ctx
        .webhooks
        .rotate_secret(&caller.0.organization.id, &id)
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::Ok().json(WebhookWithSecretResource {
        endpoint: WebhookResource::from(&endpoint),
        secret,
    }))
}

/// Send a `webhook.test` event to this endpoint now.
#[utoipa::path(
    post,
    path = "/api/v1/webhooks/{id}/test",
    tag = "webhooks",
    operation_id = "testWebhook",
    params(("id" = String, Path, description = "`whk_…`")),
    responses(
        (status = 202, description = "Queued; `event_id` is the `webhook-id` it arrives with.", body = WebhookTestResource),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        WriteResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn test_webhook(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    id: web::Path<String>,
) -> HandlerResult {
    let id = webhook_id(&id)?;
    let event_id = ctx
        .webhooks
        .send_test(&caller.0.organization.id, &id)
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::Accepted().json(WebhookTestResource {
        event_id: event_id.to_string(),
    }))
}

/// The endpoint's deliveries with their attempts, newest first.
#[utoipa::path(
    get,
    path = "/api/v1/webhooks/{id}/deliveries",
    tag = "webhooks",
    operation_id = "listWebhookDeliveries",
    params(
        ("id" = String, Path, description = "`whk_…`"),
        ("status" = Option<String>, Query, description = "`pending`, `succeeded`, `failed` or `skipped`"),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 200, description = "1–200, default 50"),
        ("cursor" = Option<String>, Query, description = "`next_cursor` of the previous page"),
    ),
    responses(
        (status = 200, description = "A page of deliveries.", body = DeliveryPageResource),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation_failed`: `status`, `limit`, `cursor`.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        ReadResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn list_deliveries(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    id: web::Path<String>,
    req: HttpRequest,
) -> HandlerResult {
    let id = webhook_id(&id)?;
    let pairs = web::Query::<Vec<(String, String)>>::from_query(req.query_string())
        .map(web::Query::into_inner)
        .map_err(|_| ApiError::field("query", "the query string cannot be decoded"))?;
    let mut errors = ValidationErrors::new();
    let mut status = None;
    let mut limit = DEFAULT_PAGE;
    let mut before = None;
    for (key, value) in pairs {
        if value.is_empty() {
            continue;
        }
        match key.as_str() {
            "status" => status = errors.check("status", DeliveryStatus::parse(&value)),
            "limit" => match value.parse::<u32>() {
                Ok(n) if (1..=200).contains(&n) => limit = n,
                _ => errors.push(herald_domain::FieldError::new(
                    "limit",
                    "must be between 1 and 200",
                )),
            },
            "cursor" => match decode_cursor(&value) {
                Ok(cursor) => before = Some(cursor),
                Err(message) => errors.push(herald_domain::FieldError::new("cursor", message)),
            },
            _ => {}
        }
    }
    if !errors.is_empty() {
        return Err(ApiError::Validation(errors).into());
    }
    let deliveries = ctx
        .webhooks
        .deliveries(&caller.0.organization.id, &id, status, before, limit)
        .await
        .map_err(ApiError::from)?;
    // A full page may have a successor; an empty next page is the price of not asking for limit + 1.
    let next_cursor = (deliveries.len() == limit as usize)
        .then(|| deliveries.last().map(|d| encode_cursor(&d.id)))
        .flatten();
    Ok(HttpResponse::Ok().json(DeliveryPageResource {
        data: deliveries.iter().map(DeliveryResource::from).collect(),
        next_cursor,
    }))
}

/// Deliver one event to this endpoint again now (whatever its status), with the same `webhook-id`.
#[utoipa::path(
    post,
    path = "/api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver",
    tag = "webhooks",
    operation_id = "redeliverWebhook",
    params(
        ("id" = String, Path, description = "`whk_…`"),
        ("delivery_id" = String, Path, description = "`dlv_…`"),
    ),
    responses(
        (status = 202, description = "Queued.", body = RedeliverResource),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not_found`: no such endpoint or delivery.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        WriteResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn redeliver(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    path: web::Path<(String, String)>,
) -> HandlerResult {
    let (id, delivery) = path.into_inner();
    let id = webhook_id(&id)?;
    let delivery = delivery_id(&delivery)?;
    ctx.webhooks
        .redeliver(&caller.0.organization.id, &id, &delivery)
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::Accepted().json(RedeliverResource {
        delivery_id: delivery.to_string(),
        status: DeliveryStatus::Pending.as_str().to_owned(),
    }))
}

/// Queue again every `failed` or `skipped` delivery since `since` (after an outage or a disabled period).
#[utoipa::path(
    post,
    path = "/api/v1/webhooks/{id}/recover",
    tag = "webhooks",
    operation_id = "recoverWebhook",
    params(("id" = String, Path, description = "`whk_…`")),
    request_body(content = RecoverRequest, content_type = "application/json"),
    responses(
        (status = 202, description = "Queued; `requeued` counts the deliveries.", body = RecoverResource),
        (status = 400, description = "`invalid_json`.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "`unsupported_media_type`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation_failed`: `since` is missing or not RFC 3339.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        WriteResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn recover(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    id: web::Path<String>,
    req: HttpRequest,
    payload: web::Payload,
) -> HandlerResult {
    let body = crate::json_body::read_json::<RecoverRequest>(&req, payload).await?;
    let id = webhook_id(&id)?;
    let since = match body.since.as_deref() {
        None => return Err(ApiError::field("since", "is required").into()),
        Some(text) => chrono::DateTime::parse_from_rfc3339(text)
            .map(|t| t.with_timezone(&chrono::Utc))
            .map_err(|_| ApiError::field("since", "must be an RFC 3339 time"))?,
    };
    let requeued = ctx
        .webhooks
        .recover(&caller.0.organization.id, &id, since)
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::Accepted().json(RecoverResource { requeued }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delivery_cursors_round_trip_and_refuse_others() {
        let id = DeliveryId::from_ulid(ulid::Ulid::from_parts(1_700_000_000_000, 7));
        let cursor = encode_cursor(&id);
        assert!(!cursor.contains("dlv_"));
        assert_eq!(decode_cursor(&cursor).unwrap(), id);
        let message_cursor = URL_SAFE_NO_PAD.encode(format!("v1:{id}"));
        for bad in ["", "!!", message_cursor.as_str(), "dlv_01"] {
            assert!(decode_cursor(bad).is_err(), "{bad}");
        }
    }
}
