//! Rate limiting for Herald (docs/api.md §3, §8).
//!
//! Two adapters of the domain's [`RateLimiter`](herald_domain::ports::RateLimiter) port, both GCRA per
//! organization with the plan's rate and burst, deciding identically:
//! - [`InProcessRateLimiter`], in memory, for a single process;
//! - [`RedisRateLimiter`], one atomic Lua script per check, for several processes sharing the buckets.
//!
//! And [`KeyLimiter`], the separate in-memory per-API-key bound on reads and on writes that are not sends,
//! and [`AuthFailureLimiter`], failed API authentications per client address (default 30 a minute), the
//! adapters of the domain's `KeyLimit` and `AuthFailureLimit` ports.
//!
//! [`SenderPacer`], the domain's `Pacer`: each sender number at its throughput.
//!
//! Numbers reported: `limit` is the burst; `remaining` how many more sends would pass right now;
//! `reset_seconds` the whole seconds (rounded up) until the bucket is full again, 0 when full;
//! `retry_after_seconds` the whole seconds (rounded up, at least 1) until `cost` sends would pass.
//! A plan change takes effect on the next check: the sends already used carry over, re-expressed in
//! the new plan's bucket and clamped to its size.
//!
//! With the `contract` feature, the `contract` module holds the scripted suite every adapter must pass.

#[cfg(feature = "contract")]
// The suite is test code compiled into the library so other adapter crates can run it: failing
// loudly is its job.
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
pub mod contract;
mod gcra;
mod in_process;
mod pacer;
mod redis_limiter;

pub use in_process::{AuthFailureLimiter, InProcessRateLimiter, KeyLimiter};
pub use pacer::SenderPacer;
pub use redis_limiter::{DEFAULT_KEY_PREFIX, RedisRateLimiter};
