//! Every template type sent end to end (docs/api.md §4.1): the send form through the real HTTP API, the
//! real Cloud API client, and the simulator checking the wire as the network does, to `delivered`; and the
//! field errors naming the card, button or parameter that is wrong, with nothing stored — on both stores.

use crate::files::file_part;
use crate::helpers::{Db, assert_problem};
use crate::network::{NetApp, spawn};
use herald_testkit::files;
use reqwest::multipart::Form;
use serde_json::{Value, json};

on_both_stores!(
    authentication_codes_fill_the_body_and_the_code_button,
    carousels_send_every_card_with_its_file_and_buttons,
    limited_time_offers_send_their_expiration_in_milliseconds,
    copy_code_buttons_send_the_coupon_and_quick_replies_their_payload,
    flow_buttons_send_their_token_and_data,
    location_headers_send_the_place,
    named_parameters_fill_the_header_and_the_body_by_name,
    url_suffixes_are_sent_and_phone_buttons_take_nothing,
    wrong_variables_name_the_card_button_or_parameter_and_store_nothing,
);

const TO: &str = "+15551239001";

fn send_body(name: &str, variables: Value) -> Value {
    json!({ "to": TO, "template": { "name": name, "language": "en_US" }, "variables": variables })
}

/// Sends, waits for `delivered`, and returns the template object the simulator received.
async fn delivered_wire(app: &NetApp, name: &str, variables: Value) -> Value {
    let accepted = app
        .send("/api/v1/messages/send-template", send_body(name, variables))
        .await;
    let id = accepted["id"].as_str().unwrap();
    app.wait_status(id, "delivered").await;
    let sent = app.sent_for(id).await;
    assert_eq!(sent["template"]["name"], name, "{sent}");
    sent["template"].clone()
}

async fn authentication_codes_fill_the_body_and_the_code_button(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    let expected = json!([
        { "type": "body", "parameters": [{ "type": "text", "text": "482913" }] },
        { "type": "button", "sub_type": "url", "index": "0", "parameters": [{ "type": "text", "text": "482913" }] },
    ]);
    // The shorthand: the code alone.
    let wire = delivered_wire(&app, "verify_code", json!({ "code": "482913" })).await;
    assert_eq!(wire["components"], expected, "{wire}");
    // The full form says the same thing.
    let full = json!({
        "body": ["482913"],
        "buttons": [{ "index": 0, "sub_type": "url", "values": ["482913"] }],
    });
    let wire = delivered_wire(&app, "verify_code", full).await;
    assert_eq!(wire["components"], expected, "{wire}");
}

async fn carousels_send_every_card_with_its_file_and_buttons(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    let upload: Value = app
        .post_form(
            "/api/v1/media",
            Form::new().part("file", file_part(files::png(), "aloe.png", "image/png")),
        )
        .await
        .json()
        .await
        .unwrap();
    let card = |header: Value, plant: &str| {
        json!({
            "header": header,
            "body": [plant, "$12"],
            "buttons": [
                { "index": 0, "sub_type": "quick_reply", "values": [format!("more-{plant}")] },
                { "index": 1, "sub_type": "url", "values": [plant] },
            ],
        })
    };
    let variables = json!({
        "body": ["Ana"],
        "cards": [
            card(json!({ "type": "image", "media_id": upload["id"] }), "aloe"),
            card(json!({ "type": "image", "link": "https://files.example.com/pot.png" }), "pot"),
        ],
    });
    let wire = delivered_wire(&app, "spring_carousel", variables).await;
    let components = wire["components"].as_array().unwrap();
    assert_eq!(components.len(), 2, "{wire}");
    assert_eq!(
        components[0],
        json!({ "type": "body", "parameters": [{ "type": "text", "text": "Ana" }] })
    );
    assert_eq!(components[1]["type"], "carousel");
    let cards = components[1]["cards"].as_array().unwrap();
    assert_eq!(cards.len(), 2);
    // The stored file went up to the network at dispatch: the card names it by the network's media id,
    // which the simulator accepted as one of this number's uploads.
    let network_id = cards[0]["components"][0]["parameters"][0]["image"]["id"]
        .as_str()
        .unwrap();
    assert_ne!(network_id, upload["id"].as_str().unwrap());
    assert_eq!(
        cards[0],
        json!({ "card_index": 0, "components": [
            { "type": "header", "parameters": [{ "type": "image", "image": { "id": network_id } }] },
            { "type": "body", "parameters": [{ "type": "text", "text": "aloe" }, { "type": "text", "text": "$12" }] },
            { "type": "button", "sub_type": "quick_reply", "index": "0", "parameters": [{ "type": "payload", "payload": "more-aloe" }] },
            { "type": "button", "sub_type": "url", "index": "1", "parameters": [{ "type": "text", "text": "aloe" }] },
        ] })
    );
    assert_eq!(
        cards[1]["components"][0],
        json!({ "type": "header", "parameters": [{ "type": "image", "image": { "link": "https://files.example.com/pot.png" } }] })
    );
    assert_eq!(cards[1]["card_index"], 1);
}

