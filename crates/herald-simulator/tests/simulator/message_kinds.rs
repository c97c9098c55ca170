//! Reactions, locations, contacts, audio and stickers, replies (`context`), read receipts and the typing
//! indicator.

use herald_simulator::RecordKind;
use serde_json::{Value, json};

use crate::helpers::*;

const CUSTOMER: &str = "+4915112345678";
const OTHER: &str = "+4915199999990";

fn reaction(message_id: &str, emoji: &str) -> Value {
    message(
        CUSTOMER,
        "reaction",
        json!({ "message_id": message_id, "emoji": emoji }),
    )
}

fn read(message_id: &str) -> Value {
    json!({ "messaging_product": "whatsapp", "status": "read", "message_id": message_id })
}

fn typing(message_id: &str) -> Value {
    let mut body = read(message_id);
    body["typing_indicator"] = json!({ "type": "text" });
    body
}

#[tokio::test]
async fn location_contacts_audio_sticker_and_replies_are_accepted() {
    let sim = spawn_simulator().await;
    let inbound = sim.customer_writes(CUSTOMER).await;
    let outbound = sim.send_ok(&text(CUSTOMER, "first")).await;
    let mut reply_to_customer = text(CUSTOMER, "replying to you");
    reply_to_customer["context"] = json!({ "message_id": inbound });
    let mut reply_to_self = message(
        CUSTOMER,
        "location",
        json!({ "latitude": 52.52, "longitude": 13.405, "name": "Office", "address": "Berlin" }),
    );
    reply_to_self["context"] = json!({ "message_id": outbound });
    let accepted = [
        reply_to_customer,
        reply_to_self,
        message(
            CUSTOMER,
            "location",
            json!({ "latitude": -33.9, "longitude": 18.4 }),
        ),
        message(
            CUSTOMER,
            "contacts",
            json!([{
                "name": { "formatted_name": "Ana Lima", "first_name": "Ana" },
                "phones": [{ "phone": "+55 11 5555 0000", "type": "WORK", "wa_id": "551155550000" }],
            }]),
        ),
        message(CUSTOMER, "audio", json!({ "link": "https://x.test/a.ogg" })),
        message(CUSTOMER, "sticker", json!({ "link": "https://x.test/s.webp" })),
        reaction(&inbound, "👍"),
        reaction(&outbound, ""),
    ];
    for body in &accepted {
        sim.send_ok(body).await;
    }
    assert_eq!(sim.simulator.sent().len(), accepted.len() + 1);
}

#[tokio::test]
async fn malformed_kinds_are_refused_with_code_100() {
    let sim = spawn_simulator().await;
    let inbound = sim.customer_writes(CUSTOMER).await;
    let mut context_not_object = text(CUSTOMER, "hi");
    context_not_object["context"] = json!("wamid.x");
    let mut context_without_id = text(CUSTOMER, "hi");
    context_without_id["context"] = json!({});
    let cases = [
        message(CUSTOMER, "reaction", json!({ "emoji": "👍" })),
        message(CUSTOMER, "reaction", json!({ "message_id": inbound })),
        message(CUSTOMER, "location", json!({ "latitude": 52.5 })),
        message(
            CUSTOMER,
            "location",
            json!({ "latitude": "52.5", "longitude": "13.4" }),
        ),
        message(
            CUSTOMER,
            "location",
            json!({ "latitude": 91.0, "longitude": 13.4 }),
        ),
        message(CUSTOMER, "contacts", json!([])),
        message(CUSTOMER, "contacts", json!([{ "name": { "first_name": "Ana" } }])),
        message(CUSTOMER, "contacts", json!([{ "phones": [] }])),
        message(CUSTOMER, "audio", json!({})),
        message(
            CUSTOMER,
            "audio",
            json!({ "link": "https://x.test/a.ogg", "caption": "listen" }),
        ),
        message(
            CUSTOMER,
            "sticker",
            json!({ "link": "https://x.test/s.webp", "caption": "party" }),
        ),
        message(
            CUSTOMER,
            "sticker",
            json!({ "link": "https://x.test/s.webp", "filename": "s.webp" }),
        ),
        message(
            CUSTOMER,
            "sticker",
            json!({ "id": "1", "link": "https://x.test/s.webp" }),
        ),
        context_not_object,
        context_without_id,
    ];
    for body in cases {
        let (status, error) = sim.send(PNID_1, &body).await;
        assert_graph_error(status, &error, 400, 100);
    }
    assert!(sim.simulator.sent().is_empty());
}

