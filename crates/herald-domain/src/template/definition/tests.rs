#![allow(clippy::unwrap_used, reason = "test code")]

use super::*;
use crate::template::BodySpec;
use serde_json::{Value, json};

fn node(value: &Value) -> Node {
    match value {
        Value::Null => Node::Null,
        Value::Bool(b) => Node::Bool(*b),
        Value::Number(n) => Node::Number(n.to_string()),
        Value::String(s) => Node::Text(s.clone()),
        Value::Array(items) => Node::List(items.iter().map(node).collect()),
        Value::Object(fields) => Node::Object(fields.iter().map(|(k, v)| (k.clone(), node(v))).collect()),
    }
}

fn parse(value: Value) -> Result<TemplateDefinition, Vec<(String, String)>> {
    TemplateDefinition::parse(&node(&value)).map_err(|errors| {
        errors
            .into_errors()
            .into_iter()
            .map(|e| (e.field, e.message))
            .collect()
    })
}

/// The fields in error, to compare without the messages' wording.
fn fields(value: Value) -> Vec<String> {
    parse(value)
        .unwrap_err()
        .into_iter()
        .map(|(field, _)| field)
        .collect()
}

fn utility(components: Value) -> Value {
    json!({ "name": "order_update", "language": "en_US", "category": "UTILITY", "components": components })
}

#[test]
fn a_full_utility_template_parses_and_gives_its_send_structure() {
    let definition = parse(utility(json!([
        { "type": "HEADER", "format": "DOCUMENT", "example": { "media_id": "med_01HZX3N5Q2V8K4T6W9Y1B3D5F7" } },
        { "type": "BODY", "text": "Hi {{1}}, order {{2}} ships today.", "example": { "body_text": [["Asha", "A-1"]] } },
        { "type": "FOOTER", "text": "Reply STOP to opt out" },
        { "type": "BUTTONS", "buttons": [
            { "type": "QUICK_REPLY", "text": "Thanks" },
            { "type": "URL", "text": "Track", "url": "https://example.com/t/{{1}}", "example": ["https://example.com/t/A-1"] },
            { "type": "PHONE_NUMBER", "text": "Call us", "phone_number": "+15550001111" }
        ] }
    ])))
    .unwrap();
    assert_eq!(definition.category, Category::Utility);
    assert_eq!(definition.components.len(), 4);
    let structure = definition.structure();
    assert_eq!(structure.header, HeaderSpec::Media(MediaKind::Document));
    assert_eq!(structure.body, BodySpec::Positional(2));
    let kinds: Vec<(ButtonKind, u8)> = structure.buttons.iter().map(|b| (b.kind, b.parameters)).collect();
    assert_eq!(
        kinds,
        vec![
            (ButtonKind::QuickReply, 0),
            (ButtonKind::Url, 1),
            (ButtonKind::Static, 0)
        ]
    );
}

#[test]
fn names_languages_and_categories_follow_the_networks_rules() {
    let body = json!([{ "type": "BODY", "text": "Hello there" }]);
    assert_eq!(
        fields(
            json!({ "name": "Order-Update", "language": "english", "category": "PROMO", "components": body })
        ),
        vec!["name", "language", "category"]
    );
    assert_eq!(
        fields(json!({ "name": "a", "language": "en", "category": "UTILITY" })),
        vec!["components"]
    );
    assert_eq!(fields(json!([])), vec!["body"]);
}

#[test]
fn a_body_is_required_once_and_limited_to_1024_characters() {
    assert_eq!(
        fields(utility(json!([{ "type": "FOOTER", "text": "x" }]))),
        vec!["components"]
    );
    let long = "a".repeat(BODY_MAX + 1);
    assert_eq!(
        fields(utility(json!([{ "type": "BODY", "text": long }]))),
        vec!["components[0].text"]
    );
    assert_eq!(
        fields(utility(
            json!([{ "type": "BODY", "text": "a" }, { "type": "body", "text": "b" }])
        )),
        vec!["components[1].type"]
    );
}

