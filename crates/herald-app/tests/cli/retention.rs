//! `herald admin retention sweep`: the built binary, beside a server running on the defaults, removes a
//! message past its plan's retention with its rows, keeps a recent one, and says why it ended.

use crate::smoke::Smoke;
use chrono::{TimeDelta, Utc};
use herald_domain::ids::{MessageId, OrganizationId};
use herald_domain::message::Message;
use herald_store::{Store, StoreOptions};
use herald_testkit::fixtures::{accept_request, next_ulid, text_message};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// Stores, beside the running server, a text message of the demo organization made `days` ago (its id made
/// then too, as the send path makes them); the server's dispatcher then sends it to a final status.
async fn message_made_days_ago(smoke: &Smoke, days: i64) -> String {
    let url = format!("sqlite://{}", smoke.folder().join("data/herald.db").display());
    let store = Store::connect(&url, &StoreOptions::default()).await.unwrap();
    let org: OrganizationId = smoke.organization().parse().unwrap();
    let senders = store.accounts().senders(&org).await.unwrap();
    let at = Utc::now() - TimeDelta::days(days);
    let millis = u64::try_from(at.timestamp_millis()).unwrap();
    let message = Message {
        id: MessageId::from_ulid(ulid::Ulid::from_parts(millis, next_ulid().random())),
        ..text_message(org, &senders[0], "+15551234567", at)
    };
    store
        .messages()
        .accept(&accept_request(&message, None, None))
        .await
        .unwrap();
    message.id.to_string()
}

/// Waits until the message is final (dispatched and answered by the network).
async fn finished(smoke: &Smoke, id: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let message = smoke.get(&format!("/api/v1/messages/{id}")).await;
        if ["delivered", "read", "failed"].contains(&message["status"].as_str().unwrap()) {
            return message;
        }
        assert!(Instant::now() < deadline, "{id} stayed {message}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test]
async fn a_sweep_removes_what_is_past_its_retention_beside_a_running_server() {
    let smoke = Smoke::start(vec![]).await;
    let recent = smoke
        .send_json(
            "/api/v1/messages/send-template",
            json!({ "to": "+15551234567", "template": { "name": "hello_world", "language": "en_US" } }),
        )
        .await;
    smoke.delivered(&recent).await;
    // The demo organization's plan keeps 30 days or more (docs/api.md §8).
    let old = message_made_days_ago(&smoke, 400).await;
    finished(&smoke, &old).await;

    let (status, swept) = smoke.admin(&["retention", "sweep", "--seconds", "60"]);
    assert!(status.success(), "{swept}");
    assert_eq!(swept["ended"], "nothing_due", "{swept}");
    assert_eq!(swept["removed"]["messages"], 1, "{swept}");
    assert_eq!(swept["removed"]["outbox"], 1, "its outbox job: {swept}");
    assert!(
        swept["removed"]["message_events"].as_u64().unwrap() >= 2,
        "its status history (accepted, then sent or failed): {swept}"
    );
    smoke
        .call(smoke.http.get(smoke.url(&format!("/api/v1/messages/{old}"))), 404)
        .await;
    let kept = smoke.get(&format!("/api/v1/messages/{recent}")).await;
    assert_eq!(kept["status"], "delivered", "the recent message stays");

    let (status, again) = smoke.admin(&["retention", "sweep"]);
    assert!(status.success(), "{again}");
    assert_eq!(again["rows"], 0, "removed once: {again}");
    assert_eq!(again["ended"], "nothing_due", "{again}");
}
