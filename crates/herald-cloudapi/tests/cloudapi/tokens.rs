//! A sender's stored (sealed) access token: opened only to send, preferred over every other source, and
//! never replaced by another token when it cannot be opened.

use crate::helpers::*;
use herald_cloudapi::CloudApiClient;
use herald_domain::ids::SenderId;
use herald_domain::message::MessageContent;
use herald_domain::organization::{SealedSecret, SenderNumber};
use herald_domain::ports::{MessagingNetwork, NetworkError};
use herald_domain::ports::{Opened, SealContext, SealError, SecretSealer};
use herald_domain::values::MessageText;
use std::sync::Arc;
use wiremock::MockServer;

const STORED_TOKEN: &str = "EAAG-stored-token-of-this-sender";

/// A stand-in for the real cipher: a tag, the context's associated data, then the text reversed. Anything
/// without the tag and the same context is refused, as a real sealer refuses bytes sealed with another key
/// or for another row.
struct ReversingSealer;

const TAG: &[u8] = b"sealed:";

impl SecretSealer for ReversingSealer {
    fn seal(&self, context: &SealContext, plaintext: &str) -> Vec<u8> {
        TAG.iter()
            .copied()
            .chain(context.associated_data())
            .chain(*b"|")
            .chain(plaintext.bytes().rev())
            .collect()
    }

    fn open(&self, context: &SealContext, sealed: &[u8]) -> Result<Opened, SealError> {
        let body = sealed.strip_prefix(TAG).ok_or(SealError::Rejected)?;
        let body = body
            .strip_prefix(context.associated_data().as_slice())
            .and_then(|rest| rest.strip_prefix(b"|"))
            .ok_or(SealError::Rejected)?;
        String::from_utf8(body.iter().rev().copied().collect())
            .map(|text| Opened { text, legacy: false })
            .map_err(|_| SealError::Malformed)
    }

    fn person_digest(&self, _organization: &herald_domain::ids::OrganizationId, identity: &str) -> [u8; 32] {
        let mut digest = [0_u8; 32];
        for (slot, byte) in digest.iter_mut().zip(identity.bytes().rev()) {
            *slot = byte;
        }
        digest
    }
}

fn sealing_client(server: &MockServer) -> CloudApiClient {
    client(server).with_sealer(Some(Arc::new(ReversingSealer)))
}

fn sender_with_stored_token() -> SenderNumber {
    let sender = sender();
    SenderNumber {
        // Cargo sets CARGO_PKG_NAME for the test process: the variable is set, and still must lose.
        access_token_env: Some("CARGO_PKG_NAME".into()),
        sealed_access_token: Some(SealedSecret::new(
            ReversingSealer.seal(&SealContext::sender(&sender.id), STORED_TOKEN),
        )),
        ..sender
    }
}

fn text() -> MessageContent {
    MessageContent::Text {
        body: MessageText::parse("hi").unwrap(),
        preview_url: false,
    }
}

async fn accepting_server() -> MockServer {
    let server = MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::method("POST"))
        .respond_with(accepted())
        .mount(&server)
        .await;
    server
}

fn bearer_of(request: &wiremock::Request) -> String {
    request
        .headers
        .get("authorization")
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn the_stored_token_is_opened_and_wins_over_the_variable_and_the_default() {
    let server = accepting_server().await;

    sealing_client(&server)
        .send(&sender_with_stored_token(), &message(text()), &no_media())
        .await
        .unwrap();

    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 1);
    assert_eq!(bearer_of(&requests[0]), format!("Bearer {STORED_TOKEN}"));
    assert_ne!(
        STORED_TOKEN, TOKEN,
        "the default token must differ for this test to mean anything"
    );
}

#[tokio::test]
async fn template_listing_uses_the_stored_token_too() {
    let server = MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::method("GET"))
        .respond_with(wiremock::ResponseTemplate::new(200).set_body_json(serde_json::json!({ "data": [] })))
        .mount(&server)
        .await;

    let templates = sealing_client(&server)
        .templates(&sender_with_stored_token())
        .await
        .unwrap();

    assert!(templates.is_empty());
    let requests = server.received_requests().await.unwrap();
    assert_eq!(bearer_of(&requests[0]), format!("Bearer {STORED_TOKEN}"));
}

#[tokio::test]
async fn a_token_that_does_not_open_is_a_credentials_error_without_secrets_or_fallback() {
    let server = accepting_server().await;
    let tampered = SenderNumber {
        sealed_access_token: Some(SealedSecret::new(b"sealed-with-another-key".to_vec())),
        ..sender_with_stored_token()
    };

    let outcome = sealing_client(&server)
        .send(&tampered, &message(text()), &no_media())
        .await;

    match outcome {
        Err(NetworkError::Credentials { code: None, detail }) => {
            assert!(detail.contains("key may have changed"), "{detail}");
            assert!(detail.contains("+15550001111"), "names the sender: {detail}");
            assert!(!detail.contains("sealed-with-another-key"), "{detail}");
            assert!(!detail.contains(TOKEN), "{detail}");
        }
        other => panic!("expected a credentials error, got {other:?}"),
    }
    assert!(
        server.received_requests().await.unwrap().is_empty(),
        "neither the variable's nor the default token may be sent instead"
    );
}

#[tokio::test]
async fn a_token_sealed_for_another_sender_is_refused_never_sent_nor_replaced() {
    let server = accepting_server().await;
    let other = SenderId::parse("snd_01J0000000000000000000000Z").unwrap();
    let copied = SenderNumber {
        // What a writer of the database could do: copy another organization's sender's sealed token here.
        sealed_access_token: Some(SealedSecret::new(
            ReversingSealer.seal(&SealContext::sender(&other), "EAAG-token-of-another-org"),
        )),
        ..sender_with_stored_token()
    };
    assert_ne!(copied.id, other);

    let outcome = sealing_client(&server)
        .send(&copied, &message(text()), &no_media())
        .await;

    match outcome {
        Err(NetworkError::Credentials { code: None, detail }) => {
            assert!(detail.contains("+15550001111"), "names the sender: {detail}");
            assert!(detail.contains("another sender"), "{detail}");
            assert!(!detail.contains("EAAG-token-of-another-org"), "{detail}");
            assert!(!detail.contains("gro-rehtona"), "{detail}");
        }
        other => panic!("expected a credentials error, got {other:?}"),
    }
    assert!(
        server.received_requests().await.unwrap().is_empty(),
        "neither the other sender's token, the variable's nor the default token may be sent"
    );
}

#[tokio::test]
async fn a_stored_token_without_a_sealer_is_refused_not_replaced() {
    let server = accepting_server().await;

    let outcome = client(&server)
        .send(&sender_with_stored_token(), &message(text()), &no_media())
        .await;

    match outcome {
        Err(NetworkError::Credentials { code: None, detail }) => {
            assert!(detail.contains("no encryption key"), "{detail}");
        }
        other => panic!("expected a credentials error, got {other:?}"),
    }
    assert!(server.received_requests().await.unwrap().is_empty());
}

#[tokio::test]
async fn the_client_debug_output_shows_no_token() {
    let server = MockServer::start().await;
    let printed = format!("{:?}", sealing_client(&server));
    assert!(!printed.contains(TOKEN), "{printed}");
    assert!(printed.contains("CloudApiClient"), "{printed}");
}
