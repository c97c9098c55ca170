//! Templates created, edited and deleted through the API (docs/api.md §6.1), end to end: checked against
//! Meta's rules before the network, submitted through the real Cloud API client to the in-process
//! simulator's review, `PENDING` then `APPROVED` on the next sync, then sent — on both stores.

use crate::helpers::{Db, assert_problem};
use crate::network::{NetApp, spawn};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

on_both_stores!(
    a_created_template_is_reviewed_approved_and_sent,
    definitions_breaking_metas_rules_never_reach_the_network,
    edits_go_back_to_review_and_deletes_remove_the_copy,
);

fn definition(name: &str) -> Value {
    json!({
        "name": name, "language": "en_US", "category": "UTILITY",
        "components": [
            { "type": "BODY", "text": "Hi {{1}}, your order ships today.", "example": { "body_text": [["Asha"]] } },
            { "type": "BUTTONS", "buttons": [{ "type": "QUICK_REPLY", "text": "Thanks" }] }
        ]
    })
}

async fn reviewing(db: Db) -> NetApp {
    spawn(db, |settings| settings.simulator.template_review_ms = 300, 80).await
}

async fn request(
    app: &NetApp,
    method: reqwest::Method,
    path: &str,
    body: Option<&Value>,
) -> reqwest::Response {
    let mut request = app
        .http
        .request(method, format!("{}{path}", app.base))
        .bearer_auth(&app.key);
    if let Some(body) = body {
        request = request.json(body);
    }
    request.send().await.unwrap()
}

/// Syncs until the template's status is `status` (at most 10 s).
async fn wait_for_status(app: &NetApp, name: &str, status: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let synced = request(app, reqwest::Method::POST, "/api/v1/templates/sync", None).await;
        assert_eq!(synced.status(), 200);
        let template: Value = app.get(&format!("/api/v1/templates/{name}/en_US")).await;
        if template["status"] == status {
            return template;
        }
        assert!(
            Instant::now() < deadline,
            "{name} never became {status}: {template}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn a_created_template_is_reviewed_approved_and_sent(db: Db) {
    let app = reviewing(db).await;
    let created = request(
        &app,
        reqwest::Method::POST,
        "/api/v1/templates",
        Some(&definition("order_update")),
    )
    .await;
    assert_eq!(created.status(), 201);
    assert_eq!(
        created.headers()["location"].to_str().unwrap(),
        "/api/v1/templates/order_update/en_US"
    );
    let created: Value = created.json().await.unwrap();
    assert_eq!(created["status"], "PENDING");
    assert_eq!(created["body"]["parameters"], 1);
    assert_eq!(created["buttons"][0]["sub_type"], "quick_reply");

    let again = request(
        &app,
        reqwest::Method::POST,
        "/api/v1/templates",
        Some(&definition("order_update")),
    )
    .await;
    assert_problem(again, 409, "template_exists").await;

    let approved = wait_for_status(&app, "order_update", "APPROVED").await;
    assert_eq!(approved["category"], "UTILITY");
    let message = app
        .send(
            "/api/v1/messages/send-template",
            json!({ "to": "+15551234567", "template": { "name": "order_update", "language": "en_US" }, "variables": ["Asha"] }),
        )
        .await;
    app.wait_status(message["id"].as_str().unwrap(), "delivered")
        .await;

    let rejected = request(
        &app,
        reqwest::Method::POST,
        "/api/v1/templates",
        Some(&definition("please_reject")),
    )
    .await;
    assert_eq!(rejected.status(), 201);
    wait_for_status(&app, "please_reject", "REJECTED").await;
}

async fn definitions_breaking_metas_rules_never_reach_the_network(db: Db) {
    let app = reviewing(db).await;
    let mut broken = definition("broken");
    broken["components"][0]["text"] = json!("{{1}} starts with a variable");
    broken["components"][1]["buttons"][0]["text"] = json!("x".repeat(26));
    broken["from"] = json!("+15550009999");
    let refused = request(&app, reqwest::Method::POST, "/api/v1/templates", Some(&broken)).await;
    let problem = assert_problem(refused, 422, "validation_failed").await;
    let fields: Vec<&str> = problem["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap())
        .collect();
    assert_eq!(
        fields,
        vec!["components[0].text", "components[1].buttons[0].text"]
    );

    let mut unknown_sender = definition("orphan");
    unknown_sender["from"] = json!("+15550009999");
    let refused = request(
        &app,
        reqwest::Method::POST,
        "/api/v1/templates",
        Some(&unknown_sender),
    )
    .await;
    assert_problem(refused, 422, "validation_failed").await;

    let listed: Value = app
        .http
        .get(format!(
            "{}/simulator/v23.0/2000000001/message_templates?name=broken",
            app.base
        ))
        .bearer_auth("simulator-token")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(listed["data"], json!([]), "nothing reached the network");
}

async fn edits_go_back_to_review_and_deletes_remove_the_copy(db: Db) {
    let app = reviewing(db).await;
    let created = request(
        &app,
        reqwest::Method::POST,
        "/api/v1/templates",
        Some(&definition("edited")),
    )
    .await;
    assert_eq!(created.status(), 201);
    wait_for_status(&app, "edited", "APPROVED").await;

    let edit = json!({ "components": [
        { "type": "BODY", "text": "Hello {{1}}, see you at {{2}} today.", "example": { "body_text": [["Asha", "ten"]] } }
    ] });
    let edited = request(
        &app,
        reqwest::Method::PATCH,
        "/api/v1/templates/edited/en_US",
        Some(&edit),
    )
    .await;
    assert_eq!(edited.status(), 200);
    let edited: Value = edited.json().await.unwrap();
    assert_eq!(edited["status"], "PENDING");
    assert_eq!(edited["body"]["parameters"], 2);
    let missing = request(
        &app,
        reqwest::Method::PATCH,
        "/api/v1/templates/nothing/en_US",
        Some(&edit),
    )
    .await;
    assert_problem(missing, 404, "template_not_found").await;

    let deleted = request(
        &app,
        reqwest::Method::DELETE,
        "/api/v1/templates/edited/en_US",
        None,
    )
    .await;
    assert_eq!(deleted.status(), 204);
    let gone = request(&app, reqwest::Method::GET, "/api/v1/templates/edited/en_US", None).await;
    assert_problem(gone, 404, "template_not_found").await;
    let again = request(&app, reqwest::Method::DELETE, "/api/v1/templates/edited", None).await;
    assert_problem(again, 404, "not_found").await;

    // The network refuses for good (the simulator keeps its seeded templates): the documented 422, and
    // Herald's copy stays as the network lists it.
    let refused = request(
        &app,
        reqwest::Method::DELETE,
        "/api/v1/templates/hello_world/en_US",
        None,
    )
    .await;
    let problem = assert_problem(refused, 422, "network_refused").await;
    assert!(
        problem["detail"].as_str().unwrap().contains("seeded"),
        "{problem}"
    );
    let kept: Value = app.get("/api/v1/templates/hello_world/en_US").await;
    assert_eq!(kept["status"], "APPROVED");
}
