//! Conversation routing end to end (docs/cloud-api.md §4.7): a customer's message on the `standby` field and
//! the business's echo on `smb_message_echoes` are recorded with the field they came on, shown on the inbound
//! resource, and delivered to the customer's webhook with it; a business account that does not deliver its
//! webhooks to Herald's app shows its missing fields on `GET /api/v1/senders`. On both stores.

use crate::helpers::Db;
use crate::network::{NetApp, spawn};
use crate::webhooks::{Answer, spawn_receiver};
use herald_simulator::SIMULATOR_WABA_ID;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

on_both_stores!(
    messages_on_other_fields_keep_their_source_to_the_customer_webhook,
    a_missing_webhook_subscription_shows_on_the_senders,
);

const SENDER: &str = "+15550001111";
const CUSTOMER: &str = "+15551234567";

impl NetApp {
    /// Posts one message through the simulator's control API; answers its wamid.
    async fn simulate(&self, body: Value) -> String {
        let response = self
            .http
            .post(format!("{}/simulator/control/inbound", self.base))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{body}");
        let answer: Value = response.json().await.unwrap();
        answer["id"].as_str().unwrap().to_owned()
    }

    /// Whether the organization's window with `customer` is open.
    async fn window_open(&self, customer: &str) -> bool {
        let window = self.get(&format!("/api/v1/contacts/{customer}/window")).await;
        window["open"].as_bool().unwrap_or_else(|| panic!("{window}"))
    }

    /// Each sender's `webhook_fields_missing`, once `done` holds for it (at most 20 s).
    async fn fields_missing_when(&self, done: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let senders = self.get("/api/v1/senders").await;
            let missing = senders["data"][0]["webhook_fields_missing"].clone();
            if done(&missing) {
                return missing;
            }
            assert!(Instant::now() < deadline, "never: {senders}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

async fn messages_on_other_fields_keep_their_source_to_the_customer_webhook(db: Db) {
    let receiver = spawn_receiver(&[], Answer::Status(200));
    let app = spawn(
        db,
        |settings| {
            settings.webhooks.allow_insecure = true;
            settings.webhooks.allow_private_targets = true;
        },
        80,
    )
    .await;
    let created = app
        .post_response(
            "/api/v1/webhooks",
            &json!({ "url": receiver.url, "events": ["message.inbound"] }),
        )
        .await;
    assert_eq!(created.status(), 201);

    // The business wrote first from the WhatsApp Business app: an echo opens no window.
    app.simulate(
        json!({ "from": CUSTOMER, "to": SENDER, "text": "our hours changed", "field": "smb_message_echoes" }),
    )
    .await;
    app.inbound_once(1).await;
    assert!(!app.window_open(CUSTOMER).await, "an echo opened the window");
    app.simulate(json!({ "from": CUSTOMER, "to": SENDER, "text": "is anyone there?", "field": "standby" }))
        .await;
    app.simulate(json!({ "from": CUSTOMER, "to": SENDER, "text": "hello" }))
        .await;

    let listed = app.inbound_once(3).await;
    let by_text = |text: &str| {
        listed
            .iter()
            .find(|r| r["text"]["body"] == text)
            .unwrap_or_else(|| panic!("no resource for {text}: {listed:?}"))
            .clone()
    };
    let echoed = by_text("our hours changed");
    assert_eq!(echoed["source_field"], "smb_message_echoes");
    assert_eq!(echoed["echo"], true);
    assert_eq!(echoed["from"], CUSTOMER, "an echo names the customer it went to");
    let on_standby = by_text("is anyone there?");
    assert_eq!(on_standby["source_field"], "standby");
    assert_eq!(on_standby["echo"], false);
    assert_eq!(on_standby["from"], CUSTOMER);
    let plain = by_text("hello");
    assert_eq!(plain["source_field"], "messages");
    assert_eq!(plain["echo"], false);
    let one = app
        .get(&format!("/api/v1/inbound/{}", on_standby["id"].as_str().unwrap()))
        .await;
    assert_eq!(one["source_field"], "standby");
    // The customer's own message (on standby too) opens it.
    assert!(app.window_open(CUSTOMER).await);

    let delivered = receiver
        .wait_until(Duration::from_secs(30), |requests| requests.len() >= 3)
        .await;
    let data: Vec<Value> = delivered.iter().map(|r| r.json()["data"].clone()).collect();
    let event_of = |resource: &Value| {
        data.iter()
            .find(|d| d["id"] == resource["id"])
            .unwrap_or_else(|| panic!("no event for {resource}: {data:?}"))
            .clone()
    };
    assert_eq!(event_of(&on_standby)["source_field"], "standby");
    assert_eq!(event_of(&echoed)["source_field"], "smb_message_echoes");
    assert_eq!(event_of(&echoed)["echo"], true);
    assert_eq!(event_of(&plain)["source_field"], "messages");
}

async fn a_missing_webhook_subscription_shows_on_the_senders(db: Db) {
    let app = spawn(
        db,
        |settings| settings.network.template_sync_interval_seconds = 1,
        80,
    )
    .await;
    // The first sync (at start) found the simulator's app subscribed.
    let fine = app.fields_missing_when(Value::is_array).await;
    assert_eq!(fine, json!([]));

    let unsubscribed = app
        .http
        .delete(format!(
            "{}/simulator/v23.0/{SIMULATOR_WABA_ID}/subscribed_apps",
            app.base
        ))
        .bearer_auth("simulator-token")
        .send()
        .await
        .unwrap();
    assert_eq!(unsubscribed.status(), 200);
    let missing = app
        .fields_missing_when(|m| m.as_array().is_some_and(|fields| !fields.is_empty()))
        .await;
    let fields: Vec<&str> = missing
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for needed in [
        "messages",
        "standby",
        "smb_message_echoes",
        "message_template_status_update",
    ] {
        assert!(fields.contains(&needed), "{needed} not in {missing}");
    }
    let one_id = app.get("/api/v1/senders").await["data"][0]["id"].clone();
    let one = app
        .get(&format!("/api/v1/senders/{}", one_id.as_str().unwrap()))
        .await;
    assert_eq!(one["webhook_fields_missing"], missing);
}
