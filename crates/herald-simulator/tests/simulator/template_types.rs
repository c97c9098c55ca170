//! Sends of the seeded examples of every template type, checked in the real wire shape: the right shape is
//! accepted, a wrong one gets the network's error (132000 counts, 132012 format, 131008 missing, 100
//! malformed, 131053 a card file this number cannot use).

use serde_json::{Value, json};

use crate::helpers::*;

const CUSTOMER: &str = "+4915112345678";

async fn send(sim: &TestSim, name: &str, components: Value) -> (u16, Value) {
    sim.send(PNID_1, &template(CUSTOMER, name, "en_US", components))
        .await
}

fn body(values: &[&str]) -> Value {
    let parameters: Vec<Value> = values
        .iter()
        .map(|v| json!({ "type": "text", "text": v }))
        .collect();
    json!({ "type": "body", "parameters": parameters })
}

fn button(sub_type: &str, index: &str, parameter: Value) -> Value {
    json!({ "type": "button", "sub_type": sub_type, "index": index, "parameters": [parameter] })
}

#[tokio::test]
async fn authentication_codes_go_in_the_body_and_the_code_button() {
    let sim = spawn_simulator().await;
    let code = json!({ "type": "text", "text": "482913" });
    let ok = json!([body(&["482913"]), button("url", "0", code.clone())]);
    assert_eq!(send(&sim, "verify_code", ok).await.0, 200);
    let (status, error) = send(&sim, "verify_code", json!([body(&["482913"])])).await;
    assert!(assert_graph_error(status, &error, 400, 131008).contains("index 0"));
    let (status, error) = send(&sim, "verify_code", json!([button("url", "0", code)])).await;
    assert_graph_error(status, &error, 400, 132000);
}

fn card(index: u64, image: Value) -> Value {
    json!({ "card_index": index, "components": [
        { "type": "header", "parameters": [{ "type": "image", "image": image }] },
        body(&["aloe", "$12"]),
        button("quick_reply", "0", json!({ "type": "payload", "payload": "more" })),
        button("url", "1", json!({ "type": "text", "text": "aloe" })),
    ] })
}

#[tokio::test]
async fn carousels_need_every_card_in_shape() {
    let sim = spawn_simulator().await;
    let link = || json!({ "link": "https://example.com/a.png" });
    let carousel = |cards: Vec<Value>| json!([body(&["Ana"]), { "type": "carousel", "cards": cards }]);
    assert_eq!(
        send(
            &sim,
            "spring_carousel",
            carousel(vec![card(0, link()), card(1, link())])
        )
        .await
        .0,
        200
    );
    let (status, error) = send(&sim, "spring_carousel", carousel(vec![card(0, link())])).await;
    assert_graph_error(status, &error, 400, 132012);
    let (status, error) = send(&sim, "spring_carousel", json!([body(&["Ana"])])).await;
    assert_graph_error(status, &error, 400, 131008);
    let (status, error) = send(
        &sim,
        "spring_carousel",
        carousel(vec![card(0, link()), card(0, link())]),
    )
    .await;
    assert_graph_error(status, &error, 400, 100);
    let mut video = card(1, link());
    video["components"][0] =
        json!({ "type": "header", "parameters": [{ "type": "video", "video": link() }] });
    let (status, error) = send(&sim, "spring_carousel", carousel(vec![card(0, link()), video])).await;
    assert!(assert_graph_error(status, &error, 400, 132012).contains("cards[1]"));
    let unknown = json!({ "id": "999999" });
    let (status, error) = send(
        &sim,
        "spring_carousel",
        carousel(vec![card(0, unknown), card(1, link())]),
    )
    .await;
    assert_graph_error(status, &error, 400, 131053);
    let mut no_suffix = card(1, link());
    no_suffix["components"].as_array_mut().unwrap().pop();
    let (status, error) = send(
        &sim,
        "spring_carousel",
        carousel(vec![card(0, link()), no_suffix]),
    )
    .await;
    assert!(assert_graph_error(status, &error, 400, 131008).contains("cards[1]"));
}

