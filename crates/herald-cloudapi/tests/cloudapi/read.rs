//! Read receipts and the typing indicator: the exact wire body, the path, and how failures are classified.

use crate::helpers::*;
use herald_domain::ports::{MessagingNetwork, NetworkError};
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const INBOUND_WAMID: &str = "wamid.HBgLMTY1MDM4Nzk0MzkVAgASGCBBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBAA==";

async fn mark_read(answer: ResponseTemplate, typing: bool) -> (Result<(), NetworkError>, Value) {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(format!("/{VERSION}/{PHONE_NUMBER_ID}/messages")))
        .respond_with(answer)
        .expect(1)
        .mount(&server)
        .await;
    let outcome = client(&server).mark_read(&sender(), INBOUND_WAMID, typing).await;
    let requests = server.received_requests().await.unwrap();
    let request = requests.first().unwrap();
    assert_eq!(
        request.headers.get("authorization").unwrap().to_str().unwrap(),
        format!("Bearer {TOKEN}")
    );
    (outcome, request.body_json().unwrap())
}

#[tokio::test]
async fn a_read_receipt_is_metas_status_read_body() {
    let (outcome, body) = mark_read(
        ResponseTemplate::new(200).set_body_json(json!({ "success": true })),
        false,
    )
    .await;
    assert_eq!(outcome, Ok(()));
    assert_eq!(
        body,
        json!({ "messaging_product": "whatsapp", "status": "read", "message_id": INBOUND_WAMID })
    );
}

#[tokio::test]
async fn typing_adds_the_text_typing_indicator() {
    let (outcome, body) = mark_read(
        ResponseTemplate::new(200).set_body_json(json!({ "success": true })),
        true,
    )
    .await;
    assert_eq!(outcome, Ok(()));
    assert_eq!(
        body,
        json!({
            "messaging_product": "whatsapp",
            "status": "read",
            "message_id": INBOUND_WAMID,
            "typing_indicator": { "type": "text" },
        })
    );
}

#[tokio::test]
async fn failures_are_classified_like_sends() {
    let transient = ResponseTemplate::new(503).set_body_json(json!({
        "error": { "message": "Service temporarily unavailable", "type": "OAuthException", "code": 2 }
    }));
    let (outcome, _) = mark_read(transient, false).await;
    assert!(
        matches!(outcome, Err(NetworkError::Retryable { .. })),
        "{outcome:?}"
    );
    let unknown_message = ResponseTemplate::new(400).set_body_json(json!({
        "error": { "message": "(#100) Invalid parameter", "type": "OAuthException", "code": 100,
                   "error_data": { "details": "Invalid message_id" } }
    }));
    let (outcome, _) = mark_read(unknown_message, false).await;
    assert!(matches!(outcome, Err(NetworkError::Permanent(_))), "{outcome:?}");
}
