//! What only the Redis adapter does: shared buckets across processes, key layout and expiry, and
//! failure when Redis goes away.

use crate::helpers::{redis_url, unique_prefix};
use herald_domain::ports::{RateDecision, RateLimiter, StoreError};
use herald_ratelimit::contract::{new_organization, plan};
use herald_ratelimit::{DEFAULT_KEY_PREFIX, RedisRateLimiter};
use redis::AsyncCommands;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;

#[tokio::test]
async fn connecting_to_nothing_fails() {
    // Port 1 on loopback: nothing listens there.
    let result = RedisRateLimiter::connect("redis://:sekrit@127.0.0.1:1").await;
    let error = format!("{:#}", result.expect_err("connected to nothing"));
    assert!(!error.contains("sekrit"), "the password leaked: {error}");
    assert!(RedisRateLimiter::connect("not a url").await.is_err());
}

#[tokio::test]
async fn two_processes_share_one_bucket() {
    let Some(url) = redis_url("two_processes_share_one_bucket").await else {
        return;
    };
    let prefix = unique_prefix();
    let one = RedisRateLimiter::connect(&url)
        .await
        .unwrap()
        .with_key_prefix(&prefix);
    let two = RedisRateLimiter::connect(&url)
        .await
        .unwrap()
        .with_key_prefix(&prefix);
    let (org, small) = (new_organization(), plan("small", 1, 4));
    for limiter in [&one, &two, &one, &two] {
        assert!(matches!(
            limiter.check(&org, &small, 1).await.unwrap(),
            RateDecision::Allowed { .. }
        ));
    }
    assert!(matches!(
        one.check(&org, &small, 1).await.unwrap(),
        RateDecision::Limited { .. }
    ));
    assert!(matches!(
        two.check(&org, &small, 1).await.unwrap(),
        RateDecision::Limited { .. }
    ));
}

#[tokio::test]
async fn a_bucket_is_a_hash_under_the_prefix_that_expires_when_full() {
    let Some(url) = redis_url("a_bucket_is_a_hash_under_the_prefix_that_expires_when_full").await else {
        return;
    };
    let prefix = unique_prefix();
    let limiter = RedisRateLimiter::connect(&url).await.unwrap();
    assert_eq!(
        limiter.key(&new_organization()).len(),
        DEFAULT_KEY_PREFIX.len() + 30
    );
    let limiter = limiter.with_key_prefix(&prefix);
    let org = new_organization();
    let key = limiter.key(&org);
    assert_eq!(key, format!("{prefix}{org}"));

    limiter.check(&org, &plan("slow", 1, 10), 3).await.unwrap();
    let mut raw = redis::Client::open(url.as_str())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let interval: u64 = raw.hget(&key, "interval").await.unwrap();
    assert_eq!(interval, 1_000_000);
    let ttl_ms: i64 = raw.pttl(&key).await.unwrap();
    // 3 sends at 1/s: full again in 3 s.
    assert!((2_000..=3_000).contains(&ttl_ms), "pttl {ttl_ms}");

    // A fast plan empties quickly; once full the bucket is gone.
    let fast_org = new_organization();
    limiter.check(&fast_org, &plan("fast", 100, 10), 1).await.unwrap();
    tokio::time::sleep(Duration::from_millis(30)).await;
    let exists: bool = raw.exists(limiter.key(&fast_org)).await.unwrap();
    assert!(!exists, "a full bucket should have expired");
}

/// Forwards TCP connections to Redis until dropped, so a test can take "Redis" away.
struct Proxy {
    address: String,
    tasks: JoinSet<()>,
}

impl Proxy {
    async fn start(upstream: String, address: &str) -> Self {
        let listener = TcpListener::bind(address).await.unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let mut tasks = JoinSet::new();
        tasks.spawn(async move {
            let mut connections = JoinSet::new();
            loop {
                let Ok((mut inbound, _)) = listener.accept().await else {
                    return;
                };
                let upstream = upstream.clone();
                connections.spawn(async move {
                    let mut outbound = TcpStream::connect(upstream).await.unwrap();
                    let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                });
            }
        });
        Self { address, tasks }
    }
}

#[tokio::test]
async fn redis_going_away_is_unavailable() {
    let Some(url) = redis_url("redis_going_away_is_unavailable").await else {
        return;
    };
    let upstream = url
        .strip_prefix("redis://")
        .and_then(|rest| rest.split('/').next())
        .filter(|host| !host.contains('@'))
        .map(str::to_owned);
    let Some(upstream) = upstream else {
        println!("SKIPPED (the test Redis URL has credentials or a scheme the proxy cannot forward)");
        return;
    };
    let mut proxy = Proxy::start(upstream.clone(), "127.0.0.1:0").await;
    let limiter = RedisRateLimiter::connect(&format!("redis://{}", proxy.address))
        .await
        .unwrap()
        .with_key_prefix(unique_prefix());
    let (org, small) = (new_organization(), plan("small", 1, 4));
    assert!(matches!(
        limiter.check(&org, &small, 1).await.unwrap(),
        RateDecision::Allowed { .. }
    ));

    // Dropping the accept loop drops its connection tasks: the listener and every socket close.
    proxy.tasks.abort_all();
    while proxy.tasks.join_next().await.is_some() {}

    let started = std::time::Instant::now();
    let result = limiter.check(&org, &small, 1).await;
    assert!(matches!(result, Err(StoreError::Unavailable(_))), "{result:?}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "took {:?}",
        started.elapsed()
    );

    // Redis back on the same address: the limiter reconnects by itself, the bucket still counted.
    let _proxy = Proxy::start(upstream, &proxy.address).await;
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let decision = loop {
        match limiter.check(&org, &small, 1).await {
            Ok(decision) => break decision,
            Err(StoreError::Unavailable(_)) if std::time::Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(other) => panic!("no recovery: {other:?}"),
        }
    };
    assert!(
        matches!(decision, RateDecision::Allowed { remaining: 2, .. }),
        "after reconnecting: {decision:?}"
    );
}