async fn limited_time_offers_send_their_expiration_in_milliseconds(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    let variables = json!({
        "body": ["Ana", "SPRING25"],
        "offer": { "expires_at": "2030-01-02T03:04:05Z" },
        "buttons": [
            { "index": 0, "sub_type": "copy_code", "values": ["SPRING25"] },
            { "index": 1, "sub_type": "url", "values": ["spring"] },
        ],
    });
    let wire = delivered_wire(&app, "flash_sale_offer", variables).await;
    assert_eq!(
        wire["components"],
        json!([
            { "type": "body", "parameters": [{ "type": "text", "text": "Ana" }, { "type": "text", "text": "SPRING25" }] },
            { "type": "limited_time_offer", "parameters": [
                { "type": "limited_time_offer", "limited_time_offer": { "expiration_time_ms": 1_893_553_445_000_i64 } }
            ] },
            { "type": "button", "sub_type": "copy_code", "index": "0", "parameters": [{ "type": "coupon_code", "coupon_code": "SPRING25" }] },
            { "type": "button", "sub_type": "url", "index": "1", "parameters": [{ "type": "text", "text": "spring" }] },
        ]),
        "{wire}"
    );
}

async fn copy_code_buttons_send_the_coupon_and_quick_replies_their_payload(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    let variables = json!({
        "body": ["the spring sale"],
        "buttons": [
            { "index": 0, "sub_type": "quick_reply", "values": ["stop-promos"] },
            { "index": 1, "sub_type": "copy_code", "values": ["SAVE20"] },
        ],
    });
    let wire = delivered_wire(&app, "coupon_code", variables).await;
    assert_eq!(
        wire["components"],
        json!([
            { "type": "body", "parameters": [{ "type": "text", "text": "the spring sale" }] },
            { "type": "button", "sub_type": "quick_reply", "index": "0", "parameters": [{ "type": "payload", "payload": "stop-promos" }] },
            { "type": "button", "sub_type": "copy_code", "index": "1", "parameters": [{ "type": "coupon_code", "coupon_code": "SAVE20" }] },
        ]),
        "{wire}"
    );
    // The quick reply's payload is optional; the coupon is not.
    let wire = delivered_wire(
        &app,
        "coupon_code",
        json!({ "body": ["x"], "buttons": [{ "index": 1, "sub_type": "copy_code", "values": ["SAVE20"] }] }),
    )
    .await;
    assert_eq!(wire["components"].as_array().unwrap().len(), 2, "{wire}");
}

async fn flow_buttons_send_their_token_and_data(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    let variables = json!({
        "buttons": [{
            "index": 0,
            "sub_type": "flow",
            "flow_token": "survey-7",
            "flow_action_data": { "visit": "2026-11-20", "stars": 5 },
        }],
    });
    let wire = delivered_wire(&app, "survey_flow", variables).await;
    assert_eq!(
        wire["components"],
        json!([{ "type": "button", "sub_type": "flow", "index": "0", "parameters": [
            { "type": "action", "action": { "flow_token": "survey-7", "flow_action_data": { "visit": "2026-11-20", "stars": 5 } } }
        ] }]),
        "{wire}"
    );
    // Nothing given: the button opens the Flow with the network's default token.
    let wire = delivered_wire(&app, "survey_flow", json!({})).await;
    assert!(wire.get("components").is_none(), "{wire}");
}

