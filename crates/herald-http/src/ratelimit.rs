//! Rate limits at the HTTP edge (docs/api.md §3): the `RateLimit-*` headers of the organization's send rate on
//! every authenticated response, and the per-key limits on reads (a runaway polling loop) and on writes that
//! are not sends (uploads, webhook changes and tests, template syncs), which the send rate does not bound.
//!
//! The send rate itself is enforced by the domain (`SendMessage` asks the `RateLimiter` port, in the
//! documented order of checks); here the same limiter is only *peeked* (cost 0) to report where the caller
//! stands.

use crate::context::ApiContext;
use crate::error::{ApiError, RateScope};
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{HttpMessage, HttpRequest};
use herald_domain::ports::RateDecision;
use herald_domain::usecases::Authenticated;

pub use herald_domain::ports::KeyLimit;

/// No limit (tests that do not exercise it).
#[derive(Debug, Default, Clone, Copy)]
pub struct NoKeyLimit;

/// Marks a route as a send (resource data): its cost is the organization's send rate, which the domain
/// charges, so the per-key write limit leaves it alone.
#[derive(Debug, Clone, Copy)]
pub struct SendRoute;

impl KeyLimit for NoKeyLimit {
    fn check(&self, _: &str) -> RateDecision {
        RateDecision::Allowed {
            limit: u32::MAX,
            remaining: u32::MAX,
            reset_seconds: 0,
        }
    }
}

/// Where the caller stands against its organization's send rate, kept on the request for the headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SendAllowance {
    pub limit: u32,
    pub remaining: u32,
    pub reset_seconds: u64,
}

impl SendAllowance {
    pub(crate) fn from_decision(decision: RateDecision) -> Self {
        match decision {
            RateDecision::Allowed {
                limit,
                remaining,
                reset_seconds,
            } => Self {
                limit,
                remaining,
                reset_seconds,
            },
            RateDecision::Limited {
                limit,
                retry_after_seconds,
            } => Self {
                limit,
                remaining: 0,
                reset_seconds: retry_after_seconds,
            },
        }
    }
}

/// The early rate check of a send route, before its body is read: a dry run (`?dry_run=true`) takes one
/// from the organization's dry-run bucket; any other request is refused when the send rate has no room for
/// one more send (only looked at: the send itself takes its unit, after the plan check). `allowance` is the
/// send rate as just looked at.
pub(crate) async fn refuse_send_over_rate(
    ctx: &ApiContext,
    req: &HttpRequest,
    caller: &Authenticated,
    allowance: RateDecision,
) -> Result<(), ApiError> {
    let (decision, scope) = if crate::dry_run::dry_run_requested(req).unwrap_or(false) {
        let decision = ctx
            .dry_run_limiter
            .check(&caller.organization.id, &caller.plan, 1)
            .await?;
        (decision, RateScope::DryRuns)
    } else {
        let decision = match allowance {
            // Only an empty bucket needs the wait for one send.
            RateDecision::Allowed { remaining: 0, .. } | RateDecision::Limited { .. } => {
                ctx.send_limiter
                    .peek(&caller.organization.id, &caller.plan, 1)
                    .await?
            }
            allowed @ RateDecision::Allowed { .. } => allowed,
        };
        (decision, RateScope::Sends)
    };
    refuse_when_limited(decision, scope)
}

/// `429 rate_limited` in `scope` when `decision` is limited (`Retry-After` at least 1 s).
fn refuse_when_limited(decision: RateDecision, scope: RateScope) -> Result<(), ApiError> {
    match decision {
        RateDecision::Allowed { .. } => Ok(()),
        RateDecision::Limited {
            limit,
            retry_after_seconds,
        } => Err(ApiError::RateLimited {
            limit,
            retry_after_seconds: retry_after_seconds.max(1),
            scope,
        }),
    }
}

/// Charges a broadcast's recipient rows (`rows`, every row it lists: each is checked against the store)
/// to the organization's broadcast-row bucket, the plan's [`Plan::broadcast_rows`]; `429 rate_limited` when it
/// has no room for them. Checked before any row is checked or stored, so one organization's broadcasts cannot
/// monopolise the shared store (docs/api.md §3). A list longer than a broadcast may be costs nothing here: the
/// validation refuses it.
///
/// [`Plan::broadcast_rows`]: herald_domain::organization::Plan::broadcast_rows
pub(crate) async fn charge_broadcast_rows(
    ctx: &ApiContext,
    caller: &Authenticated,
    body: &serde_json::Value,
) -> Result<(), ApiError> {
    let rows = body
        .get("recipients")
        .and_then(serde_json::Value::as_array)
        .map_or(0, Vec::len);
    if rows == 0 || rows > herald_domain::broadcast::MAX_RECIPIENTS {
        return Ok(());
    }
    let cost = u32::try_from(rows).unwrap_or(u32::MAX);
    let decision = ctx
        .broadcast_row_limiter
        .check(&caller.organization.id, &caller.plan.broadcast_rows(), cost)
        .await?;
    refuse_when_limited(decision, RateScope::BroadcastRows)
}

pub(crate) fn remember(req: &HttpRequest, allowance: SendAllowance) {
    req.extensions_mut().insert(allowance);
}

/// Adds `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` to responses of authenticated
/// requests. A send that was just accepted used one more unit than the peek saw.
pub(crate) async fn headers(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let mut response = next.call(req).await?;
    let allowance = response.request().extensions().get::<SendAllowance>().copied();
    if let Some(mut allowance) = allowance {
        let status = response.status();
        if status.as_u16() == 202 {
            allowance.remaining = allowance.remaining.saturating_sub(1);
        } else if status.as_u16() == 429 {
            allowance.remaining = 0;
        }
        let headers = response.headers_mut();
        for (name, value) in [
            ("ratelimit-limit", u64::from(allowance.limit)),
            ("ratelimit-remaining", u64::from(allowance.remaining)),
            ("ratelimit-reset", allowance.reset_seconds),
        ] {
            headers.insert(HeaderName::from_static(name), HeaderValue::from(value));
        }
    }
    Ok(response)
}
