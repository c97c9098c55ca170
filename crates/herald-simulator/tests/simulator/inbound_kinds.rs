//! The control API delivers every inbound kind in Meta's webhook shape (docs/cloud-api.md §4.3).

use serde_json::{Value, json};

use crate::helpers::*;

const CUSTOMER: &str = "+4915112345678";
const WA_ID: &str = "4915112345678";
const BUSINESS: &str = "+15550001111";
const BUSINESS_DIGITS: &str = "15550001111";

/// Posts `content` (merged into a from/to body), asserts success, and returns the delivered message.
async fn deliver(sim: &TestSim, content: Value) -> Value {
    let mut body = json!({ "from": CUSTOMER, "to": BUSINESS });
    body.as_object_mut()
        .unwrap()
        .extend(content.as_object().unwrap().clone());
    let (status, answer) = sim.inbound_with(&body).await;
    assert_eq!(status, 200, "{body} -> {answer}");
    let message = sim.last_inbound();
    assert_eq!(message["id"], answer["id"]);
    assert_eq!(message["from"], WA_ID);
    assert!(message["timestamp"].as_str().unwrap().parse::<i64>().is_ok());
    message
}

async fn refused(sim: &TestSim, content: Value) -> String {
    let before = sim.inbound_messages().len();
    let mut body = json!({ "from": CUSTOMER, "to": BUSINESS });
    body.as_object_mut()
        .unwrap()
        .extend(content.as_object().unwrap().clone());
    let (status, answer) = sim.inbound_with(&body).await;
    assert_eq!(status, 400, "{body} -> {answer}");
    assert_eq!(sim.inbound_messages().len(), before, "nothing delivered");
    answer["error"].as_str().unwrap().to_owned()
}

/// An interactive message sent by the business, to be answered.
async fn business_sends(sim: &TestSim) -> String {
    sim.customer_writes(CUSTOMER).await;
    sim.send_ok(&message(
        CUSTOMER,
        "interactive",
        json!({
            "type": "button",
            "body": { "text": "Confirm?" },
            "action": { "buttons": [{ "type": "reply", "reply": { "id": "yes", "title": "Yes" } }] },
        }),
    ))
    .await
}

#[tokio::test]
async fn location_and_contacts() {
    let sim = spawn_simulator().await;
    let location = json!({ "latitude": 37.48, "longitude": -122.14, "name": "HQ", "address": "1 Hacker Way", "url": "https://x.test" });
    let message = deliver(&sim, json!({ "location": location })).await;
    assert_eq!(message["type"], "location");
    assert_eq!(message["location"], location);
    assert!(message["location"]["latitude"].is_number());

    let cards = json!([{
        "name": { "formatted_name": "Ana Lima", "first_name": "Ana", "last_name": "Lima" },
        "phones": [{ "phone": "+55 11 5555 0000", "wa_id": "551155550000", "type": "CELL" }],
        "emails": [{ "email": "ana@x.test", "type": "WORK" }],
    }]);
    let message = deliver(&sim, json!({ "contacts": cards })).await;
    assert_eq!(message["type"], "contacts");
    assert_eq!(message["contacts"], cards);
}

#[tokio::test]
async fn button_and_list_replies_template_buttons_and_flow_answers_carry_context() {
    let sim = spawn_simulator().await;
    let asked = business_sends(&sim).await;
    let context = json!({ "message_id": asked });
    let expected_context = json!({ "from": BUSINESS_DIGITS, "id": asked });

    let message = deliver(
        &sim,
        json!({ "button_reply": { "id": "yes", "title": "Yes" }, "context": context }),
    )
    .await;
    assert_eq!(message["type"], "interactive");
    assert_eq!(
        message["interactive"],
        json!({ "type": "button_reply", "button_reply": { "id": "yes", "title": "Yes" } })
    );
    assert_eq!(message["context"], expected_context);

    let row = json!({ "id": "r1", "title": "Row one", "description": "The first" });
    let message = deliver(&sim, json!({ "list_reply": row, "context": context })).await;
    assert_eq!(
        message["interactive"],
        json!({ "type": "list_reply", "list_reply": row })
    );
    assert_eq!(message["context"], expected_context);

    let message = deliver(
        &sim,
        json!({ "button": { "payload": "STOP", "text": "Stop promotions" }, "context": context }),
    )
    .await;
    assert_eq!(message["type"], "button");
    assert_eq!(
        message["button"],
        json!({ "payload": "STOP", "text": "Stop promotions" })
    );
    assert_eq!(message["context"], expected_context);

    let answer = json!({ "flow_token": "token-1", "rating": "5" });
    let message = deliver(
        &sim,
        json!({ "nfm_reply": { "response_json": answer }, "context": context }),
    )
    .await;
    assert_eq!(message["type"], "interactive");
    let nfm = &message["interactive"]["nfm_reply"];
    assert_eq!(message["interactive"]["type"], "nfm_reply");
    assert_eq!(
        (nfm["name"].as_str(), nfm["body"].as_str()),
        (Some("flow"), Some("Sent"))
    );
    let response_json: Value = serde_json::from_str(nfm["response_json"].as_str().unwrap()).unwrap();
    assert_eq!(
        response_json, answer,
        "response_json is a JSON string, as Meta sends it"
    );
    assert_eq!(message["context"], expected_context);
}

