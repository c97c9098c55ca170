//! Messages on webhook fields other than `messages` (docs/cloud-api.md §4.7): `standby` while another app
//! holds the conversation, `smb_message_echoes` from the WhatsApp Business app; fields that carry nothing
//! Herald records are noted, and unknown ones reported for a warning.

use herald_cloudapi::parse_callback;
use herald_domain::contact::Recipient;
use herald_domain::network::{
    InboundContent, InboundMessage, MAX_UNKNOWN_FIELDS, NetworkEvent, ParsedCallback, SourceField,
    WEBHOOK_FIELDS_NEEDED,
};
use serde_json::{Value, json};

fn parse(envelope: &Value) -> ParsedCallback {
    parse_callback(&serde_json::to_vec(envelope).unwrap()).unwrap()
}

fn inbound(parsed: &ParsedCallback) -> Vec<InboundMessage> {
    parsed
        .events
        .iter()
        .filter_map(|event| match event {
            NetworkEvent::Inbound(message) => Some(message.clone()),
            _ => None,
        })
        .collect()
}

fn change(field: &str, value: Value) -> Value {
    json!({
        "object": "whatsapp_business_account",
        "entry": [{ "id": "102290129340398", "changes": [{ "value": value, "field": field }] }]
    })
}

const METADATA: &str = r#"{ "display_phone_number": "15550783881", "phone_number_id": "106540352242922" }"#;

/// The `messages` field's value of Meta's text example, which `standby` carries unchanged.
fn customer_text_value() -> Value {
    json!({
        "messaging_product": "whatsapp",
        "metadata": serde_json::from_str::<Value>(METADATA).unwrap(),
        "contacts": [{ "profile": { "name": "Sheena Nelson" }, "wa_id": "16505551234" }],
        "messages": [{
            "from": "16505551234",
            "id": "wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=",
            "timestamp": "1749416383",
            "type": "text",
            "text": { "body": "Does it come in another color?" }
        }]
    })
}

#[test]
fn a_message_on_messages_is_the_customers_and_says_so() {
    let parsed = parse(&change("messages", customer_text_value()));
    let [message] = inbound(&parsed).try_into().unwrap();
    assert_eq!(message.source_field, SourceField::Messages);
    assert!(!message.echo);
}

#[test]
fn a_customer_message_on_standby_is_recorded_with_its_field() {
    let parsed = parse(&change("standby", customer_text_value()));
    assert!(parsed.skipped.is_empty(), "{:?}", parsed.skipped);
    let [message] = inbound(&parsed).try_into().unwrap();
    assert_eq!(message.source_field, SourceField::Standby);
    assert!(!message.echo);
    assert_eq!(message.from.as_str(), "+16505551234");
    assert_eq!(message.from_name.as_deref(), Some("Sheena Nelson"));
    assert_eq!(
        message.content,
        InboundContent::Text {
            body: "Does it come in another color?".into()
        }
    );
}

/// Meta's `smb_message_echoes` reference, with its example values: the business sent a text from the
/// WhatsApp Business app; `to` is the user, written with a `+`.
#[test]
fn an_smb_message_echo_is_the_business_side_naming_the_user_it_went_to() {
    let envelope = change(
        "smb_message_echoes",
        json!({
            "messaging_product": "whatsapp",
            "metadata": serde_json::from_str::<Value>(METADATA).unwrap(),
            "message_echoes": [{
                "from": "15550783881",
                "to": "+16505551234",
                "id": "wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQUFERjg0NDEzNDdFODU3MUMxMAA=",
                "timestamp": "1739321024",
                "type": "text",
                "text": { "body": "Here's the info you requested! https://www.meta.com/quest/quest-3/" }
            }]
        }),
    );
    let parsed = parse(&envelope);
    assert!(parsed.skipped.is_empty(), "{:?}", parsed.skipped);
    let [echo] = inbound(&parsed).try_into().unwrap();
    assert_eq!(echo.source_field, SourceField::SmbMessageEchoes);
    assert!(echo.echo);
    assert!(matches!(&echo.from, Recipient::Number(number) if number.as_str() == "+16505551234"));
    assert_eq!(echo.phone_number_id.as_str(), "106540352242922");
    assert_eq!(echo.message_type, "text");
}

