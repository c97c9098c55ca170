//! The block list (`POST|DELETE /{v}/{phone_number_id}/block_users`) with Meta's rules and answers, the
//! refusal of messages to a blocked user, and the `user_preferences` control endpoint and inbound user ids.

use crate::helpers::*;
use serde_json::{Value, json};

impl TestSim {
    async fn block_users(&self, verb: reqwest::Method, users: &[&str]) -> (u16, Value) {
        let body = json!({
            "messaging_product": "whatsapp",
            "block_users": users.iter().map(|u| json!({ "user": u })).collect::<Vec<_>>(),
        });
        let response = self
            .client
            .request(verb, format!("{}/v23.0/{PNID_1}/block_users", self.base))
            .bearer_auth(TOKEN)
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap())
    }

    async fn control(&self, path: &str, body: &Value) -> (u16, Value) {
        let response = self
            .client
            .post(format!("{}/control/{path}", self.base))
            .json(body)
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap())
    }
}

#[tokio::test]
async fn only_users_who_wrote_in_24_hours_are_blocked_and_messages_to_them_fail() {
    let sim = spawn_simulator().await;
    sim.customer_writes("+15551234567").await;
    let (status, answer) = sim
        .block_users(reqwest::Method::POST, &["+15551234567", "15557654321"])
        .await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(answer["error"]["code"], 139100);
    assert_eq!(
        answer["block_users"]["added_users"],
        json!([{ "input": "+15551234567", "wa_id": "15551234567" }])
    );
    let failed = &answer["block_users"]["failed_users"][0];
    assert_eq!(failed["input"], "15557654321");
    assert_eq!(failed["errors"][0]["code"], 131047);

    let (status, refused) = sim.send(PNID_1, &text("+15551234567", "hi")).await;
    assert_eq!(status, 400);
    assert_eq!(refused["error"]["code"], 130403, "{refused}");
    let (status, _) = sim
        .send(PNID_2, &hello_world("+15551234567", "other-number"))
        .await;
    assert_eq!(status, 200, "the list is the number's own");

    let (status, answer) = sim.block_users(reqwest::Method::DELETE, &["15551234567"]).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["block_users"]["removed_users"][0]["wa_id"], "15551234567");
    sim.send_ok(&text("+15551234567", "welcome back")).await;
}

#[tokio::test]
async fn malformed_block_requests_are_refused() {
    let sim = spawn_simulator().await;
    let many: Vec<String> = (0..1_001).map(|i| format!("1555{i:07}")).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    let (status, answer) = sim.block_users(reqwest::Method::POST, &many).await;
    assert_eq!(status, 400);
    assert_eq!(answer["error"]["code"], 100);
    let (status, _) = sim.block_users(reqwest::Method::POST, &[]).await;
    assert_eq!(status, 400);
}

#[tokio::test]
async fn user_preferences_and_inbound_user_ids_arrive_in_metas_shape() {
    let sim = spawn_simulator().await;
    let (status, answer) = sim
        .control(
            "user-preferences",
            &json!({ "to": "+15550001111", "user_id": "US.13491208655302741918", "value": "stop" }),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["delivered"], true);
    let received = sim.receiver.wait_until("the preference", |r| !r.is_empty()).await;
    let change = &received[0].json()["entry"][0]["changes"][0];
    assert_eq!(change["field"], "user_preferences");
    assert_eq!(change["value"]["metadata"]["phone_number_id"], PNID_1);
    let item = &change["value"]["user_preferences"][0];
    assert_eq!(item["user_id"], "US.13491208655302741918");
    assert!(item.get("wa_id").is_none(), "no number was given");
    assert_eq!(item["category"], "marketing_messages");
    assert_eq!(item["value"], "stop");
    assert!(item["timestamp"].is_i64());

    for bad in [
        json!({ "to": "+15550001111", "value": "stop" }),
        json!({ "to": "+15550001111", "from": "+15551234567", "value": "pause" }),
        json!({ "to": "+15550001111", "user_id": "nope", "value": "stop" }),
    ] {
        let (status, _) = sim.control("user-preferences", &bad).await;
        assert_eq!(status, 400, "{bad}");
    }

    let (status, _) = sim
        .inbound_with(
            &json!({ "from": "+15551234567", "to": "+15550001111", "text": "hi",
                               "user_id": "US.13491208655302741918" }),
        )
        .await;
    assert_eq!(status, 200);
    let message = sim.last_inbound();
    assert_eq!(message["from_user_id"], "US.13491208655302741918");
    // The user can be blocked by their user id once they wrote.
    let (status, answer) = sim
        .block_users(reqwest::Method::POST, &["US.13491208655302741918"])
        .await;
    assert_eq!(status, 200, "{answer}");

    // A user who hides their number writes by user id alone: Meta's envelope has no `from` and no `wa_id`,
    // and their window opens under the id, so they can be blocked by it.
    let hidden = "US.55500011122233344455";
    let (status, _) = sim
        .inbound_with(&json!({ "to": "+15550001111", "text": "hi", "user_id": hidden }))
        .await;
    assert_eq!(status, 200);
    let message = sim.last_inbound();
    assert!(message.get("from").is_none(), "{message}");
    assert_eq!(message["from_user_id"], hidden);
    let (status, answer) = sim.block_users(reqwest::Method::POST, &[hidden]).await;
    assert_eq!(status, 200, "{answer}");
    // Neither a number nor a user id names nobody.
    let (status, _) = sim
        .inbound_with(&json!({ "to": "+15550001111", "text": "hi" }))
        .await;
    assert_eq!(status, 400);
}
