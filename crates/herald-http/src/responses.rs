//! The responses that several operations share, described once for the OpenAPI document; each operation's
//! `responses(...)` lists the ones that apply beside its own.

use crate::dto::MessageResource;
use crate::error::Problem;

/// What every operation behind an API key can answer, whatever it does: the key refused (docs/api.md §1) and a
/// bug (docs/api.md §2).
#[derive(utoipa::IntoResponses)]
#[expect(
    dead_code,
    reason = "describes responses for the OpenAPI document; never built"
)]
pub(crate) enum KeyedResponses {
    #[response(
        status = 401,
        description = "`unauthenticated`, `api_key_disabled`.",
        content_type = "application/problem+json"
    )]
    Unauthenticated(Problem),
    #[response(
        status = 500,
        description = "`internal`.",
        content_type = "application/problem+json"
    )]
    Internal(Problem),
}

/// What a read (`GET`) behind an API key can answer beside [`KeyedResponses`]: reads are limited per key
/// (docs/api.md §3).
#[derive(utoipa::IntoResponses)]
#[expect(
    dead_code,
    reason = "describes responses for the OpenAPI document; never built"
)]
pub(crate) enum ReadResponses {
    #[response(
        status = 429,
        description = "`rate_limited`: over the key's read limit, or too many failed authentications from the \
                       client's address; `Retry-After` says when to retry.",
        content_type = "application/problem+json",
        headers(("Retry-After" = u64, description = "Seconds, at least 1"))
    )]
    RateLimited(Problem),
}

/// What a write that is not a send can answer beside [`KeyedResponses`]: such writes are limited per key
/// (docs/api.md §3).
#[derive(utoipa::IntoResponses)]
#[expect(
    dead_code,
    reason = "describes responses for the OpenAPI document; never built"
)]
pub(crate) enum WriteResponses {
    #[response(
        status = 429,
        description = "`rate_limited`: over the key's write limit, too many failed authentications from the \
                       client's address, or (a webhook test) too many test events waiting for the endpoint; \
                       `Retry-After` says when to retry.",
        content_type = "application/problem+json",
        headers(("Retry-After" = u64, description = "Seconds, at least 1"))
    )]
    RateLimited(Problem),
}

/// A send accepted (docs/api.md §4).
#[derive(utoipa::IntoResponses)]
#[response(
    status = 202,
    description = "Accepted: stored and queued.",
    headers(
        ("Location" = String, description = "/api/v1/messages/{id}"),
        ("Idempotent-Replayed" = String, description = "`true` when this is a replay of an earlier response")
    )
)]
#[expect(
    dead_code,
    reason = "describes a response for the OpenAPI document; never built"
)]
pub(crate) struct SendAccepted(MessageResource);

/// What every send operation answers beside [`SendAccepted`], [`KeyedResponses`] and its own refusals: a
/// retry of an idempotent request still in flight, the plan's limits, and the store down (docs/api.md §4).
#[derive(utoipa::IntoResponses)]
#[expect(
    dead_code,
    reason = "describes responses for the OpenAPI document; never built"
)]
pub(crate) enum SendResponses {
    #[response(
        status = 200,
        description = "`?dry_run=true`: what the send would meet, its refusals in order; nothing was stored, \
                       counted, spent or sent."
    )]
    DryRun(crate::dto::DryRunResource),
    #[response(
        status = 409,
        description = "`idempotency_conflict`: a request with the same key is still in flight.",
        content_type = "application/problem+json"
    )]
    IdempotencyConflict(Problem),
    #[response(
        status = 429,
        description = "`rate_limited` (the plan's send rate, checked before the body is read; a dry run's own \
                       rate; or too many failed authentications from the client's address), `quota_exceeded`; \
                       `Retry-After` says when to retry.",
        content_type = "application/problem+json",
        headers(("Retry-After" = u64, description = "Seconds, at least 1"))
    )]
    Limited(Problem),
    #[response(
        status = 503,
        description = "`unavailable`: nothing was accepted; `Retry-After` set.",
        content_type = "application/problem+json",
        headers(("Retry-After" = u64, description = "Seconds"))
    )]
    Unavailable(Problem),
}
