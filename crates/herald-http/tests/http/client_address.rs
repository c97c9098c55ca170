//! Failed authentications per client address, over a real socket: the limit keys on the address the TCP
//! peer or a trusted proxy names, answers `429` before the key is looked up, and never counts successes.

use crate::helpers::*;
use herald_domain::client_address::TrustedProxies;
use herald_domain::ports::MockAccountStore;
use herald_ratelimit::AuthFailureLimiter;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Failures allowed per address in these tests.
const LIMIT: u32 = 3;

/// A server on a random loopback port, trusting `proxies`, with the production limiter at [`LIMIT`]; and
/// how many times the store was asked for a key.
async fn spawn(proxies: &str) -> (String, Arc<AtomicUsize>) {
    let mut world = World::new();
    let lookups = Arc::new(AtomicUsize::new(0));
    // The world's store, counting its lookups.
    let known = std::mem::replace(&mut world.accounts, MockAccountStore::new());
    let known = Arc::new(known);
    let counted = lookups.clone();
    world.accounts.expect_find_credential().returning(move |digest| {
        counted.fetch_add(1, Ordering::SeqCst);
        futures::executor::block_on(herald_domain::ports::AccountStore::find_credential(
            known.as_ref(),
            digest,
        ))
    });
    world.accounts.expect_touch_api_key().returning(|_, _| Ok(()));
    world.trusted_proxies = TrustedProxies::parse(proxies).unwrap();
    world.auth_failures = Arc::new(Failures(AuthFailureLimiter::per_minute(LIMIT)));
    let context = world.context();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = actix_web::HttpServer::new(move || herald_http::app(context.clone()))
        .workers(1)
        .listen(listener)
        .unwrap()
        .run();
    actix_rt::spawn(server);
    (format!("http://127.0.0.1:{port}"), lookups)
}

struct Failures(AuthFailureLimiter);

impl herald_http::AuthFailureLimit for Failures {
    fn check(
        &self,
        address: &herald_domain::client_address::AddressBucket,
    ) -> herald_domain::ports::RateDecision {
        self.0.check(address)
    }

    fn record_failure(
        &self,
        address: &herald_domain::client_address::AddressBucket,
    ) -> herald_domain::ports::RateDecision {
        self.0.record_failure(address)
    }
}

/// A distinct well-formed key nobody holds (so the negative cache does not spare the store).
fn unknown_key(n: usize) -> String {
    format!("hk_live_{:A>40}", format!("Z{n}"))
}

/// `GET` an id that does not parse: `404` once authenticated, so no other port is needed.
async fn get(base: &str, key: &str, forwarded_for: Option<&str>) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .get(format!("{base}/api/v1/messages/not-an-id"))
        .bearer_auth(key);
    if let Some(forwarded_for) = forwarded_for {
        request = request.header("x-forwarded-for", forwarded_for);
    }
    request.send().await.unwrap()
}

#[actix_web::test]
async fn an_address_over_its_failed_authentications_waits_and_others_do_not() {
    let (base, lookups) = spawn("127.0.0.1").await;
    let attacker = Some("198.51.100.66, 203.0.113.9");
    for n in 0..LIMIT as usize {
        assert_eq!(get(&base, &unknown_key(n), attacker).await.status(), 401);
    }
    assert_eq!(lookups.load(Ordering::SeqCst), LIMIT as usize);

    // Over the limit: refused before the store is asked, even with a valid key.
    for key in [unknown_key(99), KEY.to_owned()] {
        let reply = get(&base, &key, attacker).await;
        assert_eq!(reply.status(), 429);
        let header = |name: &str| reply.headers().get(name).unwrap().to_str().unwrap().to_owned();
        let retry_after: u64 = header("retry-after").parse().unwrap();
        assert!((1..=20).contains(&retry_after), "{retry_after}");
        assert_eq!(header("ratelimit-limit"), LIMIT.to_string());
        assert_eq!(header("ratelimit-remaining"), "0");
        assert_eq!(header("content-type"), "application/problem+json");
        let body: serde_json::Value = reply.json().await.unwrap();
        assert_eq!(body["code"], "rate_limited");
    }
    assert_eq!(
        lookups.load(Ordering::SeqCst),
        LIMIT as usize,
        "no lookup once limited"
    );
    // The spoofed left-most entry is not who the proxy saw: changing it does not escape the limit.
    assert_eq!(
        get(&base, KEY, Some("192.0.2.1, 203.0.113.9")).await.status(),
        429
    );

    // Another client behind the same proxy has its own allowance.
    let other = Some("203.0.113.10");
    assert_eq!(get(&base, &unknown_key(100), other).await.status(), 401);
    assert_eq!(
        get(&base, KEY, other).await.status(),
        404,
        "a valid key is let in"
    );
    // So has the proxy itself, and an IPv6 client (by its /64).
    assert_eq!(get(&base, KEY, None).await.status(), 404);
    assert_eq!(get(&base, KEY, Some("2001:db8:1:2::5")).await.status(), 404);
}

#[actix_web::test]
async fn successful_requests_are_never_counted() {
    let (base, _) = spawn("127.0.0.1").await;
    let client = Some("203.0.113.20");
    for _ in 0..(LIMIT * 4) {
        assert_eq!(get(&base, KEY, client).await.status(), 404);
    }
    for n in 0..LIMIT as usize {
        assert_eq!(get(&base, &unknown_key(n), client).await.status(), 401);
    }
    assert_eq!(get(&base, KEY, client).await.status(), 429);
}

#[actix_web::test]
async fn an_untrusted_peer_cannot_pick_its_bucket_with_the_header() {
    // No proxy trusted: the header names nobody, every request counts against the peer (127.0.0.1).
    let (base, _) = spawn("").await;
    for n in 0..LIMIT as usize {
        let spoofed = format!("203.0.113.{n}");
        assert_eq!(get(&base, &unknown_key(n), Some(&spoofed)).await.status(), 401);
    }
    assert_eq!(get(&base, KEY, Some("198.51.100.1")).await.status(), 429);
}
