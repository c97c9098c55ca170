//! The one integration-test binary: the `RateLimiter` contract run against both adapters, the Redis
//! adapter's own behaviour, and the read limiter.
//!
//! The Redis tests use `HERALD_TEST_REDIS_URL`, else `redis://127.0.0.1:6379` when something listens
//! there; otherwise they print `SKIPPED (Redis unreachable): <test>` and pass — except under `CI=true`,
//! where an unreachable Redis fails them.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "test code: a panic is a failed test"
)]

mod helpers;
mod reads;
mod redis_adapter;

use helpers::redis_limiter;
use herald_ratelimit::{InProcessRateLimiter, contract};
use std::sync::Arc;

/// One test per contract scenario and adapter, so each failure names both.
macro_rules! contract_tests {
    ($($scenario:ident),* $(,)?) => {
        mod in_process {
            use super::*;
            $(
                #[tokio::test]
                async fn $scenario() {
                    contract::$scenario(&InProcessRateLimiter::new()).await;
                }
            )*

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn concurrent_checks_stay_within_rate_and_burst() {
                contract::concurrent_checks_stay_within_rate_and_burst(Arc::new(InProcessRateLimiter::new()))
                    .await;
            }
        }

        mod redis {
            use super::*;
            $(
                #[tokio::test]
                async fn $scenario() {
                    let Some(limiter) = redis_limiter(stringify!($scenario)).await else { return };
                    contract::$scenario(&limiter).await;
                }
            )*

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn concurrent_checks_stay_within_rate_and_burst() {
                let Some(limiter) = redis_limiter("concurrent_checks_stay_within_rate_and_burst").await else {
                    return;
                };
                contract::concurrent_checks_stay_within_rate_and_burst(Arc::new(limiter)).await;
            }
        }
    };
}

contract_tests!(
    burst_passes_then_the_next_is_limited,
    waiting_retry_after_lets_the_next_pass,
    remaining_counts_down_by_one_per_send,
    organizations_are_independent,
    a_plan_change_applies_on_the_next_call,
    cost_above_one_takes_that_many,
    a_peek_answers_as_a_check_and_takes_nothing,
);
