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
use herald_domain::ids::OrganizationId;
use herald_domain::organization::Plan;
use herald_domain::ports::{RateDecision, RateLimiter, StoreError};
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
}

/// The per-API-key limit on read requests (api.md §3: reads cost nothing against the send rate but are
/// bounded per key, by default 50 requests/s with a burst of 100). In memory, per process.
#[derive(Debug)]
pub struct ReadLimiter {
    params: Option<Params>,
    burst: u32,
    buckets: Buckets<String>,
}

impl ReadLimiter {
    /// The default sustained rate of reads per key.
    pub const DEFAULT_RATE_PER_SECOND: u32 = 50;
    /// The default burst of reads per key.
    pub const DEFAULT_BURST: u32 = 100;

    /// A limiter allowing `rate_per_second` reads per key with `burst` at once. A rate or burst of 0
    /// lets nothing through.
    pub fn new(rate_per_second: u32, burst: u32) -> Self {
        Self {
            params: Params::new(rate_per_second, burst),
            burst,
            buckets: Buckets::new(),
        }
    }

    /// Takes one read from `key`'s allowance, or says how long to wait.
    ///
    /// `key` identifies the API key: pass its id (`key_…`), never the secret, which must not be kept.
    pub fn check(&self, key: &str) -> RateDecision {
        match self.params {
            Some(params) => self.buckets.check(key, params, 1),
            None => gcra::blocked(self.burst),
        }
    }
}

impl Default for ReadLimiter {
    fn default() -> Self {
        Self::new(Self::DEFAULT_RATE_PER_SECOND, Self::DEFAULT_BURST)
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
    fn read_limiter_defaults_to_50_per_second_burst_100() {
        let reads = ReadLimiter::default();
        assert_eq!(
            reads.check("key_a"),
            RateDecision::Allowed {
                limit: 100,
                remaining: 99,
                reset_seconds: 1
            }
        );
    }

    #[test]
    fn a_zero_read_limit_blocks() {
        let reads = ReadLimiter::new(0, 10);
        assert_eq!(reads.check("key_a"), gcra::blocked(10));
    }
}