#[test]
fn an_echo_on_standby_is_the_other_apps_reply() {
    let mut value = customer_text_value();
    let message = value["messages"][0].clone();
    value.as_object_mut().unwrap().remove("messages");
    let mut echo = message;
    echo["to"] = echo["from"].clone();
    echo["from"] = json!("15550783881");
    echo["id"] = json!("wamid.AGENT_REPLY");
    value["message_echoes"] = json!([echo]);
    let parsed = parse(&change("standby", value));
    let [reply] = inbound(&parsed).try_into().unwrap();
    assert_eq!(reply.source_field, SourceField::Standby);
    assert!(reply.echo);
    assert_eq!(reply.from.as_str(), "+16505551234");
    assert_eq!(reply.network_message_id, "wamid.AGENT_REPLY");
}

#[test]
fn an_echo_without_its_user_is_skipped_alone() {
    let envelope = change(
        "smb_message_echoes",
        json!({
            "metadata": serde_json::from_str::<Value>(METADATA).unwrap(),
            "message_echoes": [
                { "from": "15550783881", "id": "wamid.NOUSER", "timestamp": "1739321024", "type": "text", "text": { "body": "x" } },
                { "from": "15550783881", "to": "16505551234", "id": "wamid.OK", "timestamp": "1739321024", "type": "text", "text": { "body": "y" } }
            ]
        }),
    );
    let parsed = parse(&envelope);
    assert_eq!(inbound(&parsed).len(), 1);
    assert_eq!(parsed.skipped.len(), 1);
    assert!(
        parsed.skipped[0].contains("message_echoes[0]"),
        "{:?}",
        parsed.skipped
    );
}

#[test]
fn documented_fields_herald_does_not_record_are_noted_but_not_unknown() {
    let envelope = change("messaging_handovers", json!({ "metadata": {} }));
    let parsed = parse(&envelope);
    assert!(parsed.events.is_empty());
    assert_eq!(parsed.skipped.len(), 1);
    assert!(parsed.unknown_fields.is_empty());
    let history = parse(&change("history", json!({ "history": [] })));
    assert!(history.unknown_fields.is_empty());
}

#[test]
fn unknown_fields_are_reported_once_each_and_bounded() {
    let changes: Vec<Value> = (0..MAX_UNKNOWN_FIELDS + 5)
        .flat_map(|i| {
            let field = format!("brand_new_field_{i}");
            [
                json!({ "field": field, "value": {} }),
                json!({ "field": field, "value": {} }),
            ]
        })
        .collect();
    let envelope =
        json!({ "object": "whatsapp_business_account", "entry": [{ "id": "1", "changes": changes }] });
    let parsed = parse(&envelope);
    assert_eq!(parsed.unknown_fields.len(), MAX_UNKNOWN_FIELDS);
    assert_eq!(parsed.unknown_fields[0], "brand_new_field_0");
    assert_eq!(parsed.skipped.len(), (MAX_UNKNOWN_FIELDS + 5) * 2);
    let long = parse(&change(&"x".repeat(500), json!({})));
    assert_eq!(long.unknown_fields[0].len(), 64);
}

/// Every field the parser records something from is among the fields the subscription check asks for.
#[test]
fn every_field_the_parser_reads_is_one_the_subscription_check_needs() {
    for field in WEBHOOK_FIELDS_NEEDED {
        let parsed = parse(&change(field, json!({})));
        assert!(parsed.unknown_fields.is_empty(), "{field}");
        assert!(
            !parsed.skipped.iter().any(|note| note.contains("is not handled")),
            "{field}: {:?}",
            parsed.skipped
        );
    }
    for field in ["messaging_handovers", "history", "smb_app_state_sync"] {
        assert!(!WEBHOOK_FIELDS_NEEDED.contains(&field));
    }
}
