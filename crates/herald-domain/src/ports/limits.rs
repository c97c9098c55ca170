//! Rate limits: each organization's send rate, the per-key limits on other requests, and failed
//! authentications per client address.

use super::error::StoreError;
use crate::client_address::AddressBucket;
use crate::ids::OrganizationId;
use crate::organization::Plan;
use async_trait::async_trait;

/// The verdict of a rate limiter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateDecision {
    Allowed {
        limit: u32,
        remaining: u32,
        reset_seconds: u64,
    },
    Limited {
        limit: u32,
        retry_after_seconds: u64,
    },
}

/// Send-rate limiting per organization, with the plan's rate and burst.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait RateLimiter: Send + Sync + 'static {
    /// Takes `cost` sends from the organization's allowance, or says how long to wait.
    async fn check(
        &self,
        organization: &OrganizationId,
        plan: &Plan,
        cost: u32,
    ) -> Result<RateDecision, StoreError>;

    /// What [`RateLimiter::check`] would answer for `cost` sends now, taking nothing: a dry run's rate
    /// check (docs/api.md §4), which must not spend what the real send will need.
    async fn peek(
        &self,
        organization: &OrganizationId,
        plan: &Plan,
        cost: u32,
    ) -> Result<RateDecision, StoreError>;

    /// A limiter of the same kind whose buckets are apart from this one's (and from every other `purpose`'s):
    /// the allowances the API keeps beside the send rate, such as dry runs and broadcast rows (docs/api.md §3).
    /// A limiter shared by processes shares these too.
    fn apart(&self, purpose: &'static str) -> std::sync::Arc<dyn RateLimiter>;
}

/// A limiter that allows everything, for deployments and tests that limit elsewhere.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoRateLimit;

#[async_trait]
impl RateLimiter for NoRateLimit {
    async fn check(&self, _: &OrganizationId, plan: &Plan, _: u32) -> Result<RateDecision, StoreError> {
        Ok(RateDecision::Allowed {
            limit: plan.burst,
            remaining: plan.burst,
            reset_seconds: 0,
        })
    }

    async fn peek(
        &self,
        organization: &OrganizationId,
        plan: &Plan,
        cost: u32,
    ) -> Result<RateDecision, StoreError> {
        self.check(organization, plan, cost).await
    }

    fn apart(&self, _: &'static str) -> std::sync::Arc<dyn RateLimiter> {
        std::sync::Arc::new(Self)
    }
}

/// A per-key limiter of requests that are not sends: reads, and writes the send rate does not bound
/// (`herald_ratelimit::KeyLimiter` in production).
pub trait KeyLimit: Send + Sync + 'static {
    /// Takes one request from `key`'s allowance.
    fn check(&self, key: &str) -> RateDecision;
}

/// A per-address limiter of failed authentications (`herald_ratelimit::AuthFailureLimiter` in production).
pub trait AuthFailureLimit: Send + Sync + 'static {
    /// Whether `address` may try to authenticate now; takes nothing from its allowance.
    fn check(&self, address: &AddressBucket) -> RateDecision;
    /// Counts one failed authentication from `address`; says where the address stands after it.
    fn record_failure(&self, address: &AddressBucket) -> RateDecision;
}
