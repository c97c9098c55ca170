//! The bearer-key extractor: every `/api/v1` handler takes a [`Caller`], the tenant scope (docs/api.md §1).

use crate::client_address::client_address;
use crate::context::ApiContext;
use crate::error::{ApiError, RateScope};
use crate::ratelimit::{self, SendRoute};
use crate::request_id::record_organization;
use actix_web::dev::Payload;
use actix_web::http::Method;
use actix_web::http::header::{AUTHORIZATION, HeaderMap};
use actix_web::{FromRequest, HttpRequest, web};
use herald_domain::client_address::AddressBucket;
use herald_domain::ports::RateDecision;
use herald_domain::usecases::{Admission, Authenticated};
use std::future::Future;
use std::pin::Pin;

/// The authenticated caller of a request: its organization, plan and key.
#[derive(Debug, Clone)]
pub struct Caller(pub Authenticated);

impl FromRequest for Caller {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        Box::pin(caller(req.clone(), Admission::ActiveOnly))
    }
}

/// The caller of the one operation a suspended or closed organization may still make: erasing a person
/// (docs/api.md §7.2; [`Admission::AnyState`] says why). Everything else about the key is checked as for
/// [`Caller`].
#[derive(Debug, Clone)]
pub struct CallerInAnyState(pub Authenticated);

impl FromRequest for CallerInAnyState {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move {
            let Caller(caller) = caller(req, Admission::AnyState).await?;
            Ok(Self(caller))
        })
    }
}

/// Authenticates the request's key for the organizations `admission` lets in, then applies the per-key
/// limits and refuses undeclared query parameters.
async fn caller(req: HttpRequest, admission: Admission) -> Result<Caller, ApiError> {
    let ctx = req
        .app_data::<web::Data<ApiContext>>()
        .cloned()
        .ok_or_else(|| ApiError::Internal(anyhow::anyhow!("ApiContext is missing from app data")))?;
    let address = client_address(&req, &ctx.trusted_proxies);
    let bucket = AddressBucket::of(address);
    // Before the key is looked at: a guessing address over its limit costs the store nothing.
    if let RateDecision::Limited {
        limit,
        retry_after_seconds,
    } = ctx.auth_failures.check(&bucket)
    {
        tracing::debug!(client = %address, "API request refused: too many failed authentications");
        return Err(ApiError::RateLimited {
            limit,
            retry_after_seconds,
            scope: RateScope::FailedAuthentications,
        });
    }
    // Missing, wrong scheme and malformed all end as the same `unauthenticated` as an unknown key.
    let authenticated = match bearer_token(req.headers()) {
        Some(token) => ctx
            .authenticate
            .execute_admitting(token, admission)
            .await
            .map_err(ApiError::from),
        None => Err(ApiError::Unauthenticated),
    };
    // Only keys that open nothing count: a disabled key or a suspended organization is a known
    // client, and a store failure is not the caller's.
    if let Err(ApiError::Unauthenticated) = &authenticated
        && let RateDecision::Allowed { remaining: 0, .. } = ctx.auth_failures.record_failure(&bucket)
    {
        // Logged when the address uses up its allowance, not for every refused request after, so a
        // flood of bad keys does not flood the log as well.
        tracing::warn!(
            client = %address,
            bucket = %bucket,
            "too many failed API authentications; the address must wait"
        );
    }
    let caller = authenticated?;
    record_organization(&req, &caller.organization.id);
    if ctx.metrics_organization_labels {
        crate::metrics::label_organization(&req, &caller.organization.id);
    }
    // Reads and writes other than sends are bounded per key; sends cost the organization's send rate.
    let limiter = if matches!(*req.method(), Method::GET | Method::HEAD) {
        Some((&ctx.read_limiter, RateScope::Reads))
    } else if req.app_data::<SendRoute>().is_some() {
        None
    } else {
        Some((&ctx.write_limiter, RateScope::Writes))
    };
    if let Some((limiter, scope)) = limiter
        && let RateDecision::Limited {
            limit,
            retry_after_seconds,
        } = limiter.check(&caller.key_id.to_string())
    {
        return Err(ApiError::RateLimited {
            limit,
            retry_after_seconds,
            scope,
        });
    }
    let allowance = ctx
        .send_limiter
        .check(&caller.organization.id, &caller.plan, 0)
        .await?;
    // A send's (and a dry run's) rate comes before its body is read, so a caller over its rate
    // costs no parsing however large the body.
    if req.app_data::<SendRoute>().is_some() {
        ratelimit::refuse_send_over_rate(&ctx, &req, &caller, allowance).await?;
    }
    ratelimit::remember(&req, ratelimit::SendAllowance::from_decision(allowance));
    // Every parameter the operation does not declare is refused, on every operation.
    crate::routes::query::refuse_undeclared(&req)?;
    Ok(Caller(caller))
}

/// The token of `Authorization: Bearer <token>` (scheme case-insensitive, RFC 9110).
fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty() && !token.contains(' ')).then_some(token)
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::http::header::HeaderValue;

    fn token(value: Option<&str>) -> Option<String> {
        let mut headers = HeaderMap::new();
        if let Some(value) = value {
            headers.insert(AUTHORIZATION, HeaderValue::from_str(value).unwrap());
        }
        bearer_token(&headers).map(str::to_owned)
    }

    #[test]
    fn only_bearer_tokens_are_taken() {
        assert_eq!(token(Some("Bearer hk_live_abc")).as_deref(), Some("hk_live_abc"));
        assert_eq!(token(Some("bearer hk_live_abc")).as_deref(), Some("hk_live_abc"));
        for bad in [
            None,
            Some("Basic dXNlcjpwYXNz"),
            Some("Bearer"),
            Some("Bearer "),
            Some("hk_live_abc"),
            Some("Bearer a b"),
        ] {
            assert_eq!(token(bad), None, "{bad:?}");
        }
    }
}