#[test]
fn positional_variables_run_from_one_without_gaps_and_each_has_an_example() {
    let with =
        |text: &str, example: Value| utility(json!([{ "type": "BODY", "text": text, "example": example }]));
    assert!(parse(with("Hi {{1}} and {{2}}.", json!({ "body_text": [["a", "b"]] }))).is_ok());
    assert_eq!(
        fields(with("Hi {{1}} and {{3}}.", json!({ "body_text": [["a", "b"]] }))),
        vec!["components[0].text"]
    );
    assert_eq!(
        fields(with("Hi {{1}} and {{2}}.", json!({ "body_text": [["a"]] }))),
        vec!["components[0].example.body_text"]
    );
    assert_eq!(
        fields(utility(json!([{ "type": "BODY", "text": "Hi {{1}} there" }]))),
        vec!["components[0].example"]
    );
    assert_eq!(
        fields(with("{{1}} is here.", json!({ "body_text": [["a"]] }))),
        vec!["components[0].text"],
        "a body may not start with a variable"
    );
    assert_eq!(
        fields(with("Hi {{name}} there", json!({ "body_text": [["a"]] }))),
        vec!["components[0].text"],
        "a named variable needs parameter_format NAMED"
    );
}

#[test]
fn named_variables_need_one_example_each() {
    let named = |examples: Value| {
        json!({ "name": "n", "language": "en", "category": "MARKETING", "parameter_format": "NAMED",
                "components": [{ "type": "BODY", "text": "Hi {{first_name}}, see {{offer}} today.",
                                 "example": { "body_text_named_params": examples } }] })
    };
    let ok = parse(named(json!([
        { "param_name": "first_name", "example": "Asha" }, { "param_name": "offer", "example": "20% off" }
    ])))
    .unwrap();
    let structure = ok.structure();
    assert_eq!(
        structure.body,
        BodySpec::Named(vec![
            ParamName::parse("first_name").unwrap(),
            ParamName::parse("offer").unwrap()
        ])
    );
    let (field, message) = parse(named(json!([{ "param_name": "first_name", "example": "Asha" }])))
        .unwrap_err()
        .remove(0);
    assert_eq!(field, "components[0].example.body_text_named_params");
    assert!(message.contains("missing [offer]"), "{message}");
}

#[test]
fn headers_text_one_variable_media_with_a_sample_location_bare() {
    let header = |h: Value| utility(json!([h, { "type": "BODY", "text": "Body text" }]));
    assert!(parse(header(json!({ "type": "HEADER", "format": "TEXT", "text": "Order {{1}}", "example": { "header_text": ["A-1"] } }))).is_ok());
    assert_eq!(
        fields(header(
            json!({ "type": "HEADER", "format": "TEXT", "text": "{{1}} and {{2}}" })
        )),
        vec!["components[0].text"]
    );
    assert_eq!(
        fields(header(json!({ "type": "HEADER", "format": "IMAGE" }))),
        vec!["components[0].example"]
    );
    assert!(
        parse(header(
            json!({ "type": "HEADER", "format": "IMAGE", "example": { "header_handle": ["4::aW1n"] } })
        ))
        .is_ok()
    );
    assert_eq!(
        fields(header(
            json!({ "type": "HEADER", "format": "LOCATION", "text": "x" })
        )),
        vec!["components[0].text"]
    );
    assert_eq!(
        fields(header(json!({ "type": "HEADER", "format": "GIF" }))),
        vec!["components[0].format"]
    );
    let location = parse(header(json!({ "type": "HEADER", "format": "LOCATION" }))).unwrap();
    assert_eq!(location.structure().header, HeaderSpec::Location);
}

