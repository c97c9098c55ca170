//! Finding the test Redis.

use herald_ratelimit::RedisRateLimiter;
use std::time::Duration;

const DEFAULT_REDIS: &str = "127.0.0.1:6379";

/// The Redis URL to test against, or `None` (after printing why) when the test should be skipped.
///
/// # Panics
/// Under `CI=true` when no Redis is reachable: CI must not pass by skipping.
pub async fn redis_url(test: &str) -> Option<String> {
    if let Ok(url) = std::env::var("HERALD_TEST_REDIS_URL") {
        return Some(url);
    }
    let reachable = tokio::time::timeout(
        Duration::from_secs(1),
        tokio::net::TcpStream::connect(DEFAULT_REDIS),
    )
    .await
    .is_ok_and(|connected| connected.is_ok());
    if reachable {
        return Some(format!("redis://{DEFAULT_REDIS}"));
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "Redis unreachable at {DEFAULT_REDIS} under CI=true (set HERALD_TEST_REDIS_URL): {test}"
    );
    println!("SKIPPED (Redis unreachable): {test}");
    None
}

/// A key prefix no other test uses, so parallel tests never share buckets.
pub fn unique_prefix() -> String {
    format!("herald-test:{}:", ulid::Ulid::new())
}

/// A Redis limiter on its own key prefix, or `None` when the test should be skipped.
pub async fn redis_limiter(test: &str) -> Option<RedisRateLimiter> {
    let url = redis_url(test).await?;
    let limiter = RedisRateLimiter::connect(&url)
        .await
        .unwrap_or_else(|e| panic!("connecting to the test Redis: {e:#}"));
    Some(limiter.with_key_prefix(unique_prefix()))
}
