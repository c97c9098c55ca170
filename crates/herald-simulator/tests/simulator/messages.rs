//! `POST /{v}/{phone_number_id}/messages`: validation, error codes, success bodies, the sent list.

use serde_json::{Value, json};

use crate::helpers::*;

const CUSTOMER: &str = "+4915112345678";

#[tokio::test]
async fn a_missing_or_wrong_token_is_401_with_code_190() {
    let sim = spawn_simulator().await;
    let body = hello_world(CUSTOMER, "t");
    let (status, error) = sim.send_as(None, PNID_1, &body).await;
    assert_graph_error(status, &error, 401, 190);
    let (status, error) = sim.send_as(Some("not-the-token"), PNID_1, &body).await;
    assert_graph_error(status, &error, 401, 190);
    assert!(sim.simulator.sent().is_empty());
}

#[tokio::test]
async fn an_unknown_phone_number_id_is_code_100() {
    let sim = spawn_simulator().await;
    let (status, error) = sim.send("1999999999", &hello_world(CUSTOMER, "t")).await;
    assert_graph_error(status, &error, 400, 100);
    assert_eq!(error["error"]["error_subcode"], 33);
}

#[tokio::test]
async fn malformed_requests_are_code_100() {
    let sim = spawn_simulator().await;
    let cases = [
        json!({ "to": CUSTOMER, "type": "text", "text": { "body": "hi" } }),
        json!({ "messaging_product": "sms", "to": CUSTOMER, "type": "text", "text": { "body": "hi" } }),
        json!({ "messaging_product": "whatsapp", "type": "text", "text": { "body": "hi" } }),
        json!({ "messaging_product": "whatsapp", "to": "not a number", "type": "text", "text": { "body": "hi" } }),
        json!({ "messaging_product": "whatsapp", "to": CUSTOMER, "text": { "body": "hi" } }),
        json!({ "messaging_product": "whatsapp", "to": CUSTOMER, "type": "text", "image": { "id": "1" } }),
        json!({ "messaging_product": "whatsapp", "to": CUSTOMER, "type": "text", "text": { "body": "" } }),
        json!({ "messaging_product": "whatsapp", "to": CUSTOMER, "type": "image", "image": { "id": "1", "link": "https://x/y.jpg" } }),
        json!({ "messaging_product": "whatsapp", "to": CUSTOMER, "type": "hologram", "hologram": {} }),
        json!({ "messaging_product": "whatsapp", "to": CUSTOMER, "type": "template", "template": { "name": "hello_world" } }),
    ];
    for case in cases {
        let (status, error) = sim.send(PNID_1, &case).await;
        assert_graph_error(status, &error, 400, 100);
    }
    let response = sim
        .client
        .post(format!("{}/v23.0/{PNID_1}/messages", sim.base))
        .bearer_auth(TOKEN)
        .body("{not json")
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    assert_graph_error(status, &response.json().await.unwrap(), 400, 100);
    assert!(sim.simulator.sent().is_empty());
}

