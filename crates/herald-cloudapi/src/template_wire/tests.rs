#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

use super::*;
use herald_domain::ids::MediaId;
use herald_domain::template::definition::Node;

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

fn definition(value: &Value) -> TemplateDefinition {
    TemplateDefinition::parse(&node(value)).expect("a valid definition")
}

/// A definition already written the way Meta writes it goes out byte for byte as it came in.
fn round_trips(value: Value) {
    let sent = submit_body(&definition(&value), &SampleHandles::new()).unwrap();
    assert_eq!(sent, value);
}

#[test]
fn every_component_and_button_type_goes_out_in_metas_shape() {
    round_trips(json!({
        "name": "order_update", "language": "en_US", "category": "UTILITY",
        "components": [
            { "type": "HEADER", "format": "TEXT", "text": "Order {{1}}", "example": { "header_text": ["A-1"] } },
            { "type": "BODY", "text": "Hi {{1}}, it ships {{2}}.", "example": { "body_text": [["Asha", "today"]] } },
            { "type": "FOOTER", "text": "Reply STOP to opt out" },
            { "type": "BUTTONS", "buttons": [
                { "type": "QUICK_REPLY", "text": "Thanks" },
                { "type": "URL", "text": "Track", "url": "https://example.com/t/{{1}}", "example": ["https://example.com/t/A-1"] },
                { "type": "PHONE_NUMBER", "text": "Call us", "phone_number": "+15550001111" },
                { "type": "COPY_CODE", "example": "SAVE10" },
                { "type": "FLOW", "text": "Book", "flow_id": "123456", "flow_action": "navigate", "navigate_screen": "START" },
                { "type": "VOICE_CALL", "text": "Call on WhatsApp" }
            ] }
        ]
    }));
}

#[test]
fn named_parameters_and_media_headers_by_handle() {
    round_trips(json!({
        "name": "welcome", "language": "en", "category": "MARKETING", "parameter_format": "NAMED",
        "allow_category_change": true,
        "components": [
            { "type": "HEADER", "format": "IMAGE", "example": { "header_handle": ["4::aW1hZ2U="] } },
            { "type": "BODY", "text": "Hello {{first_name}}, welcome.",
              "example": { "body_text_named_params": [{ "param_name": "first_name", "example": "Asha" }] } }
        ]
    }));
}

#[test]
fn authentication_carousel_and_offer_templates() {
    round_trips(json!({
        "name": "login_code", "language": "en_US", "category": "AUTHENTICATION",
        "components": [
            { "type": "BODY", "add_security_recommendation": true },
            { "type": "FOOTER", "code_expiration_minutes": 5 },
            { "type": "BUTTONS", "buttons": [
                { "type": "OTP", "otp_type": "ZERO_TAP", "text": "Copy code",
                  "supported_apps": [{ "package_name": "com.example.app", "signature_hash": "K8a/AINcGX7" }],
                  "zero_tap_terms_accepted": true }
            ] }
        ]
    }));
    let card = json!({ "components": [
        { "type": "HEADER", "format": "VIDEO", "example": { "header_handle": ["4::dmlkZW8="] } },
        { "type": "BODY", "text": "Card {{1}} here", "example": { "body_text": [["one"]] } },
        { "type": "BUTTONS", "buttons": [{ "type": "QUICK_REPLY", "text": "More" }] }
    ] });
    round_trips(json!({
        "name": "spring", "language": "en", "category": "MARKETING",
        "components": [
            { "type": "BODY", "text": "Our spring range" },
            { "type": "CAROUSEL", "cards": [card.clone(), card] }
        ]
    }));
    round_trips(json!({
        "name": "sale", "language": "en", "category": "MARKETING",
        "components": [
            { "type": "LIMITED_TIME_OFFER", "limited_time_offer": { "text": "Ends soon", "has_expiration": true } },
            { "type": "BODY", "text": "Half price on {{1}} now", "example": { "body_text": [["shoes"]] } },
            { "type": "BUTTONS", "buttons": [{ "type": "COPY_CODE", "example": "HALF" }] }
        ]
    }));
}

#[test]
fn a_sample_stored_in_herald_goes_by_the_handle_of_its_upload() {
    let media = "med_01HZX3N5Q2V8K4T6W9Y1B3D5F7";
    let value = json!({
        "name": "invoice", "language": "en", "category": "UTILITY",
        "components": [
            { "type": "HEADER", "format": "DOCUMENT", "example": { "media_id": media } },
            { "type": "BODY", "text": "Your invoice" }
        ]
    });
    let parsed = definition(&value);
    let missing = submit_body(&parsed, &SampleHandles::new()).unwrap_err();
    assert!(
        matches!(missing, NetworkError::Permanent(ref e) if e.code == "media_unavailable"),
        "{missing:?}"
    );
    let handles = SampleHandles::from([(MediaId::parse(media).unwrap(), "4::ZG9j".to_owned())]);
    let sent = submit_body(&parsed, &handles).unwrap();
    assert_eq!(
        sent["components"][0],
        json!({ "type": "HEADER", "format": "DOCUMENT", "example": { "header_handle": ["4::ZG9j"] } })
    );
    let edit = edit_body(&parsed, &handles).unwrap();
    assert_eq!(edit["category"], "UTILITY");
    assert_eq!(edit["components"], sent["components"]);
    assert!(edit.get("name").is_none(), "an edit cannot rename: {edit}");
}
