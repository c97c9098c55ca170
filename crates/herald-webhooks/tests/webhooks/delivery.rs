//! One delivery attempt against a real local receiver.

use std::time::{Duration, Instant, SystemTime};

use herald_webhooks::{AttemptErrorKind, BODY_PREFIX_LIMIT, IDLE_CONNECTION_TIMEOUT, next_attempt};
use standardwebhooks::Webhook;

use crate::helpers::{BODY, Reply, deliverer, deliverer_with, local_policy, now, secret, spawn_receiver};

#[tokio::test]
async fn headers_and_body_arrive_and_the_signature_verifies() {
    let mut receiver = spawn_receiver(Reply::status(204)).await;
    let secret = secret();
    let ts = now();
    let target = local_policy()
        .check_url(&receiver.url("/hooks/herald?x=1"))
        .await
        .unwrap();
    let outcome = deliverer()
        .deliver(&target, "evt_01J", ts, BODY, &[&secret])
        .await;

    assert!(outcome.succeeded, "{outcome:?}");
    assert_eq!(outcome.status, Some(204));
    assert_eq!(outcome.error_kind, None);
    assert_eq!(outcome.body_prefix, "");

    let request = receiver.next_request().await;
    assert_eq!(request.method, "POST");
    assert_eq!(request.path, "/hooks/herald?x=1");
    assert_eq!(request.body, BODY);
    let header = |name: &str| request.headers.get(name).unwrap().to_str().unwrap().to_owned();
    assert_eq!(header("content-type"), "application/json");
    assert_eq!(header("webhook-id"), "evt_01J");
    assert_eq!(header("webhook-timestamp"), ts.to_string());
    assert_eq!(
        header("user-agent"),
        format!("Herald-Webhooks/{}", env!("CARGO_PKG_VERSION"))
    );
    let signature = header("webhook-signature");
    assert_eq!(signature.split(' ').count(), 1);
    Webhook::new(&secret.expose())
        .unwrap()
        .verify(&request.body, &request.headers)
        .unwrap();
}

#[tokio::test]
async fn two_secrets_send_two_signatures_that_both_verify() {
    let mut receiver = spawn_receiver(Reply::status(200)).await;
    let (old, new) = (secret(), secret());
    let outcome = deliverer()
        .check_and_deliver(&receiver.url("/"), "evt_rot", now(), BODY, &[&old, &new])
        .await;
    assert!(outcome.succeeded, "{outcome:?}");
    let request = receiver.next_request().await;
    let signature = request
        .headers
        .get("webhook-signature")
        .unwrap()
        .to_str()
        .unwrap();
    let entries: Vec<&str> = signature.split(' ').collect();
    assert_eq!(entries.len(), 2);
    assert_ne!(entries[0], entries[1]);
    Webhook::new(&old.expose())
        .unwrap()
        .verify(&request.body, &request.headers)
        .unwrap();
    Webhook::new(&new.expose())
        .unwrap()
        .verify(&request.body, &request.headers)
        .unwrap();
    assert!(
        Webhook::new(&secret().expose())
            .unwrap()
            .verify(&request.body, &request.headers)
            .is_err()
    );
}

#[tokio::test]
async fn a_redirect_is_a_failure_and_is_not_followed() {
    let mut elsewhere = spawn_receiver(Reply::status(200)).await;
    let mut receiver = spawn_receiver(Reply::Full {
        status: 307,
        headers: vec![("location".into(), elsewhere.url("/stolen"))],
        body: b"moved".to_vec(),
    })
    .await;
    let outcome = deliverer()
        .check_and_deliver(&receiver.url("/"), "evt_r", now(), BODY, &[&secret()])
        .await;
    assert!(!outcome.succeeded);
    assert_eq!(outcome.status, Some(307));
    assert_eq!(outcome.error_kind, Some(AttemptErrorKind::Redirect));
    assert_eq!(outcome.body_prefix, "moved");
    receiver.next_request().await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!elsewhere.has_request());
    assert_eq!(elsewhere.connections(), 0);
}

