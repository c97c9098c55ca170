//! The control API: inbound messages and the sent list.

use crate::helpers::*;
use serde_json::{Value, json};

#[tokio::test]
async fn inbound_messages_are_ascii_escaped_signed_and_round_trip() {
    let sim = spawn_simulator().await;
    let text = "Olá, ação 😀 — 東京";
    let (status, body) = sim.inbound("+49 151 1234 5678", "+15550001111", text).await;
    assert_eq!(status, 200, "{body}");
    let wamid = body["id"].as_str().unwrap();
    assert!(wamid.starts_with("wamid."));

    // Delivered before the control call answered.
    let received = sim.receiver.received();
    assert_eq!(received.len(), 1);
    let callback = &received[0];
    assert!(callback.body.is_ascii(), "the raw body is ASCII only");
    let raw = String::from_utf8(callback.body.clone()).unwrap();
    assert!(
        raw.contains(r"Ol\u00e1, a\u00e7\u00e3o \ud83d\ude00 \u2014 \u6771\u4eac"),
        "{raw}"
    );
    assert_eq!(
        callback.signature.as_deref(),
        Some(expected_signature(&callback.body).as_str())
    );

    let envelope = callback.json();
    let value = &envelope["entry"][0]["changes"][0]["value"];
    assert_eq!(envelope["entry"][0]["id"], WABA);
    assert_eq!(value["metadata"]["phone_number_id"], PNID_1);
    assert_eq!(value["contacts"][0]["wa_id"], "4915112345678");
    assert!(value["contacts"][0]["profile"]["name"].is_string());
    let message = &value["messages"][0];
    assert_eq!(message["from"], "4915112345678");
    assert_eq!(message["id"], wamid);
    assert_eq!(message["type"], "text");
    assert_eq!(message["text"]["body"], text, "round-trips when parsed");
    assert!(message["timestamp"].as_str().unwrap().parse::<i64>().is_ok());
}

#[tokio::test]
async fn inbound_to_an_unknown_business_number_is_404() {
    let sim = spawn_simulator().await;
    let (status, _) = sim.inbound("+4915112345678", "+15559999999", "hi").await;
    assert_eq!(status, 404);
    assert!(sim.receiver.received().is_empty());
}

#[tokio::test]
async fn the_sent_list_shows_accepted_sends() {
    let sim = spawn_simulator().await;
    let wamid = sim.send_hello("+4915112345678", "track-1").await;
    sim.send(PNID_1, &text("+4915112345678", "no window")).await;

    let response = sim
        .client
        .get(format!("{}/control/sent", sim.base))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let listed: Vec<herald_simulator::SentRecord> = response.json().await.unwrap();
    assert_eq!(listed, sim.simulator.sent());
    assert_eq!(listed.len(), 1);
    let record = &listed[0];
    assert_eq!(record.wamid, wamid);
    assert_eq!(record.phone_number_id, PNID_1);
    assert_eq!(record.recipient, "4915112345678");
    assert_eq!(record.biz_opaque_callback_data.as_deref(), Some("track-1"));
    assert_eq!(record.request, hello_world("+4915112345678", "track-1"));
    assert!((chrono::Utc::now() - record.received_at).num_seconds() < 60);
}

/// The fault suite's network outage: every send answers the injected 5xx with Meta's transient error, none
/// is recorded as sent, and the network is back once the fault is cleared.
#[tokio::test]
async fn injected_faults_fail_every_send_until_cleared() {
    let sim = spawn_simulator().await;
    let set = |status: u16, seconds: u64| {
        let client = sim.client.clone();
        let url = format!("{}/control/faults", sim.base);
        async move {
            let response = client
                .post(url)
                .json(&json!({ "send_status": status, "seconds": seconds }))
                .send()
                .await
                .unwrap();
            (
                response.status().as_u16(),
                response.json::<Value>().await.unwrap(),
            )
        }
    };
    let (status, body) = set(503, 60).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["send_status"], 503);

    let (status, body) = sim.send(PNID_1, &hello_world("+4915112345678", "t-1")).await;
    assert_graph_error(status, &body, 503, 131000);
    assert!(
        sim.receiver.received().is_empty(),
        "no callbacks for a failed send"
    );

    let (status, _) = set(200, 10).await;
    assert_eq!(status, 400, "only server errors");
    let (status, _) = set(500, 100_000).await;
    assert_eq!(status, 400, "bounded");

    let (status, body) = set(503, 0).await;
    assert_eq!(status, 200);
    assert_eq!(body["send_status"], Value::Null);
    sim.send_hello("+4915112345678", "t-2").await;
    let (_, sent) = sim.get("/control/sent").await;
    let tracked: Vec<&Value> = sent
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["biz_opaque_callback_data"])
        .collect();
    assert_eq!(tracked, [&json!("t-2")], "only the send after the fault");
}