async fn location_headers_send_the_place(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    let variables = json!({
        "header": { "type": "location", "latitude": 37.483307, "longitude": -122.148981,
                    "name": "Pablo Morales", "address": "1 Hacker Way, Menlo Park, CA 94025" },
        "body": ["ORD-9271"],
    });
    let wire = delivered_wire(&app, "store_location", variables).await;
    assert_eq!(
        wire["components"],
        json!([
            { "type": "header", "parameters": [{ "type": "location", "location": {
                "latitude": 37.483307, "longitude": -122.148981,
                "name": "Pablo Morales", "address": "1 Hacker Way, Menlo Park, CA 94025" } }] },
            { "type": "body", "parameters": [{ "type": "text", "text": "ORD-9271" }] },
        ]),
        "{wire}"
    );
}

async fn named_parameters_fill_the_header_and_the_body_by_name(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    let variables = json!({
        "header": { "type": "text", "values": { "order_id": "ORD-9271" } },
        "body": { "customer": "Ana", "date": "Friday" },
    });
    let wire = delivered_wire(&app, "order_named", variables).await;
    assert_eq!(
        wire["components"][0],
        json!({ "type": "header", "parameters": [{ "type": "text", "text": "ORD-9271", "parameter_name": "order_id" }] }),
        "{wire}"
    );
    let mut body: Vec<Value> = wire["components"][1]["parameters"].as_array().unwrap().clone();
    body.sort_by_key(|p| p["parameter_name"].as_str().unwrap().to_owned());
    assert_eq!(
        body,
        vec![
            json!({ "type": "text", "text": "Ana", "parameter_name": "customer" }),
            json!({ "type": "text", "text": "Friday", "parameter_name": "date" }),
        ]
    );
    // The shorthand for a named body still works.
    let wire = delivered_wire(
        &app,
        "appointment_named",
        json!({ "customer": "Ana", "date": "Friday" }),
    )
    .await;
    assert_eq!(wire["components"][0]["type"], "body", "{wire}");
}

async fn url_suffixes_are_sent_and_phone_buttons_take_nothing(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    let variables = json!({
        "body": ["Ana"],
        "buttons": [{ "index": 0, "sub_type": "url", "values": ["BK-1"] }],
    });
    let wire = delivered_wire(&app, "booking_links", variables).await;
    assert_eq!(
        wire["components"],
        json!([
            { "type": "body", "parameters": [{ "type": "text", "text": "Ana" }] },
            { "type": "button", "sub_type": "url", "index": "0", "parameters": [{ "type": "text", "text": "BK-1" }] },
        ]),
        "{wire}"
    );
}

/// A refusal, with nothing stored.
async fn refused(app: &NetApp, name: &str, variables: Value, code: &str) -> Value {
    let before = app.message_count().await;
    let response = app
        .post_response("/api/v1/messages/send-template", &send_body(name, variables))
        .await;
    let problem = assert_problem(response, 422, code).await;
    assert_eq!(app.message_count().await, before, "{problem}");
    problem
}

