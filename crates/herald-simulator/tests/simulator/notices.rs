//! `POST /simulator/control/notice`: the account webhooks on demand, signed and in Meta's envelope, with a
//! known template's id filled in; a malformed request is a 400 and sends nothing.

use crate::helpers::*;
use serde_json::{Value, json};

impl TestSim {
    async fn notice(&self, body: &Value) -> (u16, Value) {
        let response = self
            .client
            .post(format!("{}/control/notice", self.base))
            .json(body)
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap())
    }
}

#[tokio::test]
async fn a_notice_is_delivered_signed_in_metas_envelope() {
    let sim = spawn_simulator().await;
    let (status, answer) = sim
        .notice(&json!({ "field": "message_template_quality_update", "value": {
            "message_template_name": "order_shipped", "message_template_language": "en_US",
            "previous_quality_score": "GREEN", "new_quality_score": "RED" } }))
        .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["delivered"], true);
    let received = sim.receiver.wait_until("the notice", |r| !r.is_empty()).await;
    assert_eq!(
        received[0].signature.as_deref(),
        Some(expected_signature(&received[0].body).as_str())
    );
    let envelope = received[0].json();
    assert_eq!(envelope, answer["envelope"]);
    assert_eq!(envelope["object"], "whatsapp_business_account");
    let entry = &envelope["entry"][0];
    assert_eq!(entry["id"], WABA);
    assert!(entry["time"].as_i64().unwrap() > 1_700_000_000);
    let change = &entry["changes"][0];
    assert_eq!(change["field"], "message_template_quality_update");
    assert_eq!(change["value"]["new_quality_score"], "RED");
    assert_eq!(
        change["value"]["message_template_id"], 3_000_000_002_u64,
        "the seeded template's id"
    );

    let (status, _) = sim
        .notice(&json!({ "field": "phone_number_quality_update", "waba_id": "2000000009",
            "value": { "display_phone_number": "15550001111", "event": "UPGRADE", "current_limit": "TIER_100K" } }))
        .await;
    assert_eq!(status, 200);
    let received = sim.receiver.wait_until("two notices", |r| r.len() >= 2).await;
    assert_eq!(received[1].json()["entry"][0]["id"], "2000000009");
}

#[tokio::test]
async fn malformed_notices_are_refused_and_nothing_is_sent() {
    let sim = spawn_simulator().await;
    for (body, says) in [
        (
            json!({ "field": "messages", "value": {} }),
            "field must be one of",
        ),
        (
            json!({ "field": "account_update", "value": { "ban_info": {} } }),
            "account_update needs `event`",
        ),
        (
            json!({ "field": "template_category_update", "value": {
                "message_template_name": "x", "message_template_language": "en_US" } }),
            "needs `new_category`",
        ),
        (
            json!({ "field": "account_update", "value": { "event": "X" }, "waba_id": "abc" }),
            "waba_id must be digits",
        ),
    ] {
        let (status, answer) = sim.notice(&body).await;
        assert_eq!(status, 400, "{body}");
        assert!(answer["error"].as_str().unwrap().contains(says), "{answer}");
    }
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert!(sim.receiver.received().is_empty());
}
