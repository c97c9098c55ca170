//! The full form's richer parts: location and named headers, Flow buttons, offers and carousel cards, and
//! their field errors under the path the client wrote.

use super::super::{SendOperation, draft};
use herald_domain::attachment::{MediaKind, MediaSource};
use herald_domain::message::MessageContent;
use herald_domain::template::{BodyValues, ButtonKind, HeaderValue, TemplateVariables};
use serde_json::{Value, json};

fn variables_of(variables: Value) -> TemplateVariables {
    let body = json!({ "to": "+15551234567", "template": { "name": "t", "language": "en_US" }, "variables": variables });
    match draft(SendOperation::Template, &body).unwrap().content {
        MessageContent::Template { variables, .. } => variables,
        other => panic!("not a template: {other:?}"),
    }
}

fn fields_of(variables: Value) -> Vec<String> {
    let body = json!({ "to": "+15551234567", "template": { "name": "t", "language": "en_US" }, "variables": variables });
    draft(SendOperation::Template, &body)
        .unwrap_err()
        .errors()
        .iter()
        .map(|e| e.field.clone())
        .collect()
}

#[test]
fn location_and_named_text_headers() {
    let vars = variables_of(
        json!({ "header": { "type": "location", "latitude": "1.5", "longitude": 2.5, "name": "Shop" } }),
    );
    let Some(HeaderValue::Location(location)) = vars.header else {
        panic!("{vars:?}")
    };
    assert_eq!(location.name.map(|n| n.as_str().to_owned()), Some("Shop".into()));
    let vars = variables_of(json!({ "header": { "type": "text", "values": { "order_id": "ORD-1" } } }));
    assert!(
        matches!(&vars.header, Some(HeaderValue::NamedText(pairs)) if pairs[0].0.as_str() == "order_id"),
        "{vars:?}"
    );
    assert_eq!(
        fields_of(json!({ "header": { "type": "location", "latitude": 95 } })),
        ["variables.header.latitude", "variables.header.longitude"]
    );
    assert_eq!(
        fields_of(json!({ "header": { "type": "text", "values": 3 } })),
        ["variables.header.values"]
    );
}

#[test]
fn flow_buttons_take_a_token_and_data() {
    let vars = variables_of(json!({ "buttons": [
        { "index": 0, "sub_type": "flow", "flow_token": "t-1", "flow_action_data": { "b": 2, "a": 1 } }
    ] }));
    let button = &vars.buttons[0];
    assert_eq!(button.kind, ButtonKind::Flow);
    assert_eq!(button.values[0].as_str(), "t-1");
    let data: Value = serde_json::from_str(button.flow_action_data.as_deref().unwrap()).unwrap();
    assert_eq!(data, json!({ "a": 1, "b": 2 }));
    assert_eq!(
        fields_of(json!({ "buttons": [{ "index": 0, "sub_type": "flow", "flow_action_data": "x" }] })),
        ["variables.buttons[0].flow_action_data"]
    );
    assert_eq!(
        fields_of(
            json!({ "buttons": [{ "index": 0, "sub_type": "url", "flow_token": "x", "values": ["a"] }] })
        ),
        ["variables.buttons[0].flow_token"]
    );
    assert_eq!(
        fields_of(
            json!({ "buttons": [{ "index": 0, "sub_type": "flow", "flow_token": "x", "values": ["a"] }] })
        ),
        ["variables.buttons[0].flow_token"]
    );
}

#[test]
fn coupons_are_at_most_15_characters() {
    let vars = variables_of(
        json!({ "buttons": [{ "index": 1, "sub_type": "copy_code", "values": ["SAVE20-SPRING25"] }] }),
    );
    assert_eq!(vars.buttons[0].values[0].as_str(), "SAVE20-SPRING25");
    assert_eq!(
        fields_of(
            json!({ "buttons": [{ "index": 1, "sub_type": "copy_code", "values": ["SAVE20-SPRING-25"] }] })
        ),
        ["variables.buttons[0].values[0]"]
    );
}

#[test]
fn an_offer_takes_an_rfc3339_expiration() {
    let vars = variables_of(json!({ "offer": { "expires_at": "2030-01-02T04:04:05+01:00" } }));
    assert_eq!(vars.offer.unwrap().timestamp_millis(), 1_893_553_445_000);
    assert_eq!(
        fields_of(json!({ "offer": { "expires_at": "soon" } })),
        ["variables.offer.expires_at"]
    );
    assert_eq!(fields_of(json!({ "offer": {} })), ["variables.offer.expires_at"]);
    assert_eq!(
        fields_of(json!({ "offer": { "ends": "x" } })),
        ["variables.offer.ends"]
    );
    assert_eq!(fields_of(json!({ "offer": "2030" })), ["variables.offer"]);
}

#[test]
fn cards_take_a_file_a_body_and_buttons_each() {
    let vars = variables_of(json!({ "body": ["Ana"], "cards": [
        { "header": { "type": "image", "media_id": "med_01J0000000000000000000000C" }, "body": ["a", "b"],
          "buttons": [{ "index": 0, "sub_type": "quick_reply", "values": ["p"] }] },
        { "header": { "type": "video", "link": "https://example.com/v.mp4" }, "body": { "plant": "pot" } },
    ] }));
    assert_eq!(vars.cards.len(), 2);
    assert!(matches!(vars.cards[0].header.source, MediaSource::Stored(_)));
    assert_eq!(vars.cards[1].header.kind, MediaKind::Video);
    assert!(matches!(&vars.cards[1].body, BodyValues::Named(pairs) if pairs.len() == 1));
    assert_eq!(vars.cards[0].buttons[0].kind, ButtonKind::QuickReply);

    let card = |button_value: Value| {
        json!({ "header": { "type": "image", "link": "https://example.com/a.png" }, "body": ["a"],
                "buttons": [{ "index": 1, "sub_type": "url", "values": [button_value] }] })
    };
    assert_eq!(
        fields_of(json!({ "cards": [card(json!("a")), card(json!("b")), card(json!(3))] })),
        ["variables.cards[2].buttons[0].values[0]"]
    );
    assert_eq!(
        fields_of(
            json!({ "cards": [{ "header": { "type": "document", "link": "https://example.com/a.pdf" } }] })
        ),
        ["variables.cards[0].header.type"]
    );
    assert_eq!(
        fields_of(json!({ "cards": [{ "header": { "type": "image" }, "footer": "x" }] })),
        ["variables.cards[0].footer", "variables.cards[0].header.media_id"]
    );
    assert_eq!(
        fields_of(json!({ "cards": [{ "body": ["a"] }] })),
        ["variables.cards[0].header"]
    );
    assert_eq!(fields_of(json!({ "cards": {} })), ["variables.cards"]);
    let eleven: Vec<Value> = (0..11).map(|_| card(json!("a"))).collect();
    assert_eq!(fields_of(json!({ "cards": eleven })), ["variables.cards"]);
}