#[tokio::test]
async fn answers_need_the_context_of_a_business_message() {
    let sim = spawn_simulator().await;
    let asked = business_sends(&sim).await;
    let customer_message = sim.customer_writes(CUSTOMER).await;
    let reply = json!({ "id": "yes", "title": "Yes" });
    let error = refused(&sim, json!({ "button_reply": reply })).await;
    assert!(error.contains("context"), "{error}");
    let error = refused(
        &sim,
        json!({ "button_reply": reply, "context": { "message_id": "wamid.unknown" } }),
    )
    .await;
    assert!(error.contains("context"), "{error}");
    let error = refused(
        &sim,
        json!({ "list_reply": reply, "context": { "message_id": customer_message } }),
    )
    .await;
    assert!(error.contains("business"), "{error}");
    let error = refused(
        &sim,
        json!({ "button": { "payload": "P" }, "context": { "message_id": asked } }),
    )
    .await;
    assert!(error.contains("button.text"), "{error}");
    let error = refused(
        &sim,
        json!({ "nfm_reply": { "response_json": 5 }, "context": { "message_id": asked } }),
    )
    .await;
    assert!(error.contains("response_json"), "{error}");
}

#[tokio::test]
async fn reactions_name_a_message_and_an_empty_emoji_removes_it() {
    let sim = spawn_simulator().await;
    let asked = business_sends(&sim).await;
    let message = deliver(
        &sim,
        json!({ "reaction": { "message_id": asked, "emoji": "😮" } }),
    )
    .await;
    assert_eq!(message["type"], "reaction");
    assert_eq!(message["reaction"], json!({ "message_id": asked, "emoji": "😮" }));
    let message = deliver(&sim, json!({ "reaction": { "message_id": asked, "emoji": "" } })).await;
    assert_eq!(message["reaction"]["emoji"], "");
    let error = refused(
        &sim,
        json!({ "reaction": { "message_id": "wamid.unknown", "emoji": "😮" } }),
    )
    .await;
    assert!(error.contains("reaction.message_id"), "{error}");
}

#[tokio::test]
async fn replies_forwards_and_ad_referrals() {
    let sim = spawn_simulator().await;
    let asked = business_sends(&sim).await;
    let message = deliver(
        &sim,
        json!({ "text": "about this", "context": { "message_id": asked } }),
    )
    .await;
    assert_eq!(message["text"]["body"], "about this");
    assert_eq!(
        message["context"],
        json!({ "from": BUSINESS_DIGITS, "id": asked })
    );

    let message = deliver(&sim, json!({ "text": "look", "context": { "forwarded": true } })).await;
    assert_eq!(message["context"], json!({ "forwarded": true }));
    let error = refused(&sim, json!({ "text": "x", "context": { "forwarded": false } })).await;
    assert!(error.contains("context"), "{error}");

    let referral = json!({
        "source_url": "https://fb.me/ad", "source_id": "120200", "source_type": "ad",
        "headline": "Spring sale", "body": "20% off", "media_type": "image",
        "image_url": "https://x.test/ad.jpg", "ctwa_clid": "ARAkLk",
    });
    let message = deliver(&sim, json!({ "text": "I saw your ad", "referral": referral })).await;
    assert_eq!(message["type"], "text");
    assert_eq!(message["referral"], referral);
    let error = refused(
        &sim,
        json!({ "text": "x", "referral": { "source_url": "https://fb.me/ad" } }),
    )
    .await;
    assert!(error.contains("referral"), "{error}");
}

#[tokio::test]
async fn unsupported_messages_carry_meta_error() {
    let sim = spawn_simulator().await;
    let message = deliver(&sim, json!({ "unsupported": {} })).await;
    assert_eq!(message["type"], "unsupported");
    assert_eq!(message["errors"][0]["code"], 131051);
    assert_eq!(message["errors"][0]["title"], "Message type unknown");
    assert_eq!(
        message["errors"][0]["error_data"]["details"],
        "Message type is currently not supported."
    );
    assert!(message.get("unsupported").is_none());
    let message = deliver(&sim, json!({ "unsupported": { "type": "edit" } })).await;
    assert_eq!(message["unsupported"], json!({ "type": "edit" }));
}

#[tokio::test]
async fn every_inbound_kind_opens_the_window_and_one_content_is_required() {
    let sim = spawn_simulator().await;
    deliver(&sim, json!({ "location": { "latitude": 1.0, "longitude": 2.0 } })).await;
    sim.send_ok(&text(CUSTOMER, "window open")).await;
    let error = refused(
        &sim,
        json!({ "text": "a", "location": { "latitude": 1.0, "longitude": 2.0 } }),
    )
    .await;
    assert!(error.contains("exactly one"), "{error}");
    let error = refused(&sim, json!({})).await;
    assert!(error.contains("exactly one"), "{error}");
    let error = refused(
        &sim,
        json!({ "location": { "latitude": 91.0, "longitude": 2.0 } }),
    )
    .await;
    assert!(error.contains("location"), "{error}");
    let error = refused(&sim, json!({ "contacts": [{ "name": {} }] })).await;
    assert!(error.contains("formatted_name"), "{error}");
}