#[tokio::test]
async fn sending_to_the_business_number_itself_is_131021() {
    let sim = spawn_simulator().await;
    let (status, error) = sim.send(PNID_1, &hello_world("+1 555 000 1111", "t")).await;
    assert_graph_error(status, &error, 400, 131021);
    // The other sender may message it: it is just another WhatsApp number to that one.
    let (status, _) = sim.send(PNID_2, &hello_world("+15550001111", "t")).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn free_form_needs_an_open_window_with_that_sender() {
    let sim = spawn_simulator().await;
    let (status, error) = sim.send(PNID_1, &text(CUSTOMER, "hello")).await;
    let details = assert_graph_error(status, &error, 400, 131047);
    assert!(details.contains("24 hours"), "{details}");

    let (status, _) = sim.inbound(CUSTOMER, "+15550001111", "hi there").await;
    assert_eq!(status, 200);
    let (status, body) = sim.send(PNID_1, &text(CUSTOMER, "hello")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["messaging_product"], "whatsapp");
    assert_eq!(body["contacts"][0]["input"], CUSTOMER);
    assert_eq!(body["contacts"][0]["wa_id"], "4915112345678");
    assert!(body["messages"][0]["id"].as_str().unwrap().starts_with("wamid."));
    assert!(
        body["messages"][0].get("message_status").is_none(),
        "only templates carry it"
    );

    let image = json!({ "messaging_product": "whatsapp", "to": CUSTOMER, "type": "image",
                        "image": { "link": "https://example.com/a.jpg", "caption": "look" } });
    assert_eq!(sim.send(PNID_1, &image).await.0, 200);
    // The window belongs to the (sender, customer) pair.
    let (status, error) = sim.send(PNID_2, &text(CUSTOMER, "hello")).await;
    assert_graph_error(status, &error, 400, 131047);
}

#[tokio::test]
async fn unknown_templates_are_404_132001_and_paused_ones_132015() {
    let sim = spawn_simulator().await;
    let (status, error) = sim
        .send(
            PNID_1,
            &template(CUSTOMER, "no_such_template", "en_US", json!([])),
        )
        .await;
    assert_graph_error(status, &error, 404, 132001);
    let (status, error) = sim
        .send(PNID_1, &template(CUSTOMER, "hello_world", "pt_BR", json!([])))
        .await;
    let details = assert_graph_error(status, &error, 404, 132001);
    assert!(details.contains("pt_BR"), "{details}");
    let body = json!([{ "type": "body", "parameters": [{ "type": "text", "text": "20%" }] }]);
    let (status, error) = sim
        .send(PNID_1, &template(CUSTOMER, "spring_sale", "en_US", body))
        .await;
    assert_graph_error(status, &error, 400, 132015);
}

fn order_shipped(header: Option<Value>, body_params: usize, button: Option<Value>) -> Vec<Value> {
    let mut components = Vec::new();
    if let Some(header) = header {
        components.push(json!({ "type": "header", "parameters": [header] }));
    }
    let params: Vec<Value> = (0..body_params)
        .map(|i| json!({ "type": "text", "text": format!("v{i}") }))
        .collect();
    components.push(json!({ "type": "body", "parameters": params }));
    if let Some(button) = button {
        components.push(json!({ "type": "button", "sub_type": "url", "index": "0",
                                "parameters": [button] }));
    }
    components
}

#[tokio::test]
async fn template_parameters_are_checked_against_the_definition() {
    let sim = spawn_simulator().await;
    let header = || Some(json!({ "type": "text", "text": "ORD-1" }));
    let button = || Some(json!({ "type": "text", "text": "ORD-1" }));
    let send = |components: Vec<Value>| {
        let body = template(CUSTOMER, "order_shipped", "en_US", Value::Array(components));
        let sim = &sim;
        async move { sim.send(PNID_1, &body).await }
    };

    let (status, ok) = send(order_shipped(header(), 3, button())).await;
    assert_eq!(status, 200, "{ok}");
    assert_eq!(ok["messages"][0]["message_status"], "accepted");

    let (status, error) = send(order_shipped(header(), 2, button())).await;
    let details = assert_graph_error(status, &error, 400, 132000);
    assert!(details.contains("(2)") && details.contains("(3)"), "{details}");
    let (status, error) = send(order_shipped(None, 3, button())).await;
    assert_graph_error(status, &error, 400, 132000);
    let wrong_header = Some(json!({ "type": "image", "image": { "link": "https://x/y.jpg" } }));
    let (status, error) = send(order_shipped(wrong_header, 3, button())).await;
    assert_graph_error(status, &error, 400, 132012);
    let (status, error) = send(order_shipped(header(), 3, None)).await;
    let details = assert_graph_error(status, &error, 400, 131008);
    assert!(details.contains("index 0"), "{details}");

    // Integer button indexes are accepted like the string form.
    let mut components = order_shipped(header(), 3, None);
    components.push(json!({ "type": "button", "sub_type": "url", "index": 0,
                            "parameters": [{ "type": "text", "text": "X" }] }));
    let (status, body) = send(components).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(sim.simulator.sent().len(), 2, "only accepted sends are recorded");
}

#[tokio::test]
async fn media_headers_must_have_the_templates_kind() {
    let sim = spawn_simulator().await;
    let with_header = |kind: &str| {
        json!([
            { "type": "header", "parameters": [{ "type": kind, kind: { "link": "https://example.com/inv-1.pdf" } }] },
            { "type": "body", "parameters": [{ "type": "text", "text": "INV-1" }] },
        ])
    };
    let send = |components: Value| {
        let body = template(CUSTOMER, "invoice_ready", "en_US", components);
        let sim = &sim;
        async move { sim.send(PNID_1, &body).await }
    };
    assert_eq!(send(with_header("document")).await.0, 200);
    let (status, error) = send(with_header("image")).await;
    assert_graph_error(status, &error, 400, 132012);
    let no_header = json!([{ "type": "body", "parameters": [{ "type": "text", "text": "INV-1" }] }]);
    let (status, error) = send(no_header).await;
    assert_graph_error(status, &error, 400, 132000);

    let video = json!([{ "type": "header", "parameters": [{ "type": "video", "video": { "link": "https://x/v.mp4" } }] }]);
    let (status, body) = sim
        .send(PNID_2, &template(CUSTOMER, "welcome_video", "pt_BR", video))
        .await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn named_templates_need_exactly_their_parameter_names() {
    let sim = spawn_simulator().await;
    let send = |params: Value| {
        let components = json!([{ "type": "body", "parameters": params }]);
        let body = template(CUSTOMER, "appointment_named", "en_US", components);
        let sim = &sim;
        async move { sim.send(PNID_1, &body).await }
    };
    let named = json!([
        { "type": "text", "text": "May 2", "parameter_name": "date" },
        { "type": "text", "text": "Asha", "parameter_name": "customer" },
    ]);
    assert_eq!(send(named).await.0, 200);
    let wrong_name = json!([
        { "type": "text", "text": "May 2", "parameter_name": "day" },
        { "type": "text", "text": "Asha", "parameter_name": "customer" },
    ]);
    let (status, error) = send(wrong_name).await;
    assert_graph_error(status, &error, 400, 132000);
    let positional = json!([{ "type": "text", "text": "Asha" }, { "type": "text", "text": "May 2" }]);
    let (status, error) = send(positional).await;
    assert_graph_error(status, &error, 400, 132000);
    let (status, error) =
        send(json!([{ "type": "text", "text": "Asha", "parameter_name": "customer" }])).await;
    assert_graph_error(status, &error, 400, 132000);
}

#[tokio::test]
async fn numbers_ending_9998_fail_twice_per_message_then_succeed() {
    let sim = spawn_simulator().await;
    let to = "+4915100009998";
    for _ in 0..2 {
        let (status, error) = sim.send(PNID_1, &hello_world(to, "msg-a")).await;
        assert_graph_error(status, &error, 500, 131000);
    }
    let (status, body) = sim.send(PNID_1, &hello_world(to, "msg-a")).await;
    assert_eq!(status, 200, "{body}");
    // Another message to the same number gets its own two failures.
    let (status, error) = sim.send(PNID_1, &hello_world(to, "msg-b")).await;
    assert_graph_error(status, &error, 500, 131000);
    let sent = sim.simulator.sent();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].biz_opaque_callback_data.as_deref(), Some("msg-a"));
}

