//! `marketing_route` end to end (docs/api.md §4.11): through the real HTTP API, the real Cloud API client
//! and the simulator playing the business's Marketing Messages API onboarding — on both stores.

use crate::helpers::{Db, assert_problem};
use crate::network::{NetApp, spawn};
use serde_json::{Value, json};

on_both_stores!(
    auto_takes_the_marketing_messages_api_once_the_business_is_onboarded,
    the_marketing_messages_route_fails_a_business_that_is_not_onboarded,
    a_marketing_route_for_a_utility_template_is_refused_naming_it_and_stores_nothing,
    a_dry_run_reports_the_route_without_sending,
);

const TO: &str = "+15551239101";
const WABA: &str = "2000000001";

fn promo(extra: Value) -> Value {
    let mut body = json!({ "to": TO, "template": { "name": "promo_image", "language": "en_US" },
        "variables": { "header": { "type": "image", "link": "https://files.example.com/promo.png" },
                       "body": ["20%"] } });
    if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
        body.extend(extra.clone());
    }
    body
}

async fn onboard(app: &NetApp, onboarded: bool) {
    let answer = app
        .http
        .post(format!("{}/simulator/control/marketing-messages", app.base))
        .json(&json!({ "waba_id": WABA, "onboarded": onboarded }))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
}

/// The simulator's record of the message's accepted send.
async fn record_of(app: &NetApp, id: &str) -> Value {
    app.simulator_sent()
        .await
        .into_iter()
        .find(|r| r["biz_opaque_callback_data"] == id)
        .unwrap_or_else(|| panic!("the simulator holds no send of {id}"))
}

async fn auto_takes_the_marketing_messages_api_once_the_business_is_onboarded(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    // Not onboarded: Meta refuses the Marketing Messages API, and the message goes on /messages.
    let accepted = app.send("/api/v1/messages/send-template", promo(json!({}))).await;
    assert_eq!(accepted["marketing_route"], "auto", "{accepted}");
    assert_eq!(accepted["route"], Value::Null, "{accepted}");
    let id = accepted["id"].as_str().unwrap();
    let (message, _) = app.wait_status(id, "delivered").await;
    assert_eq!(message["route"], "cloud_api", "{message}");
    assert_eq!(record_of(&app, id).await["endpoint"], "messages");

    onboard(&app, true).await;
    let accepted = app
        .send(
            "/api/v1/messages/send-template",
            promo(json!({ "message_activity_sharing": true })),
        )
        .await;
    let id = accepted["id"].as_str().unwrap();
    let (message, _) = app.wait_status(id, "delivered").await;
    assert_eq!(message["route"], "marketing_messages", "{message}");
    let record = record_of(&app, id).await;
    assert_eq!(record["endpoint"], "marketing_messages", "{record}");
    assert_eq!(record["request"]["message_activity_sharing"], true, "{record}");

    // Asked for the Cloud API, it stays there even for an onboarded business.
    let accepted = app
        .send(
            "/api/v1/messages/send-template",
            promo(json!({ "marketing_route": "cloud_api" })),
        )
        .await;
    let id = accepted["id"].as_str().unwrap();
    let (message, _) = app.wait_status(id, "delivered").await;
    assert_eq!(message["marketing_route"], "cloud_api", "{message}");
    assert_eq!(message["route"], "cloud_api", "{message}");
    assert_eq!(record_of(&app, id).await["endpoint"], "messages");
}

async fn the_marketing_messages_route_fails_a_business_that_is_not_onboarded(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    let accepted = app
        .send(
            "/api/v1/messages/send-template",
            promo(json!({ "marketing_route": "marketing_messages" })),
        )
        .await;
    let id = accepted["id"].as_str().unwrap();
    let (message, _) = app.wait_status(id, "failed").await;
    assert_eq!(
        message["error"]["code"], "marketing_messages_refused",
        "{message}"
    );
    assert_eq!(message["error"]["network_code"], 131055, "{message}");
    assert!(
        app.simulator_sent()
            .await
            .iter()
            .all(|r| r["biz_opaque_callback_data"] != id),
        "nothing went out on /messages"
    );
}

async fn a_marketing_route_for_a_utility_template_is_refused_naming_it_and_stores_nothing(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    let body = json!({ "to": TO, "template": { "name": "hello_world", "language": "en_US" },
                       "marketing_route": "marketing_messages" });
    let problem = assert_problem(
        app.post_response("/api/v1/messages/send-template", &body).await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(problem["errors"][0]["field"], "marketing_route", "{problem}");
    let wrong_word = promo(json!({ "marketing_route": "marketing" }));
    let problem = assert_problem(
        app.post_response("/api/v1/messages/send-template", &wrong_word)
            .await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(problem["errors"][0]["field"], "marketing_route", "{problem}");
    assert_eq!(app.get("/api/v1/messages").await["data"], json!([]));
    assert!(app.simulator_sent().await.is_empty());
}

async fn dry_run(app: &NetApp, body: &Value) -> Value {
    let response = app
        .post_response("/api/v1/messages/send-template?dry_run=true", body)
        .await;
    assert_eq!(response.status(), 200);
    response.json().await.unwrap()
}

async fn a_dry_run_reports_the_route_without_sending(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    let run = dry_run(&app, &promo(json!({ "marketing_route": "marketing_messages" }))).await;
    assert_eq!(run["would_accept"], true, "{run}");
    assert_eq!(run["marketing_route"], "marketing_messages", "{run}");
    let body = json!({ "to": TO, "template": { "name": "hello_world", "language": "en_US" },
                       "marketing_route": "marketing_messages" });
    let run = dry_run(&app, &body).await;
    assert_eq!(run["would_accept"], false, "{run}");
    assert_eq!(
        run["refusals"][0]["errors"][0]["field"], "marketing_route",
        "{run}"
    );
    assert_eq!(app.get("/api/v1/messages").await["data"], json!([]));
    assert!(app.simulator_sent().await.is_empty());
}
