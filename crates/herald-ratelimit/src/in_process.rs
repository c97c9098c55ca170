//! Limiters that keep their buckets in this process's memory.
//!
//! Why not `governor`: its GCRA state (the TAT, in nanoseconds since that limiter was built) is private
//! to each `RateLimiter` value and tied to one `Quota`. A plan change would mean building a new limiter
//! that starts with a full bucket — handing out a fresh burst on every plan edit instead of carrying the
//! sends already used over — and its "remaining" (through `StateInformationMiddleware`) cannot be
//! combined with our own reset and retry numbers computed the same way as the Redis script. The GCRA
//! itself is a few lines (`crate::gcra`), shared with the Redis adapter so both decide identically.

use crate::gcra::{self, Bucket, Params};
use async_trait::async_trait;
use herald_domain::client_address::AddressBucket;
use herald_domain::ids::OrganizationId;
use herald_domain::organization::Plan;
use herald_domain::ports::{AuthFailureLimit, KeyLimit, RateDecision, RateLimiter, StoreError};
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

/// Below this many buckets the map is never swept.
const MIN_SWEEP_LEN: usize = 1_024;

/// Buckets by key on a monotonic clock, swept of full (forgettable) buckets as the map grows.
#[derive(Debug)]
struct Buckets<K> {
    origin: Instant,
    inner: Mutex<Inner<K>>,
}

#[derive(Debug)]
struct Inner<K> {
    map: HashMap<K, Bucket>,
    /// The map's length at which the next sweep happens; doubles with the live buckets so sweeping
    /// stays amortised O(1) per check.
    sweep_at: usize,
}

impl<K: Eq + Hash> Buckets<K> {
    fn new() -> Self {
        Self {
            origin: Instant::now(),
            inner: Mutex::new(Inner {
                map: HashMap::new(),
                sweep_at: MIN_SWEEP_LEN,
            }),
        }
    }

    fn now_us(&self) -> u64 {
        u64::try_from(self.origin.elapsed().as_micros()).unwrap_or(u64::MAX)
    }

    /// Checks and updates one bucket under the lock, so concurrent checks of one key are serialised.
    fn check<Q>(&self, key: &Q, params: Params, cost: u32) -> RateDecision
    where
        K: std::borrow::Borrow<Q>,
        Q: Hash + Eq + ToOwned<Owned = K> + ?Sized,
    {
        // The map holds only numbers, always left consistent, so a panic elsewhere while holding the
        // lock leaves nothing half-written: carry on with it.
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let now_us = self.now_us();
        let outcome = gcra::check(inner.map.get(key).copied(), now_us, params, cost);
        if let Some(bucket) = outcome.store {
            if let Some(slot) = inner.map.get_mut(key) {
                *slot = bucket;
            } else {
                if inner.map.len() >= inner.sweep_at {
                    inner.map.retain(|_, b| b.tat_us > now_us);
                    inner.sweep_at = (inner.map.len() * 2).max(MIN_SWEEP_LEN);
                }
                inner.map.insert(key.to_owned(), bucket);
            }
        }
        outcome.decision
    }

    /// What `check` would decide, changing nothing.
    fn peek<Q>(&self, key: &Q, params: Params, cost: u32) -> RateDecision
    where
        K: std::borrow::Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        gcra::check(inner.map.get(key).copied(), self.now_us(), params, cost).decision
    }
}

/// The send-rate limiter for a single Herald process: GCRA per organization with its plan's rate and
/// burst, in memory.
///
/// A plan change takes effect on the next check: the sends already counted are carried over into the
/// new plan's bucket (clamped to its size). With several processes each would grant the full rate; use
/// [`crate::RedisRateLimiter`] there.
#[derive(Debug)]
pub struct InProcessRateLimiter {
    buckets: Buckets<OrganizationId>,
}

impl InProcessRateLimiter {
    /// A limiter with no buckets yet: every organization starts full.
    pub fn new() -> Self {
        Self {
            buckets: Buckets::new(),
        }
    }
}

impl Default for InProcessRateLimiter {
    fn default() -> Self {
        Self::new()
    }
}

#[async_trait]
impl RateLimiter for InProcessRateLimiter {
    /// Never fails. A plan with rate or burst 0 lets nothing through (`retry_after_seconds` 60); a
    /// `cost` above the burst never passes (`retry_after_seconds` is the wait for a full bucket).
    async fn check(
        &self,
        organization: &OrganizationId,
        plan: &Plan,
        cost: u32,
    ) -> Result<RateDecision, StoreError> {
        Ok(match Params::from_plan(plan) {
            Some(params) => self.buckets.check(organization, params, cost),
            None => gcra::blocked(plan.burst),
        })
    }

