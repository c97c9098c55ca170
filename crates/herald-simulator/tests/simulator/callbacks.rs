//! Status callbacks: sequences per number ending, envelope shape, signatures, retries, duplicates.

use serde_json::Value;

use crate::helpers::*;

fn names(statuses: &[Value]) -> Vec<&str> {
    statuses.iter().map(|s| s["status"].as_str().unwrap()).collect()
}

#[tokio::test]
async fn ordinary_numbers_get_sent_then_delivered_in_a_signed_envelope() {
    let sim = spawn_simulator().await;
    let wamid = sim.send_hello("+4915112345678", "campaign-42").await;
    let statuses = sim.receiver.statuses_of(&wamid, 2).await;
    assert_eq!(names(&statuses), ["sent", "delivered"]);

    let received = sim.receiver.received();
    for callback in &received {
        assert_eq!(
            callback.signature.as_deref(),
            Some(expected_signature(&callback.body).as_str())
        );
        assert_eq!(callback.content_type.as_deref(), Some("application/json"));
    }
    let envelope = received[0].json();
    assert_eq!(envelope["object"], "whatsapp_business_account");
    assert_eq!(envelope["entry"][0]["id"], WABA);
    let change = &envelope["entry"][0]["changes"][0];
    assert_eq!(change["field"], "messages");
    assert_eq!(change["value"]["messaging_product"], "whatsapp");
    assert_eq!(change["value"]["metadata"]["phone_number_id"], PNID_1);
    assert_eq!(change["value"]["metadata"]["display_phone_number"], "15550001111");
    let status = &statuses[0];
    assert_eq!(status["recipient_id"], "4915112345678");
    assert_eq!(status["biz_opaque_callback_data"], "campaign-42");
    let timestamp: i64 = status["timestamp"].as_str().unwrap().parse().unwrap();
    assert!((chrono::Utc::now().timestamp() - timestamp).abs() < 60);
    assert_eq!(status["pricing"]["billable"], true);
    assert_eq!(status["pricing"]["pricing_model"], "PMP");
    assert_eq!(status["pricing"]["type"], "regular");
    assert_eq!(status["pricing"]["category"], "utility");
    assert!(status.get("errors").is_none());
}

#[tokio::test]
async fn numbers_ending_9997_are_read() {
    let sim = spawn_simulator().await;
    let wamid = sim.send_hello("+4915100009997", "r").await;
    let statuses = sim.receiver.statuses_of(&wamid, 3).await;
    assert_eq!(names(&statuses), ["sent", "delivered", "read"]);
}

#[tokio::test]
async fn numbers_ending_9996_report_delivered_before_sent() {
    let sim = spawn_simulator().await;
    let wamid = sim.send_hello("+4915100009996", "d").await;
    let statuses = sim.receiver.statuses_of(&wamid, 2).await;
    assert_eq!(names(&statuses), ["delivered", "sent"]);
}

#[tokio::test]
async fn numbers_ending_9999_fail_with_131026() {
    let sim = spawn_simulator().await;
    let wamid = sim.send_hello("+4915100009999", "f").await;
    let statuses = sim.receiver.statuses_of(&wamid, 1).await;
    assert_eq!(names(&statuses), ["failed"]);
    let error = &statuses[0]["errors"][0];
    assert_eq!(error["code"], 131026);
    assert_eq!(error["title"], "Message undeliverable");
    assert!(error["error_data"]["details"].is_string());
    assert!(statuses[0].get("pricing").is_none());
}

#[tokio::test]
async fn free_form_replies_are_priced_as_charged_service() {
    let sim = spawn_simulator().await;
    sim.inbound("+4915112345678", "+15550002222", "hi").await;
    let (status, body) = sim.send(PNID_2, &text("+4915112345678", "hello back")).await;
    assert_eq!(status, 200);
    let wamid = body["messages"][0]["id"].as_str().unwrap();
    let statuses = sim.receiver.statuses_of(wamid, 2).await;
    // Meta charges service replies since 2026-10-01; the simulator reports by today's rules.
    assert_eq!(statuses[0]["pricing"]["category"], "service");
    assert_eq!(statuses[0]["pricing"]["type"], "regular");
    assert_eq!(statuses[0]["pricing"]["billable"], true);
    assert!(statuses[0].get("biz_opaque_callback_data").is_none());
}

#[tokio::test]
async fn utility_templates_inside_the_window_are_charged() {
    let sim = spawn_simulator().await;
    sim.inbound("+4915112345678", "+15550001111", "hi").await;
    let wamid = sim.send_hello("+4915112345678", "in-window").await;
    let statuses = sim.receiver.statuses_of(&wamid, 2).await;
    // Free from 2025-07-01, charged again since 2026-10-01 (the simulator reports by today's rules).
    for status in &statuses {
        assert_eq!(status["pricing"]["category"], "utility");
        assert_eq!(status["pricing"]["type"], "regular");
        assert_eq!(status["pricing"]["billable"], true);
    }
}

#[tokio::test]
async fn refused_callbacks_are_retried() {
    let sim = spawn_with(test_config(), 2).await;
    let wamid = sim.send_hello("+4915112345678", "retry").await;
    let statuses = sim.receiver.statuses_of(&wamid, 2).await;
    assert_eq!(names(&statuses), ["sent", "delivered"]);
    assert_eq!(sim.receiver.attempts(), 4, "two refusals, then each status once");
}

#[tokio::test]
async fn duplicate_mode_sends_every_status_twice() {
    let config = herald_simulator::SimulatorConfig {
        duplicate_callbacks: true,
        ..test_config()
    };
    let sim = spawn_with(config, 0).await;
    let wamid = sim.send_hello("+4915100009997", "dup").await;
    let statuses = sim.receiver.statuses_of(&wamid, 6).await;
    assert_eq!(
        names(&statuses),
        ["sent", "sent", "delivered", "delivered", "read", "read"]
    );
}

#[tokio::test]
async fn reorder_mode_keeps_every_status() {
    let config = herald_simulator::SimulatorConfig {
        reorder_callbacks: true,
        ..test_config()
    };
    let sim = spawn_with(config, 0).await;
    let wamid = sim.send_hello("+4915100009997", "shuffle").await;
    let statuses = sim.receiver.statuses_of(&wamid, 3).await;
    let mut got = names(&statuses);
    got.sort_unstable();
    assert_eq!(got, ["delivered", "read", "sent"]);
}

#[tokio::test]
async fn a_callback_url_set_later_is_used() {
    let mut config = test_config();
    config.callback_delay_ms = (100, 100);
    let sim = spawn_with(config, 0).await;
    let other = Receiver::spawn(0).await;
    sim.simulator.set_callback_url(other.url.clone());
    let wamid = sim.send_hello("+4915112345678", "moved").await;
    let statuses = other.statuses_of(&wamid, 2).await;
    assert_eq!(names(&statuses), ["sent", "delivered"]);
    assert!(sim.receiver.received().is_empty());
}