#[tokio::test]
async fn non_2xx_is_an_http_status_failure_with_the_body_prefix() {
    let receiver = spawn_receiver(Reply::Full {
        status: 500,
        headers: vec![],
        body: br#"{"error":"boom"}"#.to_vec(),
    })
    .await;
    let outcome = deliverer()
        .check_and_deliver(&receiver.url("/"), "evt_5", now(), BODY, &[&secret()])
        .await;
    assert!(!outcome.succeeded);
    assert_eq!(outcome.status, Some(500));
    assert_eq!(outcome.error_kind, Some(AttemptErrorKind::HttpStatus));
    assert_eq!(outcome.body_prefix, r#"{"error":"boom"}"#);
    assert_eq!(outcome.retry_after, None);
}

#[tokio::test]
async fn a_2_mib_body_is_cut_at_1_kib() {
    let receiver = spawn_receiver(Reply::Full {
        status: 500,
        headers: vec![],
        body: vec![b'x'; 2 << 20],
    })
    .await;
    let started = Instant::now();
    let outcome = deliverer()
        .check_and_deliver(&receiver.url("/"), "evt_big", now(), BODY, &[&secret()])
        .await;
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(outcome.status, Some(500));
    assert_eq!(outcome.body_prefix.len(), BODY_PREFIX_LIMIT);
    assert!(outcome.body_prefix.bytes().all(|b| b == b'x'));
}

#[tokio::test]
async fn the_body_is_not_read_past_the_prefix() {
    // 2 MiB announced, 64 KiB sent, then silence: reading to the end would run into the 10 s timeout.
    let receiver = spawn_receiver(Reply::PartialThenHang {
        status: 200,
        declared: 2 << 20,
        sent: vec![b'y'; 64 << 10],
    })
    .await;
    let started = Instant::now();
    let outcome = deliverer_with(Duration::from_secs(10))
        .check_and_deliver(&receiver.url("/"), "evt_stall", now(), BODY, &[&secret()])
        .await;
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "took {:?}",
        started.elapsed()
    );
    assert!(outcome.succeeded, "{outcome:?}");
    assert_eq!(outcome.body_prefix, "y".repeat(BODY_PREFIX_LIMIT));
}

#[tokio::test]
async fn a_receiver_that_hangs_is_a_timeout() {
    let mut receiver = spawn_receiver(Reply::Hang).await;
    let started = Instant::now();
    let outcome = deliverer_with(Duration::from_millis(500))
        .check_and_deliver(&receiver.url("/"), "evt_hang", now(), BODY, &[&secret()])
        .await;
    let elapsed = started.elapsed();
    assert!(
        elapsed >= Duration::from_millis(500) && elapsed < Duration::from_secs(3),
        "took {elapsed:?}"
    );
    assert_eq!(outcome.error_kind, Some(AttemptErrorKind::Timeout), "{outcome:?}");
    assert_eq!(outcome.status, None);
    assert!(!outcome.succeeded);
    receiver.next_request().await;
    // The schedule then waits at least a minute.
    assert_eq!(next_attempt(1, &outcome, 0.0), Some(Duration::from_secs(60)));
}

#[tokio::test]
async fn status_429_with_retry_after_seconds() {
    let receiver = spawn_receiver(Reply::Full {
        status: 429,
        headers: vec![("retry-after".into(), "90".into())],
        body: vec![],
    })
    .await;
    let outcome = deliverer()
        .check_and_deliver(&receiver.url("/"), "evt_429", now(), BODY, &[&secret()])
        .await;
    assert_eq!(outcome.status, Some(429));
    assert_eq!(outcome.error_kind, Some(AttemptErrorKind::HttpStatus));
    assert_eq!(outcome.retry_after, Some(Duration::from_secs(90)));
    // After attempt 1 the 60 s floor applies, and 90 s lies inside [60 s, 120 s].
    assert_eq!(next_attempt(1, &outcome, 0.0), Some(Duration::from_secs(90)));
}

