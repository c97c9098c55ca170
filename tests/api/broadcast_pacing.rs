//! A broadcast dispatched by the real workers through the in-process simulator, on both stores: paced so that
//! single sends of its organization and of another one do not wait for it, paused when the network answers
//! with the spam-rate error, resumed, and completed (docs/api.md §4.10).

use crate::network::{NetApp, spawn};
use herald_domain::organization::PlanName;
use herald_domain::values::DisplayName;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

on_both_stores!(
    a_broadcast_leaves_room_for_single_sends_of_its_organization_and_of_others,
    a_spam_rate_error_pauses_the_broadcast_until_it_is_resumed,
);

fn recipients(count: usize, first: Option<&str>) -> Vec<Value> {
    let mut rows: Vec<Value> = first.map(|to| json!({ "to": to })).into_iter().collect();
    rows.extend((0..count).map(|i| json!({ "to": format!("+1555300{i:04}") })));
    rows
}

async fn broadcast(app: &NetApp, rows: Vec<Value>) -> String {
    let created = app
        .send(
            "/api/v1/broadcasts",
            json!({
                "template": { "name": "hello_world", "language": "en_US" },
                "recipients": rows,
            }),
        )
        .await;
    created["id"].as_str().unwrap().to_owned()
}

/// Polls the broadcast until `done` holds (at most 60 s).
async fn wait_broadcast(app: &NetApp, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let view = app.get(&format!("/api/v1/broadcasts/{id}")).await;
        if done(&view) {
            return view;
        }
        assert!(Instant::now() < deadline, "timed out; last seen: {view}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn undispatched(view: &Value) -> u64 {
    view["counts"]["accepted"].as_u64().unwrap_or(0) + view["counts"]["scheduled"].as_u64().unwrap_or(0)
}

/// The sender allows 4 messages a second, so 60 recipients take 15 s at the least whatever the machine; the
/// pacer keeps two seconds of them queued, so single sends made while it runs go out long before it ends.
async fn a_broadcast_leaves_room_for_single_sends_of_its_organization_and_of_others(db: crate::helpers::Db) {
    let app = spawn(db, |_| {}, 4).await;
    // Another organization, with the simulator's second number.
    let admin = app.services.admin();
    let other = admin
        .create_organization(
            DisplayName::parse("Other org").unwrap(),
            PlanName::parse("business").unwrap(),
            None,
        )
        .await
        .unwrap();
    crate::helpers::add_default_sender(&app.services, &other.id, "+15550002222", "1000000002", 4).await;
    // Its own copies of the simulator's templates (a sync runs only for the first organization).
    herald_app::demo::seed_templates(&app.services, &other.id)
        .await
        .unwrap();
    let (_, other_key) = admin.create_key(&other.id, None).await.unwrap();

    let id = broadcast(&app, recipients(60, None)).await;
    let running = wait_broadcast(&app, &id, |v| {
        v["counts"]["submitted"].as_u64().unwrap_or(0) > 0
            || v["counts"]["sent"].as_u64().unwrap_or(0) > 0
            || v["counts"]["delivered"].as_u64().unwrap_or(0) > 0
    })
    .await;
    assert!(undispatched(&running) > 40, "paced, not all at once: {running}");
    let released = running["released"].as_u64().unwrap();
    assert!(
        released <= 8 + 4,
        "at most two seconds of throughput queued per round: {running}"
    );

    let own = app
        .send(
            "/api/v1/messages/send-template",
            json!({ "to": "+15551239001", "template": { "name": "hello_world", "language": "en_US" } }),
        )
        .await;
    let response = app
        .http
        .post(format!("{}/api/v1/messages/send-template", app.base))
        .bearer_auth(other_key.expose())
        .json(&json!({ "to": "+15551239002", "template": { "name": "hello_world", "language": "en_US" } }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 202);
    let theirs: Value = response.json().await.unwrap();

    app.wait_for(own["id"].as_str().unwrap(), |m, _| {
        m["timestamps"]["submitted"].is_string()
    })
    .await;
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let message: Value = app
            .http
            .get(format!(
                "{}/api/v1/messages/{}",
                app.base,
                theirs["id"].as_str().unwrap()
            ))
            .bearer_auth(other_key.expose())
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if message["timestamps"]["submitted"].is_string() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the other organization's send waits: {message}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let view = app.get(&format!("/api/v1/broadcasts/{id}")).await;
    assert!(
        undispatched(&view) > 0 && view["status"] == "running",
        "both single sends went out while the broadcast still had messages to send: {view}"
    );

    let done = wait_broadcast(&app, &id, |v| v["status"] == "completed").await;
    assert_eq!(done["released"], 60, "{done}");
    assert_eq!(undispatched(&done), 0, "{done}");
}

/// The first recipient's number makes the simulator answer 131048 (spam rate limit): the broadcast pauses
/// with that reason and releases nothing more; once resumed it goes on to the end.
async fn a_spam_rate_error_pauses_the_broadcast_until_it_is_resumed(db: crate::helpers::Db) {
    let app = spawn(db, |_| {}, 2).await;
    let id = broadcast(&app, recipients(20, Some("+15551239995"))).await;

    let paused = wait_broadcast(&app, &id, |v| v["status"] == "paused").await;
    assert_eq!(paused["pause"]["code"], "spam_rate_limited", "{paused}");
    assert_eq!(paused["pause"]["network_code"], 131_048, "{paused}");
    assert!(undispatched(&paused) > 0, "paused before the end: {paused}");
    // Nothing more is released while it is paused.
    let released = paused["released"].clone();
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    let still = app.get(&format!("/api/v1/broadcasts/{id}")).await;
    assert_eq!(still["status"], "paused");
    assert_eq!(still["released"], released, "{still}");

    let response = app
        .post_response(&format!("/api/v1/broadcasts/{id}/resume"), &json!({}))
        .await;
    assert_eq!(response.status(), 200, "{}", response.text().await.unwrap());
    let done = wait_broadcast(&app, &id, |v| v["status"] == "completed").await;
    assert_eq!(
        done["counts"]["failed"], 1,
        "only the spam-rate one failed: {done}"
    );
    assert!(done["pause"].is_null(), "{done}");
}
