//! Each class of network failure, synchronous and at the transport level.

use crate::helpers::*;
use herald_cloudapi::CloudApiClient;
use herald_domain::message::{MessageContent, MessageError};
use herald_domain::ports::{MessagingNetwork, NetworkError};
use herald_domain::values::MessageText;
use std::time::Duration;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

fn hello() -> MessageContent {
    MessageContent::Text {
        body: MessageText::parse("hello").unwrap(),
        preview_url: false,
    }
}

async fn outcome(response: ResponseTemplate) -> NetworkError {
    send_with(response, hello()).await.0.unwrap_err()
}

#[tokio::test]
async fn undeliverable_is_permanent_with_the_network_code() {
    let error = outcome(graph_error(400, 131026, "Message Undeliverable.")).await;
    assert_eq!(
        error,
        NetworkError::Permanent(MessageError {
            code: "recipient_unreachable".into(),
            title: "The message could not be delivered to the recipient".into(),
            detail: "Message Undeliverable.".into(),
            network_code: Some(131026),
        })
    );
}

#[tokio::test]
async fn other_permanent_codes_get_their_herald_code() {
    for (code, herald) in [
        (131047, "service_window_closed"),
        (132001, "template_not_found"),
        (132000, "template_variables_mismatch"),
    ] {
        match outcome(graph_error(400, code, "details")).await {
            NetworkError::Permanent(error) => {
                assert_eq!(error.code, herald);
                assert_eq!(error.network_code, Some(code));
            }
            other => panic!("{code}: expected permanent, got {other:?}"),
        }
    }
}

#[tokio::test]
async fn throughput_limits_are_throttled_with_retry_after() {
    for status in [429, 400] {
        let error =
            outcome(graph_error(status, 130429, "Rate limit hit").insert_header("Retry-After", "12")).await;
        assert_eq!(
            error,
            NetworkError::Throttled {
                code: 130429,
                detail: "Rate limit hit".into(),
                retry_after: Some(chrono::TimeDelta::seconds(12)),
            },
            "HTTP {status}"
        );
    }
    let without_header = outcome(graph_error(400, 80007, "waba")).await;
    assert_eq!(
        without_header,
        NetworkError::Throttled {
            code: 80007,
            detail: "waba".into(),
            retry_after: None
        }
    );
}

/// The pair rate limit concerns one recipient: that message backs off, the sender is not slowed down.
#[tokio::test]
async fn the_pair_rate_limit_is_retried_per_message() {
    let error = outcome(graph_error(400, 131056, "pair")).await;
    assert!(
        matches!(
            error,
            NetworkError::Retryable {
                code: Some(131056),
                ..
            }
        ),
        "{error:?}"
    );
}

#[tokio::test]
async fn server_failures_are_retryable() {
    let error = outcome(graph_error(500, 131000, "Something went wrong")).await;
    assert_eq!(
        error,
        NetworkError::Retryable {
            code: Some(131000),
            detail: "Something went wrong".into(),
            retry_after: None
        }
    );
    let bare = outcome(ResponseTemplate::new(503).insert_header("Retry-After", "30")).await;
    assert!(
        matches!(
            bare,
            NetworkError::Retryable { code: None, retry_after: Some(wait), .. } if wait == chrono::TimeDelta::seconds(30)
        ),
        "{bare:?}"
    );
}

/// A server that stopped reading the request before it had all of it (HTTP 408, no Graph error) did nothing
/// with it: the send is retried, not failed for good (a loaded network answered one and a message was lost).
#[tokio::test]
async fn a_bare_request_timeout_is_retryable() {
    let error = outcome(ResponseTemplate::new(408)).await;
    assert!(
        matches!(error, NetworkError::Retryable { code: None, .. }),
        "{error:?}"
    );
}

#[tokio::test]
async fn an_expired_token_is_a_credentials_problem() {
    let error = outcome(graph_error(401, 190, "Error validating access token")).await;
    assert_eq!(
        error,
        NetworkError::Credentials {
            code: Some(190),
            detail: "Error validating access token".into()
        }
    );
    let permission = outcome(graph_error(403, 200, "Permissions error")).await;
    assert!(
        matches!(permission, NetworkError::Credentials { code: Some(200), .. }),
        "{permission:?}"
    );
}

#[tokio::test]
async fn an_unknown_code_is_a_permanent_network_error() {
    let error = outcome(graph_error(400, 999_999, "Brand new failure")).await;
    assert_eq!(
        error,
        NetworkError::Permanent(MessageError {
            code: "network_error".into(),
            title: "The network refused the message".into(),
            detail: "Brand new failure".into(),
            network_code: Some(999_999),
        })
    );
}

#[tokio::test]
async fn a_server_that_never_answers_leaves_the_outcome_unknown() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(accepted().set_delay(Duration::from_secs(5)))
        .mount(&server)
        .await;
    let mut config = config(&server.uri());
    config.request_timeout = Duration::from_millis(300);
    let started = std::time::Instant::now();
    let error = CloudApiClient::new(config)
        .unwrap()
        .send(&sender(), &message(hello()), &no_media())
        .await
        .unwrap_err();
    assert!(matches!(error, NetworkError::OutcomeUnknown { .. }), "{error:?}");
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "the timeout was honoured"
    );
}

#[tokio::test]
async fn a_refused_connection_is_retryable() {
    // Bind then drop a listener: the port is free and nothing listens on it.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let error = CloudApiClient::new(config(&format!("http://127.0.0.1:{port}")))
        .unwrap()
        .send(&sender(), &message(hello()), &no_media())
        .await
        .unwrap_err();
    assert!(
        matches!(
            error,
            NetworkError::Retryable {
                code: None,
                retry_after: None,
                ..
            }
        ),
        "{error:?}"
    );
}

#[tokio::test]
async fn the_base_url_and_version_are_checked_at_construction() {
    assert!(CloudApiClient::new(config("not a url")).is_err());
    let mut bad_version = config("https://graph.facebook.com");
    bad_version.graph_version = String::new();
    assert!(CloudApiClient::new(bad_version).is_err());
    // A base with a path prefix and a trailing slash (the simulator's shape) works.
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(wiremock::matchers::path(format!(
            "/simulator/v23.0/{PHONE_NUMBER_ID}/messages"
        )))
        .respond_with(accepted())
        .mount(&server)
        .await;
    let receipt = CloudApiClient::new(config(&format!("{}/simulator/", server.uri())))
        .unwrap()
        .send(&sender(), &message(hello()), &no_media())
        .await
        .unwrap();
    assert_eq!(receipt.network_message_id, WAMID);
}