#[test]
fn button_counts_grouping_and_fields() {
    let with = |buttons: Value| {
        utility(json!([{ "type": "BODY", "text": "Body" }, { "type": "BUTTONS", "buttons": buttons }]))
    };
    let quick = |t: &str| json!({ "type": "QUICK_REPLY", "text": t });
    let url = |t: &str| json!({ "type": "URL", "text": t, "url": "https://example.com" });
    assert_eq!(
        fields(with(json!([url("a"), url("b"), url("c")]))),
        vec!["components[1].buttons"],
        "three URL buttons"
    );
    assert_eq!(
        fields(with(json!([quick("a"), url("b"), quick("c")]))),
        vec!["components[1].buttons"],
        "quick replies split around a URL button"
    );
    assert!(parse(with(json!([quick("a"), quick("b"), url("c")]))).is_ok());
    assert_eq!(
        fields(with(json!([quick("same"), quick("same")]))),
        vec!["components[1].buttons"]
    );
    let eleven: Vec<Value> = (0..11).map(|i| quick(&format!("q{i}"))).collect();
    assert_eq!(fields(with(Value::Array(eleven))), vec!["components[1].buttons"]);
    assert_eq!(
        fields(with(
            json!([{ "type": "QUICK_REPLY", "text": "x".repeat(BUTTON_TEXT_MAX + 1) }])
        )),
        vec!["components[1].buttons[0].text"]
    );
    assert_eq!(
        fields(with(
            json!([{ "type": "URL", "text": "Go", "url": "https://e.com/{{1}}/x" }])
        )),
        vec!["components[1].buttons[0].url"]
    );
    assert_eq!(
        fields(with(
            json!([{ "type": "URL", "text": "Go", "url": "https://e.com/{{1}}" }])
        )),
        vec!["components[1].buttons[0].example"]
    );
    assert_eq!(
        fields(with(
            json!([{ "type": "PHONE_NUMBER", "text": "Call", "phone_number": "555-1234" }])
        )),
        vec!["components[1].buttons[0].phone_number"]
    );
    assert_eq!(
        fields(with(
            json!([{ "type": "COPY_CODE", "example": "X".repeat(COPY_CODE_MAX + 1) }])
        )),
        vec!["components[1].buttons[0].example"]
    );
    assert_eq!(
        fields(with(
            json!([{ "type": "FLOW", "text": "Book", "flow_id": "123", "flow_name": "book" }])
        )),
        vec!["components[1].buttons[0]"]
    );
    assert_eq!(
        fields(with(json!([{ "type": "OTP", "otp_type": "COPY_CODE" }]))),
        vec!["components[1].buttons[0].type"],
        "OTP buttons belong to authentication templates"
    );
    assert_eq!(
        fields(with(
            json!([{ "type": "QUICK_REPLY", "text": "a", "payload": "p" }])
        )),
        vec!["components[1].buttons[0].payload"]
    );
}

fn authentication(components: Value) -> Value {
    json!({ "name": "login_code", "language": "en_US", "category": "AUTHENTICATION", "components": components })
}

#[test]
fn authentication_templates_hold_a_body_flag_an_expiry_and_one_otp_button() {
    let one_tap = json!({ "type": "OTP", "otp_type": "ONE_TAP", "text": "Copy code", "autofill_text": "Autofill",
                          "supported_apps": [{ "package_name": "com.example.app", "signature_hash": "K8a/AINcGX7" }] });
    let definition = parse(authentication(json!([
        { "type": "BODY", "add_security_recommendation": true },
        { "type": "FOOTER", "code_expiration_minutes": 10 },
        { "type": "BUTTONS", "buttons": [one_tap] }
    ])))
    .unwrap();
    let structure = definition.structure();
    assert_eq!(structure.body, BodySpec::Positional(1), "the code fills the body");
    assert_eq!(structure.buttons[0].parameters, 1, "and the button");

    assert_eq!(
        fields(authentication(json!([
            { "type": "BODY", "text": "Your code" },
            { "type": "BUTTONS", "buttons": [{ "type": "OTP", "otp_type": "COPY_CODE" }] }
        ]))),
        vec!["components[0].text"]
    );
    assert_eq!(
        fields(authentication(json!([
            { "type": "BODY" }, { "type": "FOOTER", "code_expiration_minutes": 91 },
            { "type": "BUTTONS", "buttons": [{ "type": "OTP", "otp_type": "COPY_CODE" }] }
        ]))),
        vec!["components[1].code_expiration_minutes"]
    );
    assert_eq!(
        fields(authentication(json!([
            { "type": "BODY" },
            { "type": "BUTTONS", "buttons": [{ "type": "OTP", "otp_type": "ZERO_TAP",
              "supported_apps": [{ "package_name": "com.example.app", "signature_hash": "K8a/AINcGX7" }] }] }
        ]))),
        vec!["components[1].buttons[0].zero_tap_terms_accepted"]
    );
    assert_eq!(
        fields(authentication(json!([
            { "type": "BODY" },
            { "type": "BUTTONS", "buttons": [{ "type": "OTP", "otp_type": "ONE_TAP",
              "supported_apps": [{ "package_name": "app", "signature_hash": "short" }] }] }
        ]))),
        vec![
            "components[1].buttons[0].supported_apps[0].package_name",
            "components[1].buttons[0].supported_apps[0].signature_hash"
        ]
    );
    assert_eq!(
        fields(authentication(json!([{ "type": "BODY" }]))),
        vec!["components"]
    );
}