#[tokio::test]
async fn status_503_with_retry_after_http_date() {
    let at = SystemTime::now() + Duration::from_secs(600);
    let receiver = spawn_receiver(Reply::Full {
        status: 503,
        headers: vec![("retry-after".into(), httpdate::fmt_http_date(at))],
        body: vec![],
    })
    .await;
    let outcome = deliverer()
        .check_and_deliver(&receiver.url("/"), "evt_503", now(), BODY, &[&secret()])
        .await;
    assert_eq!(outcome.status, Some(503));
    let wait = outcome.retry_after.unwrap();
    assert!(
        wait > Duration::from_secs(590) && wait <= Duration::from_secs(600),
        "{wait:?}"
    );
    // After attempt 2 (scheduled 5 min) the 10 min ask is at most 2 × scheduled, so it is honoured.
    assert_eq!(next_attempt(2, &outcome, 0.0), Some(wait));
}

#[tokio::test]
async fn connections_are_kept_alive_between_attempts() {
    let mut receiver = spawn_receiver(Reply::status(200)).await;
    let deliverer = deliverer();
    for i in 0..3 {
        let outcome = deliverer
            .check_and_deliver(&receiver.url("/"), &format!("evt_{i}"), now(), BODY, &[&secret()])
            .await;
        assert!(outcome.succeeded, "{outcome:?}");
        receiver.next_request().await;
    }
    assert_eq!(receiver.connections(), 1);
}

#[tokio::test]
async fn a_connection_idle_past_the_timeout_is_not_reused() {
    let mut receiver = spawn_receiver(Reply::status(200)).await;
    let deliverer = deliverer();
    for i in 0..2 {
        if i > 0 {
            tokio::time::sleep(IDLE_CONNECTION_TIMEOUT + Duration::from_millis(500)).await;
        }
        let outcome = deliverer
            .check_and_deliver(&receiver.url("/"), &format!("evt_{i}"), now(), BODY, &[&secret()])
            .await;
        assert!(outcome.succeeded, "{outcome:?}");
        receiver.next_request().await;
    }
    assert_eq!(receiver.connections(), 2);
}

#[tokio::test]
async fn a_host_name_connects_to_its_checked_addresses() {
    let mut receiver = spawn_receiver(Reply::status(200)).await;
    let url = format!("http://localhost:{}/named", receiver.addr.port());
    let outcome = deliverer()
        .check_and_deliver(&url, "evt_named", now(), BODY, &[&secret()])
        .await;
    assert!(outcome.succeeded, "{outcome:?}");
    assert_eq!(receiver.next_request().await.path, "/named");
}

#[tokio::test]
async fn a_closed_port_is_a_connect_failure() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let outcome = deliverer()
        .check_and_deliver(
            &format!("http://127.0.0.1:{port}/"),
            "evt_c",
            now(),
            BODY,
            &[&secret()],
        )
        .await;
    assert_eq!(outcome.error_kind, Some(AttemptErrorKind::Connect), "{outcome:?}");
    assert_eq!(outcome.status, None);
}

#[tokio::test]
async fn a_failed_tls_handshake_is_a_tls_failure() {
    let receiver = spawn_receiver(Reply::RawOnAccept(b"HTTP/1.1 400 Bad Request\r\n\r\n".to_vec())).await;
    let url = format!("https://{}/", receiver.addr);
    let outcome = deliverer_with(Duration::from_secs(5))
        .check_and_deliver(&url, "evt_t", now(), BODY, &[&secret()])
        .await;
    assert_eq!(outcome.error_kind, Some(AttemptErrorKind::Tls), "{outcome:?}");
    assert!(
        !outcome.error_detail.unwrap_or_default().contains(&url),
        "the URL stays out of the detail"
    );
}

/// With no secret that could be opened, nothing is sent (an empty `webhook-signature` used to go out): the
/// attempt fails as `no_signing_secret` and is retried on the schedule, so a rotation mends it.
#[tokio::test]
async fn without_a_signing_secret_nothing_is_sent_and_the_attempt_fails() {
    let mut receiver = spawn_receiver(Reply::status(204)).await;
    let target = local_policy().check_url(&receiver.url("/hook")).await.unwrap();
    let outcome = deliverer().deliver(&target, "evt_01J", now(), BODY, &[]).await;
    assert!(!outcome.succeeded);
    assert_eq!(outcome.error_kind, Some(AttemptErrorKind::NoSigningSecret));
    assert_eq!(outcome.status, None);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!receiver.has_request(), "an unsigned request went out");
    assert!(
        next_attempt(1, &outcome, 0.0).is_some(),
        "retried on the schedule"
    );
}