#[tokio::test]
async fn limited_time_offers_need_their_expiration() {
    let sim = spawn_simulator().await;
    let offer = |ms: Value| {
        json!({ "type": "limited_time_offer", "parameters": [
            { "type": "limited_time_offer", "limited_time_offer": { "expiration_time_ms": ms } }
        ] })
    };
    let buttons = || {
        vec![
            button(
                "copy_code",
                "0",
                json!({ "type": "coupon_code", "coupon_code": "SPRING25" }),
            ),
            button("url", "1", json!({ "type": "text", "text": "spring" })),
        ]
    };
    let with = |offer: Option<Value>| {
        let mut components = vec![body(&["Ana", "SPRING25"])];
        components.extend(offer);
        components.extend(buttons());
        Value::Array(components)
    };
    assert_eq!(
        send(
            &sim,
            "flash_sale_offer",
            with(Some(offer(json!(1_893_553_445_000_i64))))
        )
        .await
        .0,
        200
    );
    let (status, error) = send(&sim, "flash_sale_offer", with(None)).await;
    assert_graph_error(status, &error, 400, 131008);
    let (status, error) = send(&sim, "flash_sale_offer", with(Some(offer(json!("soon"))))).await;
    assert_graph_error(status, &error, 400, 100);
}

#[tokio::test]
async fn copy_code_flow_location_named_and_phone_buttons() {
    let sim = spawn_simulator().await;
    let coupon = |code: &str| {
        button(
            "copy_code",
            "1",
            json!({ "type": "coupon_code", "coupon_code": code }),
        )
    };
    assert_eq!(
        send(&sim, "coupon_code", json!([body(&["x"]), coupon("SAVE20")]))
            .await
            .0,
        200
    );
    let (status, error) = send(
        &sim,
        "coupon_code",
        json!([body(&["x"]), coupon("SAVE20-SPRING-25")]),
    )
    .await;
    assert_graph_error(status, &error, 400, 100);
    let (status, error) = send(&sim, "coupon_code", json!([body(&["x"])])).await;
    assert_graph_error(status, &error, 400, 131008);

    let flow = |action: Value| json!([button("flow", "0", json!({ "type": "action", "action": action }))]);
    assert_eq!(
        send(
            &sim,
            "survey_flow",
            flow(json!({ "flow_token": "t", "flow_action_data": { "a": 1 } }))
        )
        .await
        .0,
        200
    );
    assert_eq!(send(&sim, "survey_flow", json!([])).await.0, 200);
    let (status, error) = send(&sim, "survey_flow", flow(json!({ "flow_action_data": "x" }))).await;
    assert_graph_error(status, &error, 400, 100);

    let location = json!({ "type": "header", "parameters": [{ "type": "location",
        "location": { "latitude": 37.48, "longitude": "-122.14", "name": "Shop" } }] });
    assert_eq!(
        send(&sim, "store_location", json!([location, body(&["ORD-1"])]))
            .await
            .0,
        200
    );
    let text_header = json!({ "type": "header", "parameters": [{ "type": "text", "text": "x" }] });
    let (status, error) = send(&sim, "store_location", json!([text_header, body(&["ORD-1"])])).await;
    assert_graph_error(status, &error, 400, 132012);

    let named = |name: &str| {
        json!([
            { "type": "header", "parameters": [{ "type": "text", "text": "ORD-1", "parameter_name": name }] },
            { "type": "body", "parameters": [
                { "type": "text", "text": "Ana", "parameter_name": "customer" },
                { "type": "text", "text": "Fri", "parameter_name": "date" },
            ] },
        ])
    };
    assert_eq!(send(&sim, "order_named", named("order_id")).await.0, 200);
    let (status, error) = send(&sim, "order_named", named("order")).await;
    assert_graph_error(status, &error, 400, 132000);

    let suffix = button("url", "0", json!({ "type": "text", "text": "BK-1" }));
    assert_eq!(
        send(&sim, "booking_links", json!([body(&["Ana"]), suffix.clone()]))
            .await
            .0,
        200
    );
    let phone = button("url", "1", json!({ "type": "text", "text": "x" }));
    let (status, error) = send(&sim, "booking_links", json!([body(&["Ana"]), suffix, phone])).await;
    assert_graph_error(status, &error, 400, 132000);
}
