//! Broadcasts (docs/api.md §4.10): one template to up to 10,000 recipients, accepted whole or not at all and
//! released to dispatch at the sender's pace; reading them, their messages, cancelling and resuming.

use crate::auth::Caller;
use crate::context::ApiContext;
use crate::cursor;
use crate::dry_run::dry_run_requested;
use crate::dto::{
    BroadcastCreatedResource, BroadcastDryRunResource, BroadcastListQuery, BroadcastMessagesQuery,
    BroadcastPageResource, BroadcastRequest, BroadcastResource, MessagePageResource,
};
use crate::error::{ApiError, BroadcastChange, HandlerResult, Problem, RejectedRowResource};
use crate::json_body::read_json_up_to;
use crate::responses::{KeyedResponses, ReadResponses, WriteResponses};
use crate::routes::messages::{parse_list_query, priced};
use crate::routes::query::{parse_limit, query_pairs};
use crate::routes::send::idempotency;
use crate::send_body;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use herald_domain::broadcast::BroadcastState;
use herald_domain::error::InvalidValue;
use herald_domain::ids::BroadcastId;
use herald_domain::ports::BroadcastQuery;
use herald_domain::usecases::{BroadcastCommand, BroadcastCreated, ListMessages};
use herald_domain::{FieldError, ValidationErrors};
use std::collections::HashSet;
use utoipa::Path as _;

/// The largest broadcast body: room for 10,000 recipients with their variables.
pub const BROADCAST_JSON_LIMIT_BYTES: usize = 16 * 1024 * 1024;

/// Broadcasts per page of the list, unless `limit` says otherwise.
const DEFAULT_LIMIT: u32 = 50;
const MAX_LIMIT: u32 = 200;