#[tokio::test]
async fn replies_and_reactions_must_name_a_message_of_the_conversation() {
    let sim = spawn_simulator().await;
    let mine = sim.customer_writes(CUSTOMER).await;
    let theirs = sim.customer_writes(OTHER).await;
    let mut unknown_reply = text(CUSTOMER, "hi");
    unknown_reply["context"] = json!({ "message_id": "wamid.unknown" });
    let mut other_chat_reply = text(CUSTOMER, "hi");
    other_chat_reply["context"] = json!({ "message_id": theirs });
    let cases = [
        (unknown_reply, "context"),
        (other_chat_reply, "context"),
        (reaction("wamid.unknown", "👍"), "reaction"),
        (reaction(&theirs, "👍"), "reaction"),
    ];
    for (body, field) in cases {
        let (status, error) = sim.send(PNID_1, &body).await;
        let details = assert_graph_error(status, &error, 400, 131009);
        assert_eq!(
            error["error"]["message"],
            "(#131009) Parameter value is not valid"
        );
        assert!(details.contains(field), "{details}");
    }
    // Another business number never saw the message.
    let (status, error) = sim
        .send(
            PNID_2,
            &message(CUSTOMER, "reaction", json!({ "message_id": mine, "emoji": "👍" })),
        )
        .await;
    // Its window with the customer is closed too; the window is checked after the reference.
    assert_graph_error(status, &error, 400, 131009);
    assert!(sim.simulator.sent().is_empty());
}

#[tokio::test]
async fn a_reaction_is_reported_sent_and_nothing_more() {
    let sim = spawn_simulator().await;
    let inbound = sim.customer_writes(CUSTOMER).await;
    let wamid = sim.send_ok(&reaction(&inbound, "❤️")).await;
    let statuses = sim.receiver.statuses_of(&wamid, 1).await;
    let names: Vec<&str> = statuses.iter().map(|s| s["status"].as_str().unwrap()).collect();
    assert_eq!(names, ["sent"]);
    // A message in the same conversation still gets its delivered.
    let text_wamid = sim.send_ok(&text(CUSTOMER, "and a text")).await;
    assert_eq!(sim.receiver.statuses_of(&text_wamid, 2).await.len(), 2);
}

#[tokio::test]
async fn read_receipts_and_typing_are_recorded_in_the_sent_list() {
    let sim = spawn_simulator().await;
    let inbound = sim.customer_writes(CUSTOMER).await;
    for body in [read(&inbound), typing(&inbound)] {
        let (status, answer) = sim.send(PNID_1, &body).await;
        assert_eq!((status, answer), (200, json!({ "success": true })));
    }
    let (status, listed) = sim.get("/control/sent").await;
    assert_eq!(status, 200);
    assert_eq!(listed[0]["kind"], "read");
    assert_eq!(listed[1]["kind"], "typing");
    let sent = sim.simulator.sent();
    assert_eq!(sent.len(), 2);
    for (record, kind, body) in [
        (&sent[0], RecordKind::Read, read(&inbound)),
        (&sent[1], RecordKind::Typing, typing(&inbound)),
    ] {
        assert_eq!(record.kind, kind);
        assert_eq!(record.wamid, inbound);
        assert_eq!(record.recipient, "4915112345678");
        assert_eq!(record.phone_number_id, PNID_1);
        assert_eq!(record.request, body);
    }
    // Nothing is reported for a read receipt.
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    assert_eq!(sim.receiver.received().len(), 1, "only the inbound message");
}

#[tokio::test]
async fn read_receipts_must_name_a_received_message() {
    let sim = spawn_simulator().await;
    let inbound = sim.customer_writes(CUSTOMER).await;
    let outbound = sim.send_ok(&text(CUSTOMER, "ours")).await;
    for body in [read("wamid.unknown"), typing("wamid.unknown"), read(&outbound)] {
        let (status, error) = sim.send(PNID_1, &body).await;
        let details = assert_graph_error(status, &error, 400, 131009);
        assert!(details.contains("message_id"), "{details}");
    }
    let (status, error) = sim.send(PNID_2, &read(&inbound)).await;
    assert_graph_error(status, &error, 400, 131009);
    let mut wrong_indicator = read(&inbound);
    wrong_indicator["typing_indicator"] = json!({ "type": "audio" });
    let missing_id = json!({ "messaging_product": "whatsapp", "status": "read" });
    for body in [wrong_indicator, missing_id] {
        let (status, error) = sim.send(PNID_1, &body).await;
        assert_graph_error(status, &error, 400, 100);
    }
    assert_eq!(sim.simulator.sent().len(), 1, "only the text");
}