    async fn peek(
        &self,
        organization: &OrganizationId,
        plan: &Plan,
        cost: u32,
    ) -> Result<RateDecision, StoreError> {
        Ok(match Params::from_plan(plan) {
            Some(params) => self.buckets.peek(organization, params, cost),
            None => gcra::blocked(plan.burst),
        })
    }

    /// A new limiter of this process: its buckets are its own.
    fn apart(&self, _: &'static str) -> std::sync::Arc<dyn RateLimiter> {
        std::sync::Arc::new(Self::new())
    }
}

/// A per-API-key limit on requests that are not sends (docs/api.md §3: reads and other writes cost nothing
/// against the send rate but are bounded per key, by default reads at 50 requests/s with a burst of 100 and
/// writes at 5/s with a burst of 20). In memory, per process.
#[derive(Debug)]
pub struct KeyLimiter {
    params: Option<Params>,
    burst: u32,
    buckets: Buckets<String>,
}

impl KeyLimiter {
    /// A limiter allowing `rate_per_second` requests per key with `burst` at once. A rate or burst of 0
    /// lets nothing through.
    pub fn new(rate_per_second: u32, burst: u32) -> Self {
        Self {
            params: Params::new(rate_per_second, burst),
            burst,
            buckets: Buckets::new(),
        }
    }

    /// Takes one request from `key`'s allowance, or says how long to wait.
    ///
    /// `key` identifies the API key: pass its id (`key_…`), never the secret, which must not be kept.
    pub fn check(&self, key: &str) -> RateDecision {
        match self.params {
            Some(params) => self.buckets.check(key, params, 1),
            None => gcra::blocked(self.burst),
        }
    }
}

/// Failed API authentications per client address (IPv6 by /64): a bucket of `per_minute` failures refilled
/// at `per_minute` a minute. Only failures are charged, so a client whose key works is never counted; an
/// address whose bucket is empty is refused before its key is looked up. In memory, per process.
#[derive(Debug)]
pub struct AuthFailureLimiter {
    params: Option<Params>,
    burst: u32,
    buckets: Buckets<AddressBucket>,
}

impl AuthFailureLimiter {
    /// The default number of failed authentications per minute (and at once) from one address: far above
    /// what a client with a mistyped or revoked key sends before someone looks, far below guessing speed.
    pub const DEFAULT_PER_MINUTE: u32 = 30;

    /// `per_minute` failures per minute per address, all of them at once at most; 0 refuses every
    /// address (nothing can fail, so nothing is let near the store).
    pub fn per_minute(per_minute: u32) -> Self {
        let params = (per_minute > 0).then(|| Params {
            interval_us: (60 * gcra::MICROS / u64::from(per_minute)).max(1),
            burst: per_minute,
        });
        Self {
            params,
            burst: per_minute,
            buckets: Buckets::new(),
        }
    }

    /// Whether `address` may try to authenticate: `Limited` (with the wait until its next failure would be
    /// allowed) when one more failure would not fit. Takes nothing from the bucket.
    pub fn check(&self, address: &AddressBucket) -> RateDecision {
        match self.params {
            Some(params) => self.buckets.peek(address, params, 1),
            None => gcra::blocked(self.burst),
        }
    }

    /// Counts one failed authentication from `address`; says where the address stands after it
    /// (`Allowed` with `remaining: 0` when this failure used up its allowance).
    pub fn record_failure(&self, address: &AddressBucket) -> RateDecision {
        match self.params {
            Some(params) => self.buckets.check(address, params, 1),
            None => gcra::blocked(self.burst),
        }
    }
}

impl KeyLimit for KeyLimiter {
    fn check(&self, key: &str) -> RateDecision {
        KeyLimiter::check(self, key)
    }
}

impl AuthFailureLimit for AuthFailureLimiter {
    fn check(&self, address: &AddressBucket) -> RateDecision {
        AuthFailureLimiter::check(self, address)
    }

    fn record_failure(&self, address: &AddressBucket) -> RateDecision {
        AuthFailureLimiter::record_failure(self, address)
    }
}