/// Create a broadcast: one template to up to 10,000 recipients.
///
/// Every row is checked on its own, as a single template send would be (its fields, its variables against
/// the template, its files, a repeated recipient, blocks and marketing opt-outs): the invalid rows are left
/// out and listed in `rejected` with their index, and the valid ones are accepted as ONE broadcast, all
/// counted against the monthly quota together: if the quota cannot take them all, nothing is stored
/// (`429 quota_exceeded`). The messages are released to dispatch at the sender's pace. A retry with the
/// same `Idempotency-Key` and body answers the same broadcast again, with `Idempotent-Replayed: true`.
///
/// `?dry_run=true` makes every check the create makes, every row judged the same way, and answers `200`
/// with what the broadcast would meet: nothing is stored, counted or sent.
#[utoipa::path(
    post,
    path = "/api/v1/broadcasts",
    tag = "broadcasts",
    operation_id = "createBroadcast",
    request_body(content = BroadcastRequest, content_type = "application/json"),
    params(
        crate::dto::SendQuery,
        ("Idempotency-Key" = Option<String>, Header, description = "Up to 255 visible ASCII characters; a retry with the same key and body answers the same broadcast. Not looked at by a dry run (its format is checked)."),
    ),
    responses(
        (status = 200, description = "`?dry_run=true`: what the broadcast would meet, its refusals in order, the rows it would accept and leave out, the pricing category and estimated cost; nothing was stored, counted or sent.", body = BroadcastDryRunResource),
        (status = 202, description = "Accepted: the broadcast, with the rows left out in `rejected`.", body = BroadcastCreatedResource,
            headers(
                ("Location" = String, description = "/api/v1/broadcasts/{id}"),
                ("Idempotent-Replayed" = String, description = "`true` when this is a replay of an earlier response")
            )),
        (status = 400, description = "`invalid_json`: the body is not valid JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`account_inactive`, `plan_forbids` (the plan has no template messages).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`template_not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "`payload_too_large`: the body is over 16 MiB.", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "`unsupported_media_type`: the body is not `application/json`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation_failed` (a shared field, `recipients` missing, empty or over 10,000, or no valid row: then `rejected` lists every row; a `dry_run` other than `true` or `false`, or another query parameter), `template_not_approved`, `header_media_mismatch` (the shared `header`), `idempotency_key_reused`.", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`rate_limited` (the plan's send rate: a broadcast counts as one send, or too many failed authentications from the client's address), `quota_exceeded` (the quota has room for fewer messages than the valid rows: nothing was stored); `Retry-After` says when to retry.", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds, at least 1"))),
        (status = 503, description = "`unavailable`: nothing was accepted; `Retry-After` set.", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds"))),
        KeyedResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn create_broadcast(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    req: HttpRequest,
    payload: web::Payload,
) -> HandlerResult {
    let dry_run = create_query(&req)?;
    // Read only now, after authentication, so a bad key answers 401 whatever the body.
    let body = read_json_up_to(&req, payload, BROADCAST_JSON_LIMIT_BYTES).await?;
    let (idempotency, header_error) = idempotency(&req, &__path_create_broadcast::path(), &body);
    // A dry run took a unit of the dry-run bucket before its body was read, which bounds its row checks; it
    // charges no rows, so it leaves a later real broadcast's room as it was. Nor does a replay of an accepted
    // `Idempotency-Key`: it checks and stores no row.
    let replay = match &idempotency {
        Some((key, _)) if !dry_run => ctx
            .broadcasts
            .has_key(&caller.0.organization.id, key)
            .await
            .map_err(ApiError::from)?,
        _ => false,
    };
    if !dry_run && !replay {
        crate::ratelimit::charge_broadcast_rows(&ctx, &caller.0, &body).await?;
    }
    let Caller(caller) = caller;
    let command = BroadcastCommand {
        organization: caller.organization,
        plan: caller.plan,
        draft: send_body::with_header_error(send_body::broadcast_draft(&body), header_error),
        idempotency,
    };
    if dry_run {
        return dry_run_answer(&ctx, command).await;
    }
    let created = ctx.broadcasts.create(command).await.map_err(ApiError::from)?;
    let (view, rejected, replayed) = match created {
        BroadcastCreated::Accepted { view, rejected } => (view, rejected, false),
        BroadcastCreated::Replayed { view } => (view, Vec::new(), true),
    };
    let mut response = HttpResponse::Accepted();
    response.insert_header((
        header::LOCATION,
        format!("/api/v1/broadcasts/{}", view.broadcast.id),
    ));
    if replayed {
        response.insert_header(("Idempotent-Replayed", "true"));
    }
    Ok(response.json(BroadcastCreatedResource {
        accepted: view.broadcast.total,
        broadcast: BroadcastResource::from(&view),
        rejected: rejected.iter().map(RejectedRowResource::from).collect(),
    }))
}

/// Whether the create is a dry run: `dry_run` is its only query parameter, and only `true` or `false` (a
/// misspelt dry run must never send).
fn create_query(req: &HttpRequest) -> Result<bool, ApiError> {
    let mut errors = ValidationErrors::new();
    for (key, _) in query_pairs(req)? {
        if key != "dry_run" {
            errors.push(FieldError::new(
                key,
                "is not a parameter of this operation; it takes `dry_run`",
            ));
        }
    }
    errors.finish(()).map_err(ApiError::Validation)?;
    dry_run_requested(req)
}

/// `200` with what the broadcast would meet: the domain's dry run, and the rate card's estimate of its
/// accepted rows in the template's category.
async fn dry_run_answer(ctx: &ApiContext, command: BroadcastCommand) -> HandlerResult {
    let organization = command.organization.id;
    let run = ctx.broadcasts.dry_run(command).await.map_err(ApiError::from)?;
    let estimated_cost = match &run.pricing {
        Some(pricing) => ctx
            .rate_cards
            .card(&organization)
            .await
            .map_err(ApiError::from)?
            .estimate(&pricing.category, pricing.billable, u64::from(run.accepted)),
        None => None,
    };
    Ok(HttpResponse::Ok().json(BroadcastDryRunResource::new(run, estimated_cost.as_ref())))
}

/// The organization's broadcasts, newest first, in pages.
#[utoipa::path(
    get,
    path = "/api/v1/broadcasts",
    tag = "broadcasts",
    operation_id = "listBroadcasts",
    params(BroadcastListQuery),
    responses(
        (status = 200, description = "A page of broadcasts.", body = BroadcastPageResource),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation_failed`: `status`, `limit` or `cursor` is invalid.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        ReadResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn list_broadcasts(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    req: HttpRequest,
) -> HandlerResult {
    let query = parse_broadcast_query(&query_pairs(&req)?).map_err(ApiError::Validation)?;
    let organization = caller.0.organization.id;
    let limit = query.limit;
    let probe = BroadcastQuery {
        limit: limit + 1,
        ..query
    };
    let mut broadcasts = ctx
        .broadcasts
        .list(&organization, &probe)
        .await
        .map_err(ApiError::from)?;
    let next = if broadcasts.len() > limit as usize {
        broadcasts.truncate(limit as usize);
        broadcasts
            .last()
            .map(|b| cursor::encode_broadcast(&b.broadcast.id))
    } else {
        None
    };
    let data = broadcasts.iter().map(BroadcastResource::from).collect();
    Ok(HttpResponse::Ok().json(BroadcastPageResource {
        data,
        next_cursor: next,
    }))
}

/// One broadcast, with its messages counted by status.
#[utoipa::path(
    get,
    path = "/api/v1/broadcasts/{id}",
    tag = "broadcasts",
    operation_id = "getBroadcast",
    params(("id" = String, Path, description = "The broadcast id (`brd_…`)")),
    responses(
        (status = 200, description = "The broadcast.", body = BroadcastResource),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not_found`: no such broadcast for this organization.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        ReadResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn get_broadcast(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    id: web::Path<String>,
) -> HandlerResult {
    let id = broadcast_id(&id)?;
    let view = ctx
        .broadcasts
        .get(&caller.0.organization.id, &id)
        .await
        .map_err(ApiError::from)?
        .ok_or(ApiError::NotFound)?;
    Ok(HttpResponse::Ok().json(BroadcastResource::from(&view)))
}

/// Cancel a broadcast: nothing more is released, and every message not taken by dispatch yet becomes
/// `cancelled` (its quota count given back); messages already dispatching go on. The broadcast is
/// `cancelling` until none is left; a cancel that failed half-way (`503`) is finished by its retry.
#[utoipa::path(
    post,
    path = "/api/v1/broadcasts/{id}/cancel",
    tag = "broadcasts",
    operation_id = "cancelBroadcast",
    params(("id" = String, Path, description = "The broadcast id (`brd_…`)")),
    responses(
        (status = 200, description = "Cancelled: the broadcast, `status` `cancelled`.", body = BroadcastResource),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not_found`: no such broadcast for this organization.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`broadcast_not_cancellable`: the broadcast is completed or cancelled (a `cancelling` one is not: the cancel finishes it); `detail` names its state.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set. The cancel may have stopped half-way (the broadcast `cancelling`): retry it.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        WriteResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn cancel_broadcast(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    id: web::Path<String>,
) -> HandlerResult {
    let id = broadcast_id(&id)?;
    let view = ctx
        .broadcasts
        .cancel(&caller.0.organization.id, &id)
        .await
        .map_err(|error| ApiError::of_broadcast_change(BroadcastChange::Cancel, error))?;
    Ok(HttpResponse::Ok().json(BroadcastResource::from(&view)))
}

/// Resume a paused broadcast: the pacer releases its messages again.
#[utoipa::path(
    post,
    path = "/api/v1/broadcasts/{id}/resume",
    tag = "broadcasts",
    operation_id = "resumeBroadcast",
    params(("id" = String, Path, description = "The broadcast id (`brd_…`)")),
    responses(
        (status = 200, description = "Resumed: the broadcast, `status` `running`.", body = BroadcastResource),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not_found`: no such broadcast for this organization.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`broadcast_not_paused`: only a paused broadcast can be resumed; `detail` names its state.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        WriteResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn resume_broadcast(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    id: web::Path<String>,
) -> HandlerResult {
    let id = broadcast_id(&id)?;
    let view = ctx
        .broadcasts
        .resume(&caller.0.organization.id, &id)
        .await
        .map_err(|error| ApiError::of_broadcast_change(BroadcastChange::Resume, error))?;
    Ok(HttpResponse::Ok().json(BroadcastResource::from(&view)))
}

/// A broadcast's messages, newest first, in pages: the message log's page and filters.
#[utoipa::path(
    get,
    path = "/api/v1/broadcasts/{id}/messages",
    tag = "broadcasts",
    operation_id = "listBroadcastMessages",
    params(("id" = String, Path, description = "The broadcast id (`brd_…`)"), BroadcastMessagesQuery),
    responses(
        (status = 200, description = "A page of the broadcast's messages.", body = MessagePageResource),
        (status = 403, description = "`account_inactive`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not_found`: no such broadcast for this organization.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation_failed`: a filter, `limit` or `cursor` is invalid.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unavailable`; `Retry-After` set.", body = Problem, content_type = "application/problem+json"),
        KeyedResponses,
        ReadResponses,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn broadcast_messages(
    ctx: web::Data<ApiContext>,
    caller: Caller,
    req: HttpRequest,
    id: web::Path<String>,
) -> HandlerResult {
    let id = broadcast_id(&id)?;
    let query = parse_list_query(&query_pairs(&req)?).map_err(ApiError::Validation)?;
    let limit = query.limit.clamp(1, ListMessages::MAX_LIMIT);
    let probe = herald_domain::ports::MessageQuery {
        limit: limit + 1,
        ..query
    };
    let mut messages = ctx
        .broadcasts
        .messages(&caller.0.organization.id, &id, probe)
        .await
        .map_err(ApiError::from)?
        .ok_or(ApiError::NotFound)?
        .messages;
    let next = if messages.len() > limit as usize {
        messages.truncate(limit as usize);
        messages.last().map(|m| cursor::encode(&m.id))
    } else {
        None
    };
    Ok(HttpResponse::Ok().json(MessagePageResource {
        data: priced(&ctx, &caller, &messages).await?,
        next_cursor: next,
    }))
}

/// A malformed id names no broadcast, so it answers like an unknown one.
fn broadcast_id(value: &str) -> Result<BroadcastId, ApiError> {
    BroadcastId::parse(value).map_err(|_| ApiError::NotFound)
}

/// The list's filters. Empty values count as absent; unknown parameters are ignored.
pub(crate) fn parse_broadcast_query(pairs: &[(String, String)]) -> Result<BroadcastQuery, ValidationErrors> {
    const KNOWN: [&str; 3] = ["status", "limit", "cursor"];
    let mut errors = ValidationErrors::new();
    let mut query = BroadcastQuery {
        limit: DEFAULT_LIMIT,
        ..BroadcastQuery::default()
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
            "status" => {
                query.state = errors.check(
                    key,
                    BroadcastState::parse(value).ok_or_else(|| {
                        InvalidValue::new(
                            "must be scheduled, running, paused, completed, cancelling or cancelled",
                        )
                    }),
                );
            }
            "limit" => {
                query.limit = errors
                    .check(key, parse_limit(value, MAX_LIMIT))
                    .unwrap_or(DEFAULT_LIMIT);
            }
            _ => {
                query.before = errors.check(key, cursor::decode_broadcast(value).map_err(InvalidValue::new));
            }
        }
    }
    errors.finish(query)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code fails loudly by design")]

    use super::*;
    use ulid::Ulid;

    fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
        items
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn list_filters_parse_and_bad_ones_are_named() {
        let id = BroadcastId::from_ulid(Ulid::from_parts(5, 5));
        let cursor = cursor::encode_broadcast(&id);
        let query = parse_broadcast_query(&pairs(&[
            ("status", "paused"),
            ("limit", "200"),
            ("cursor", &cursor),
            ("other", "ignored"),
        ]))
        .unwrap();
        assert_eq!(query.state, Some(BroadcastState::Paused));
        assert_eq!(query.limit, 200);
        assert_eq!(query.before, Some(id));
        assert_eq!(parse_broadcast_query(&[]).unwrap().limit, 50);
        let errors = parse_broadcast_query(&pairs(&[
            ("status", "sent"),
            ("limit", "201"),
            ("cursor", "nonsense"),
        ]))
        .unwrap_err();
        let fields: Vec<&str> = errors.errors().iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["status", "limit", "cursor"]);
    }
}