async fn refused_at(app: &NetApp, name: &str, variables: Value, field: &str) {
    let problem = refused(app, name, variables, "validation_failed").await;
    let fields: Vec<&str> = problem["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, [field], "{problem}");
}

async fn mismatch(app: &NetApp, name: &str, variables: Value, says: &str) {
    let problem = refused(app, name, variables, "template_variables_mismatch").await;
    let detail = problem["detail"].as_str().unwrap();
    assert!(detail.contains(says), "`{detail}` should say `{says}`");
}

async fn wrong_variables_name_the_card_button_or_parameter_and_store_nothing(db: Db) {
    let app = spawn(db, |_| {}, 80).await;
    let card = |link: &str, button_value: Value| {
        json!({
            "header": { "type": "image", "link": link },
            "body": ["aloe", "$12"],
            "buttons": [{ "index": 1, "sub_type": "url", "values": [button_value] }],
        })
    };
    // Field errors, at the path the client wrote.
    let bad_card = json!({ "body": ["Ana"], "cards": [
        card("https://f.example.com/a.png", json!("aloe")),
        card("https://f.example.com/b.png", json!("pot")),
        card("https://f.example.com/c.png", json!(7)),
    ] });
    refused_at(
        &app,
        "spring_carousel",
        bad_card,
        "variables.cards[2].buttons[0].values[0]",
    )
    .await;
    let video_card =
        json!({ "cards": [{ "header": { "type": "audio", "link": "https://f.example.com/a.mp3" } }] });
    refused_at(
        &app,
        "spring_carousel",
        video_card,
        "variables.cards[0].header.type",
    )
    .await;
    let offer = json!({ "body": ["Ana", "X"], "offer": { "expires_at": "next friday" } });
    refused_at(&app, "flash_sale_offer", offer, "variables.offer.expires_at").await;
    let long_coupon = json!({ "body": ["x"], "buttons": [{ "index": 1, "sub_type": "copy_code", "values": ["A-COUPON-TOO-LONG"] }] });
    refused_at(&app, "coupon_code", long_coupon, "variables.buttons[0].values[0]").await;
    let flow_data = json!({ "buttons": [{ "index": 0, "sub_type": "flow", "flow_action_data": [1] }] });
    refused_at(
        &app,
        "survey_flow",
        flow_data,
        "variables.buttons[0].flow_action_data",
    )
    .await;
    let far = json!({ "header": { "type": "location", "latitude": 91, "longitude": 0 }, "body": ["x"] });
    refused_at(&app, "store_location", far, "variables.header.latitude").await;
    let named_header = json!({ "header": { "type": "text", "values": { "Order": "x" } }, "body": { "customer": "Ana", "date": "Fri" } });
    refused_at(&app, "order_named", named_header, "variables.header.values.Order").await;

    // Mismatches against the template, naming the card, button or parameter.
    let short_card = json!({ "body": ["Ana"], "cards": [
        card("https://f.example.com/a.png", json!("aloe")),
        { "header": { "type": "image", "link": "https://f.example.com/b.png" }, "body": ["pot"] },
    ] });
    mismatch(
        &app,
        "spring_carousel",
        short_card,
        "card 1: body expects 2 parameters, got 1",
    )
    .await;
    let no_url = json!({ "body": ["Ana"], "cards": [
        card("https://f.example.com/a.png", json!("aloe")),
        { "header": { "type": "image", "link": "https://f.example.com/b.png" }, "body": ["pot", "$3"] },
    ] });
    mismatch(
        &app,
        "spring_carousel",
        no_url,
        "card 1: button 1 (url) expects 1 parameter, got none",
    )
    .await;
    let one_card = json!({ "body": ["Ana"], "cards": [card("https://f.example.com/a.png", json!("aloe"))] });
    mismatch(
        &app,
        "spring_carousel",
        one_card,
        "the carousel expects 2 cards, got 1",
    )
    .await;
    let video = json!({ "body": ["Ana"], "cards": [
        card("https://f.example.com/a.png", json!("aloe")),
        { "header": { "type": "video", "link": "https://f.example.com/b.mp4" }, "body": ["pot", "$3"],
          "buttons": [{ "index": 1, "sub_type": "url", "values": ["pot"] }] },
    ] });
    let problem = refused(&app, "spring_carousel", video, "header_media_mismatch").await;
    assert!(
        problem["detail"].as_str().unwrap().contains("card 1"),
        "{problem}"
    );
    mismatch(&app, "flash_sale_offer", json!({ "body": ["Ana", "X"], "buttons": [
        { "index": 0, "sub_type": "copy_code", "values": ["X"] }, { "index": 1, "sub_type": "url", "values": ["x"] },
    ] }), "offer.expires_at").await;
    mismatch(
        &app,
        "coupon_code",
        json!({ "body": ["x"] }),
        "button 1 (copy_code) expects 1 parameter, got none",
    )
    .await;
    mismatch(
        &app,
        "verify_code",
        json!({ "body": ["123456"] }),
        "button 0 (url) expects 1 parameter, got none",
    )
    .await;
    mismatch(
        &app,
        "survey_flow",
        json!({ "buttons": [{ "index": 0, "sub_type": "url", "values": ["x"] }] }),
        "button 0 is a flow button, got url",
    )
    .await;
    mismatch(
        &app,
        "store_location",
        json!({ "body": ["x"] }),
        "header expects a location",
    )
    .await;
    mismatch(&app, "order_named", json!({ "header": { "type": "text", "values": ["x"] }, "body": { "customer": "Ana", "date": "Fri" } }), "header expects the parameter named order_id").await;
    mismatch(&app, "booking_links", json!({ "body": ["Ana"], "buttons": [
        { "index": 0, "sub_type": "url", "values": ["x"] }, { "index": 1, "sub_type": "url", "values": ["y"] },
    ] }), "button 1 is a static button, got url").await;
    assert!(
        app.simulator_sent().await.is_empty(),
        "nothing reached the network"
    );
}