fn card(format: &str, buttons: Value) -> Value {
    json!({ "components": [
        { "type": "HEADER", "format": format, "example": { "header_handle": ["4::aGFuZGxl"] } },
        { "type": "BODY", "text": "Card {{1}} text", "example": { "body_text": [["one"]] } },
        { "type": "BUTTONS", "buttons": buttons }
    ] })
}

#[test]
fn carousels_hold_two_to_ten_cards_of_one_shape() {
    let buttons = json!([{ "type": "QUICK_REPLY", "text": "More" }, { "type": "URL", "text": "Buy", "url": "https://e.com" }]);
    let carousel = |cards: Vec<Value>| {
        json!({ "name": "spring", "language": "en", "category": "MARKETING", "components": [
            { "type": "BODY", "text": "Our spring range" },
            { "type": "CAROUSEL", "cards": cards }
        ] })
    };
    let ok = parse(carousel(vec![
        card("IMAGE", buttons.clone()),
        card("IMAGE", buttons.clone()),
    ]))
    .unwrap();
    let Some(Component::Carousel(cards)) = ok.components.get(1) else {
        panic!("no carousel: {ok:?}")
    };
    assert_eq!(cards.len(), 2);
    assert_eq!(
        fields(carousel(vec![card("IMAGE", buttons.clone())])),
        vec!["components[1].cards"]
    );
    assert_eq!(
        fields(carousel(vec![
            card("IMAGE", buttons.clone()),
            card("VIDEO", buttons.clone())
        ])),
        vec!["components[1].cards[1]"]
    );
    assert_eq!(
        fields(carousel(vec![
            card("DOCUMENT", buttons.clone()),
            card("DOCUMENT", buttons.clone())
        ])),
        vec![
            "components[1].cards[0].components[0].format",
            "components[1].cards[1].components[0].format"
        ]
    );
    let copy = json!([{ "type": "COPY_CODE", "example": "SPRING" }]);
    assert_eq!(
        fields(carousel(vec![card("IMAGE", copy.clone()), card("IMAGE", copy)])),
        vec![
            "components[1].cards[0].components[2].buttons[0].type",
            "components[1].cards[1].components[2].buttons[0].type"
        ]
    );
}

#[test]
fn limited_time_offers_are_marketing_without_footer_and_expire_with_a_code() {
    let offer = |category: &str, has_expiration: bool, extra: Vec<Value>| {
        let mut components = vec![
            json!({ "type": "LIMITED_TIME_OFFER", "limited_time_offer": { "text": "Ends soon", "has_expiration": has_expiration } }),
            json!({ "type": "BODY", "text": "Half price on {{1}} today", "example": { "body_text": [["shoes"]] } }),
        ];
        components.extend(extra);
        json!({ "name": "sale", "language": "en", "category": category, "components": components })
    };
    let code = json!({ "type": "BUTTONS", "buttons": [{ "type": "COPY_CODE", "example": "HALF" }] });
    assert!(parse(offer("MARKETING", true, vec![code.clone()])).is_ok());
    assert_eq!(fields(offer("MARKETING", true, vec![])), vec!["components"]);
    assert_eq!(fields(offer("UTILITY", false, vec![])), vec!["components"]);
    assert_eq!(
        fields(offer(
            "MARKETING",
            false,
            vec![json!({ "type": "FOOTER", "text": "f" })]
        )),
        vec!["components"]
    );
}
