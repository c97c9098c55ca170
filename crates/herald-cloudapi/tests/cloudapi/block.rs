//! The Block Users API (docs/cloud-api.md §2.4): the exact wire body and verb, batches of at most 1,000
//! users, per-user refusals from Meta's mixed answer, and whole-request failures classified like sends.

use crate::helpers::*;
use herald_domain::contact::Recipient;
use herald_domain::ports::{BlockFailure, MessagingNetwork, NetworkError};
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn number(n: &str) -> Recipient {
    Recipient::parse(n).unwrap()
}

async fn server(verb: &str, answer: ResponseTemplate, calls: u64) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method(verb))
        .and(path(format!("/{VERSION}/{PHONE_NUMBER_ID}/block_users")))
        .respond_with(answer)
        .expect(calls)
        .mount(&server)
        .await;
    server
}

async fn bodies(server: &MockServer) -> Vec<Value> {
    server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|r| {
            assert_eq!(
                r.headers.get("authorization").unwrap().to_str().unwrap(),
                format!("Bearer {TOKEN}")
            );
            r.body_json().unwrap()
        })
        .collect()
}

#[tokio::test]
async fn a_block_is_metas_body_with_digits_or_the_user_id() {
    let ok = ResponseTemplate::new(200).set_body_json(json!({
        "messaging_product": "whatsapp",
        "block_users": { "added_users": [{ "input": "15551234567", "wa_id": "15551234567" }] }
    }));
    let server = server("POST", ok, 1).await;
    let users = [
        number("+15551234567"),
        Recipient::parse("US.13491208655302741918").unwrap(),
    ];
    let failures = client(&server).block_users(&sender(), &users, true).await;
    assert_eq!(failures, Ok(Vec::new()));
    assert_eq!(
        bodies(&server).await,
        [json!({
            "messaging_product": "whatsapp",
            "block_users": [{ "user": "15551234567" }, { "user": "US.13491208655302741918" }]
        })]
    );
}

#[tokio::test]
async fn an_unblock_is_a_delete_with_the_same_body() {
    let ok = ResponseTemplate::new(200).set_body_json(json!({
        "messaging_product": "whatsapp",
        "block_users": { "removed_users": [{ "input": "15551234567", "wa_id": "15551234567" }] }
    }));
    let server = server("DELETE", ok, 1).await;
    let failures = client(&server)
        .block_users(&sender(), &[number("+15551234567")], false)
        .await;
    assert_eq!(failures, Ok(Vec::new()));
    assert_eq!(
        bodies(&server).await[0]["block_users"],
        json!([{ "user": "15551234567" }])
    );
}

#[tokio::test]
async fn more_than_a_thousand_users_go_in_batches_of_a_thousand() {
    let ok = ResponseTemplate::new(200).set_body_json(json!({ "block_users": { "added_users": [] } }));
    let server = server("POST", ok, 3).await;
    let users: Vec<Recipient> = (0..2_001).map(|i| number(&format!("+1555{i:07}"))).collect();
    client(&server)
        .block_users(&sender(), &users, true)
        .await
        .unwrap();
    let sizes: Vec<usize> = bodies(&server)
        .await
        .iter()
        .map(|b| b["block_users"].as_array().unwrap().len())
        .collect();
    assert_eq!(sizes, [1_000, 1_000, 1]);
}

#[tokio::test]
async fn a_mixed_answer_names_each_refused_user_and_its_reason() {
    let mixed = ResponseTemplate::new(400).set_body_json(json!({
        "messaging_product": "whatsapp",
        "block_users": {
            "added_users": [{ "input": "15551234567", "wa_id": "15551234567" }],
            "failed_users": [{ "input": "15557654321", "wa_id": "15557654321",
                "errors": [{ "message": "Re-engagement required", "code": 131047,
                             "error_data": { "details": "User has not messaged in the last 24 hours" } }] }]
        },
        "error": { "message": "(#139100) Failed to block/unblock users", "type": "OAuthException",
                   "code": 139100, "error_data": { "details": "Failed to block some users" } }
    }));
    let server = server("POST", mixed, 1).await;
    let failures = client(&server)
        .block_users(&sender(), &[number("+15551234567"), number("+15557654321")], true)
        .await;
    assert_eq!(
        failures,
        Ok(vec![BlockFailure {
            user: "15557654321".into(),
            reason: "User has not messaged in the last 24 hours (error 131047)".into(),
        }])
    );
}

#[tokio::test]
async fn whole_request_failures_are_classified_like_sends() {
    let down = server("POST", graph_error(503, 2, "Service temporarily unavailable"), 1).await;
    let outcome = client(&down)
        .block_users(&sender(), &[number("+15551234567")], true)
        .await;
    assert!(
        matches!(outcome, Err(NetworkError::Retryable { .. })),
        "{outcome:?}"
    );
    let refused = server("POST", graph_error(400, 100, "Invalid parameter"), 1).await;
    let outcome = client(&refused)
        .block_users(&sender(), &[number("+15551234567")], true)
        .await;
    assert!(matches!(outcome, Err(NetworkError::Permanent(_))), "{outcome:?}");
}
