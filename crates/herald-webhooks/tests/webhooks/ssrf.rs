//! Destination rules: refused at check time, and refused again (without any request) at delivery.

use herald_webhooks::{
    AttemptErrorKind, Deliverer, DeliveryTimeouts, DestinationError, DestinationPolicy, ForbiddenRange,
};

use crate::helpers::{BODY, Reply, now, secret, spawn_receiver};

const STRICT_BUT_HTTP: DestinationPolicy = DestinationPolicy {
    allow_insecure: true,
    allow_private: false,
};

#[tokio::test]
async fn forbidden_targets_are_refused_when_private_targets_are_not_allowed() {
    let cases = [
        ("http://127.0.0.1/", ForbiddenRange::Loopback),
        ("http://[::1]/", ForbiddenRange::Loopback),
        ("http://10.0.0.1/", ForbiddenRange::Private),
        (
            "http://169.254.169.254/latest/meta-data/",
            ForbiddenRange::LinkLocal,
        ),
        ("http://[::ffff:127.0.0.1]/", ForbiddenRange::Loopback),
        ("http://[::ffff:a9fe:a9fe]/", ForbiddenRange::LinkLocal),
        ("http://100.64.1.1/", ForbiddenRange::SharedAddressSpace),
        ("http://[fe80::1]/", ForbiddenRange::LinkLocal),
        ("http://[fd00::1]/", ForbiddenRange::UniqueLocal),
        ("http://224.0.0.1/", ForbiddenRange::Multicast),
        ("http://192.0.2.1/", ForbiddenRange::Documentation),
        ("http://0.0.0.0/", ForbiddenRange::Unspecified),
        ("http://localhost/", ForbiddenRange::Loopback),
        ("http://localhost:8080/hook", ForbiddenRange::Loopback),
    ];
    for (url, want) in cases {
        match STRICT_BUT_HTTP.check_url(url).await {
            Err(DestinationError::ForbiddenAddress { range, address, .. }) => {
                assert_eq!(range, want, "{url} ({address})");
            }
            other => panic!("{url}: expected a forbidden address, got {other:?}"),
        }
    }
}

/// The refusal goes back to the customer: it says the host is not public, never what an internal name
/// resolves to (which would let a customer probe Herald's DNS) nor which range it is in.
#[tokio::test]
async fn refusal_messages_do_not_name_the_resolved_address() {
    let err = STRICT_BUT_HTTP
        .check_url("http://169.254.169.254/")
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "the webhook host `169.254.169.254` is not a public address"
    );
    let err = STRICT_BUT_HTTP.check_url("http://localhost/").await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "the webhook host `localhost` is not a public address"
    );
    assert!(
        !err.to_string().contains("127.0.0.1") && !err.to_string().contains("::1"),
        "{err}"
    );
}

#[tokio::test]
async fn private_targets_pass_when_allowed() {
    let lenient = DestinationPolicy {
        allow_insecure: true,
        allow_private: true,
    };
    for url in [
        "http://127.0.0.1/",
        "http://[::1]/",
        "http://10.0.0.1/",
        "http://localhost/",
    ] {
        let checked = lenient.check_url(url).await.unwrap();
        assert!(!checked.addrs().is_empty(), "{url}");
    }
}

#[tokio::test]
async fn http_is_refused_without_allow_insecure() {
    for policy in [
        DestinationPolicy {
            allow_insecure: false,
            allow_private: false,
        },
        DestinationPolicy {
            allow_insecure: false,
            allow_private: true,
        },
    ] {
        assert_eq!(
            policy.check_url("http://example.com/hook").await,
            Err(DestinationError::InsecureScheme)
        );
        assert_eq!(
            policy.check_url("http://127.0.0.1/hook").await,
            Err(DestinationError::InsecureScheme)
        );
    }
}

#[tokio::test]
async fn delivery_to_a_forbidden_target_is_blocked_and_sends_nothing() {
    let mut receiver = spawn_receiver(Reply::status(200)).await;
    let deliverer = Deliverer::new(STRICT_BUT_HTTP, DeliveryTimeouts::default()).unwrap();
    let secret = secret();
    for url in [
        receiver.url("/hook"),
        format!("http://localhost:{}/hook", receiver.addr.port()),
    ] {
        let outcome = deliverer
            .check_and_deliver(&url, "evt_1", now(), BODY, &[&secret])
            .await;
        assert_eq!(
            outcome.error_kind,
            Some(AttemptErrorKind::BlockedDestination),
            "{url}"
        );
        assert!(!outcome.succeeded);
        assert_eq!(outcome.status, None);
        assert!(outcome.error_detail.unwrap().contains("is not a public address"));
    }
    let https_only = Deliverer::new(DestinationPolicy::default(), DeliveryTimeouts::default()).unwrap();
    let outcome = https_only
        .check_and_deliver(&receiver.url("/hook"), "evt_1", now(), BODY, &[&secret])
        .await;
    assert_eq!(outcome.error_kind, Some(AttemptErrorKind::BlockedDestination));
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    assert!(!receiver.has_request());
    assert_eq!(receiver.connections(), 0);
}

#[tokio::test]
async fn an_unresolvable_host_is_a_connect_failure_not_a_block() {
    let err = STRICT_BUT_HTTP
        .check_url("http://no-such-host.invalid/")
        .await
        .unwrap_err();
    assert!(matches!(err, DestinationError::Unresolvable { .. }), "{err:?}");
    let deliverer = Deliverer::new(STRICT_BUT_HTTP, DeliveryTimeouts::default()).unwrap();
    let outcome = deliverer
        .check_and_deliver("http://no-such-host.invalid/", "evt_1", now(), BODY, &[&secret()])
        .await;
    assert_eq!(outcome.error_kind, Some(AttemptErrorKind::Connect));
}