impl Default for AuthFailureLimiter {
    fn default() -> Self {
        Self::per_minute(Self::DEFAULT_PER_MINUTE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweeping_forgets_only_full_buckets() {
        let buckets: Buckets<String> = Buckets::new();
        // Slow enough that nothing refills during the test.
        let params = Params::new(1, 10).unwrap();
        for i in 0..MIN_SWEEP_LEN {
            buckets.check(format!("k{i}").as_str(), params, 0);
        }
        // Cost 0 on a full bucket stores a bucket already full: all of them are forgettable.
        buckets.check("used", params, 3);
        let inner = buckets.inner.lock().unwrap();
        assert_eq!(inner.map.len(), 1);
        assert!(inner.map.contains_key("used"));
        drop(inner);
        assert!(matches!(
            buckets.check("used", params, 1),
            RateDecision::Allowed { remaining: 6, .. }
        ));
    }

    #[test]
    fn a_key_limiter_starts_each_key_with_its_burst() {
        let reads = KeyLimiter::new(50, 100);
        assert_eq!(
            reads.check("key_a"),
            RateDecision::Allowed {
                limit: 100,
                remaining: 99,
                reset_seconds: 1
            }
        );
    }

    /// The broadcast-row bucket (docs/api.md §3): one broadcast of the largest size passes on a full bucket,
    /// the next rows wait for the plan's rate, and neither touches the send rate's own bucket.
    #[tokio::test]
    async fn broadcast_rows_count_in_a_bucket_apart_from_sends() {
        let plan = herald_domain::organization::Plan::defaults()
            .into_iter()
            .find(|plan| plan.name.as_str() == "business")
            .unwrap();
        let rows_plan = plan.broadcast_rows();
        assert_eq!(rows_plan.burst, 10_000);
        assert_eq!(rows_plan.rate_per_second, plan.rate_per_second);
        let sends = InProcessRateLimiter::new();
        let rows = sends.apart("broadcast-rows");
        let org = OrganizationId::parse("org_01JD0000000000000000000000").unwrap();
        assert!(matches!(
            rows.check(&org, &rows_plan, 10_000).await.unwrap(),
            RateDecision::Allowed { remaining: 0, .. }
        ));
        // 160 rows are two seconds at 80 rows a second.
        assert_eq!(
            rows.check(&org, &rows_plan, 160).await.unwrap(),
            RateDecision::Limited {
                limit: 10_000,
                retry_after_seconds: 2
            }
        );
        // The send rate's bucket is still full.
        assert!(matches!(
            sends.check(&org, &plan, 1).await.unwrap(),
            RateDecision::Allowed { remaining: 159, .. }
        ));
    }

    #[test]
    fn a_zero_read_limit_blocks() {
        let reads = KeyLimiter::new(0, 10);
        assert_eq!(reads.check("key_a"), gcra::blocked(10));
    }

    fn bucket(address: &str) -> AddressBucket {
        AddressBucket::of(address.parse().unwrap())
    }

    #[test]
    fn failures_past_the_limit_refuse_the_address_and_only_it() {
        let failures = AuthFailureLimiter::per_minute(3);
        let one = bucket("203.0.113.9");
        for _ in 0..3 {
            assert!(matches!(failures.check(&one), RateDecision::Allowed { .. }));
            failures.record_failure(&one);
        }
        // The next failure would be the fourth within the minute: one refills every 20 s.
        assert_eq!(
            failures.check(&one),
            RateDecision::Limited {
                limit: 3,
                retry_after_seconds: 20
            }
        );
        assert!(
            matches!(failures.check(&one), RateDecision::Limited { .. }),
            "checking takes nothing and gives nothing back"
        );
        assert!(matches!(
            failures.check(&bucket("203.0.113.10")),
            RateDecision::Allowed { .. }
        ));
        // The same /64 is the same client.
        for _ in 0..3 {
            failures.record_failure(&bucket("2001:db8::1"));
        }
        assert!(matches!(
            failures.check(&bucket("2001:db8::ffff")),
            RateDecision::Limited { .. }
        ));
    }

    #[test]
    fn checks_alone_are_never_limited() {
        let failures = AuthFailureLimiter::per_minute(1);
        for _ in 0..100 {
            assert!(matches!(
                failures.check(&bucket("203.0.113.9")),
                RateDecision::Allowed { .. }
            ));
        }
        assert_eq!(AuthFailureLimiter::default().burst, 30);
    }
}
