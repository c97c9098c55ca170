//! The parser on `fixtures/cloud-api/user_preferences.json` (Meta's `user_preferences` webhook, and the
//! business-scoped user ids of inbound envelopes), and on broken items.

use herald_cloudapi::parse_callback;
use herald_domain::contact::{MarketingPreference, Recipient};
use herald_domain::network::{InboundContent, NetworkEvent, ParsedCallback, UserPreference};
use serde_json::{Value, json};

const FIXTURE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../fixtures/cloud-api/user_preferences.json"
));

fn case(name: &str) -> Value {
    serde_json::from_str::<Value>(FIXTURE).unwrap()[name].clone()
}

fn parse(envelope: &Value) -> ParsedCallback {
    parse_callback(&serde_json::to_vec(envelope).unwrap()).unwrap()
}

fn preference(name: &str) -> UserPreference {
    let parsed = parse(&case(name));
    assert!(parsed.skipped.is_empty(), "{name}: {:?}", parsed.skipped);
    match parsed.events.as_slice() {
        [NetworkEvent::Preference(preference)] => preference.clone(),
        other => panic!("{name}: {other:?}"),
    }
}

#[test]
fn a_stop_names_the_business_number_the_user_and_its_time() {
    let stop = preference("stop");
    assert_eq!(stop.phone_number_id.as_str(), "106540352242922");
    assert_eq!(stop.number.as_ref().unwrap().as_str(), "+16505551234");
    assert_eq!(stop.user_id, None);
    assert_eq!(stop.preference, MarketingPreference::Stopped);
    assert_eq!(stop.occurred_at.timestamp(), 1_731_705_721);
    let resume = preference("resume");
    assert_eq!(resume.preference, MarketingPreference::Allowed);
    assert_ne!(stop.dedupe_key, resume.dedupe_key);
    assert_eq!(
        stop.dedupe_key,
        preference("stop").dedupe_key,
        "a redelivery has the same key"
    );
}

#[test]
fn the_user_id_comes_from_the_item_or_its_contact_and_may_stand_alone() {
    let paired = preference("stop_with_user_id");
    assert_eq!(paired.number.as_ref().unwrap().as_str(), "+16505551234");
    assert_eq!(
        paired.user_id.as_ref().unwrap().as_str(),
        "US.13491208655302741918"
    );
    let alone = preference("stop_user_id_only");
    assert_eq!(alone.number, None);
    assert_eq!(
        alone.user_id.as_ref().unwrap().as_str(),
        "US.13491208655302741918"
    );
    assert_eq!(alone.preference, MarketingPreference::Stopped);
}

#[test]
fn an_inbound_message_carries_its_user_id_and_one_without_a_number_is_from_the_user_id() {
    let parsed = parse(&case("text_with_user_id"));
    let [NetworkEvent::Inbound(message)] = parsed.events.as_slice() else {
        panic!("{parsed:?}")
    };
    assert_eq!(message.from, Recipient::parse("+16505551234").unwrap());
    assert_eq!(
        message.from_user_id.as_ref().unwrap().as_str(),
        "US.13491208655302741918"
    );
    assert_eq!(message.from_name.as_deref(), Some("Sheena Nelson"));
    let parsed = parse(&case("text_user_id_only"));
    assert!(parsed.skipped.is_empty(), "{:?}", parsed.skipped);
    let [NetworkEvent::Inbound(message)] = parsed.events.as_slice() else {
        panic!("{parsed:?}")
    };
    assert_eq!(message.from, Recipient::parse("US.13491208655302741918").unwrap());
    assert_eq!(
        message.from_user_id.as_ref().unwrap().as_str(),
        "US.13491208655302741918"
    );
    assert_eq!(message.message_type, "text");
    assert_eq!(
        message.content,
        InboundContent::Text {
            body: "hello".to_owned()
        }
    );
}

#[test]
fn an_inbound_message_with_neither_number_nor_user_id_is_skipped_with_a_note() {
    let mut envelope = case("text_user_id_only");
    let value = &mut envelope["entry"][0]["changes"][0]["value"];
    value["messages"][0]
        .as_object_mut()
        .unwrap()
        .remove("from_user_id");
    value["contacts"][0].as_object_mut().unwrap().remove("user_id");
    let parsed = parse(&envelope);
    assert!(parsed.events.is_empty(), "{parsed:?}");
    assert_eq!(parsed.skipped.len(), 1, "{:?}", parsed.skipped);
    assert!(
        parsed.skipped[0].contains("neither `from` nor `from_user_id`"),
        "{:?}",
        parsed.skipped
    );
}

#[test]
fn broken_items_are_skipped_one_by_one() {
    let mut envelope = case("stop");
    envelope["entry"][0]["changes"][0]["value"]["user_preferences"] = json!([
        { "wa_id": "16505551234", "category": "marketing_messages", "value": "pause", "timestamp": 1 },
        { "category": "marketing_messages", "value": "stop", "timestamp": 1 },
        { "wa_id": "16505551234", "category": "other", "value": "stop", "timestamp": 1 },
        { "wa_id": "16505551234", "user_id": "not an id", "category": "marketing_messages", "value": "stop", "timestamp": 1 },
        { "wa_id": "16505551234", "category": "marketing_messages", "value": "stop", "timestamp": 2 }
    ]);
    let parsed = parse(&envelope);
    assert_eq!(parsed.events.len(), 1, "{parsed:?}");
    assert_eq!(parsed.skipped.len(), 4, "{:?}", parsed.skipped);
    envelope["entry"][0]["changes"][0]["value"]["metadata"] = json!({});
    let parsed = parse(&envelope);
    assert!(parsed.events.is_empty());
    assert_eq!(parsed.skipped.len(), 1, "{:?}", parsed.skipped);
}