#[tokio::test]
async fn throughput_beyond_the_bucket_is_429_130429() {
    let sim = spawn_with(
        herald_simulator::SimulatorConfig {
            throughput_per_sender: 3,
            ..test_config()
        },
        0,
    )
    .await;
    for i in 0..3 {
        assert_eq!(
            sim.send(PNID_1, &hello_world(CUSTOMER, &format!("m{i}"))).await.0,
            200
        );
    }
    let response = sim
        .client
        .post(format!("{}/v23.0/{PNID_1}/messages", sim.base))
        .bearer_auth(TOKEN)
        .json(&hello_world(CUSTOMER, "m3"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["retry-after"], "1");
    let status = response.status().as_u16();
    let details = assert_graph_error(status, &response.json().await.unwrap(), 429, 130429);
    assert!(details.contains("too many messages"), "{details}");
    // The bucket is per sender.
    assert_eq!(sim.send(PNID_2, &hello_world(CUSTOMER, "other")).await.0, 200);
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    assert_eq!(
        sim.send(PNID_1, &hello_world(CUSTOMER, "later")).await.0,
        200,
        "refilled"
    );
}

#[tokio::test]
async fn mark_as_read_answers_success() {
    let sim = spawn_simulator().await;
    let wamid = sim.customer_writes(CUSTOMER).await;
    let read = json!({ "messaging_product": "whatsapp", "status": "read", "message_id": wamid });
    let (status, body) = sim.send(PNID_1, &read).await;
    assert_eq!((status, body), (200, json!({ "success": true })));
}

#[tokio::test]
async fn any_graph_version_is_served_and_other_paths_are_code_100() {
    let sim = spawn_simulator().await;
    let response = sim
        .client
        .post(format!("{}/v19.0/{PNID_1}/messages", sim.base))
        .bearer_auth(TOKEN)
        .json(&hello_world(CUSTOMER, "t"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let response = sim
        .client
        .post(format!("{}/latest/{PNID_1}/messages", sim.base))
        .bearer_auth(TOKEN)
        .json(&hello_world(CUSTOMER, "t"))
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    assert_graph_error(status, &response.json().await.unwrap(), 400, 100);

    let pinned = spawn_with(
        herald_simulator::SimulatorConfig {
            graph_version_prefix: false,
            ..test_config()
        },
        0,
    )
    .await;
    let old = pinned
        .client
        .post(format!("{}/v19.0/{PNID_1}/messages", pinned.base))
        .bearer_auth(TOKEN)
        .json(&hello_world(CUSTOMER, "t"))
        .send()
        .await
        .unwrap();
    assert_eq!(old.status().as_u16(), 400);
    assert_eq!(pinned.send(PNID_1, &hello_world(CUSTOMER, "t")).await.0, 200);
}
