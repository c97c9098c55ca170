//! The callback parser against pywa's real webhook envelopes, and against broken items.

use herald_cloudapi::{ParseError, parse_callback};
use herald_domain::network::{
    InboundContent, InboundMessage, NetworkEvent, NetworkStatusReport, ParsedCallback, ReportedStatus,
};
use serde_json::{Value, json};

macro_rules! fixture {
    ($file:literal) => {
        (
            $file,
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../fixtures/cloud-api/",
                $file
            )),
        )
    };
}

const FIXTURES: [(&str, &str); 5] = [
    fixture!("message.json"),
    fixture!("message_status.json"),
    fixture!("callback_button.json"),
    fixture!("callback_selection.json"),
    fixture!("system.json"),
];

/// Cases whose envelope carries a placeholder instead of a numeric phone_number_id, so nothing can be routed.
const UNROUTABLE: [&str; 1] = ["message_status.json/group"];

pub(crate) fn case(file: &str, name: &str) -> Value {
    let (_, text) = FIXTURES.iter().find(|(f, _)| *f == file).unwrap();
    let cases: Value = serde_json::from_str(text).unwrap();
    cases[name].clone()
}

fn parse(envelope: &Value) -> ParsedCallback {
    parse_callback(&serde_json::to_vec(envelope).unwrap()).unwrap()
}

pub(crate) fn only_inbound(file: &str, name: &str) -> InboundMessage {
    let parsed = parse(&case(file, name));
    match parsed.events.as_slice() {
        [NetworkEvent::Inbound(message)] => message.clone(),
        other => panic!("{file}/{name}: expected one inbound message, got {other:?}"),
    }
}

fn only_status(name: &str) -> NetworkStatusReport {
    let parsed = parse(&case("message_status.json", name));
    match parsed.events.as_slice() {
        [NetworkEvent::Status(report)] => report.clone(),
        other => panic!("{name}: expected one status, got {other:?}"),
    }
}

/// Items (statuses and messages) an envelope carries.
fn item_count(envelope: &Value) -> usize {
    let mut count = 0;
    for entry in envelope["entry"].as_array().unwrap() {
        for change in entry["changes"].as_array().unwrap() {
            for key in ["statuses", "messages"] {
                count += change["value"][key].as_array().map_or(0, Vec::len);
            }
        }
    }
    count
}

#[test]
fn every_case_of_every_fixture_parses() {
    let mut cases = 0;
    for (file, text) in FIXTURES {
        let all: serde_json::Map<String, Value> = serde_json::from_str(text).unwrap();
        assert!(!all.is_empty(), "{file} has cases");
        for (name, envelope) in all {
            cases += 1;
            let label = format!("{file}/{name}");
            // The exact bytes, as the network would post them.
            let raw = serde_json::to_vec(&envelope).unwrap();
            let parsed = parse_callback(&raw).unwrap_or_else(|e| panic!("{label}: {e}"));
            let items = item_count(&envelope);
            assert!(items > 0, "{label} carries items");
            if UNROUTABLE.contains(&label.as_str()) {
                assert!(parsed.events.is_empty(), "{label}");
                assert_eq!(parsed.skipped.len(), items, "{label}: {:?}", parsed.skipped);
                assert!(
                    parsed.skipped[0].contains("phone_number_id"),
                    "{:?}",
                    parsed.skipped
                );
                continue;
            }
            assert_eq!(
                parsed.events.len(),
                items,
                "{label}: every item parsed; skipped {:?}",
                parsed.skipped
            );
            for event in &parsed.events {
                let routed = match event {
                    NetworkEvent::Status(s) => &s.phone_number_id,
                    NetworkEvent::Inbound(m) => &m.phone_number_id,
                    NetworkEvent::Notice(n) => panic!("{label}: a message field gave a notice {n:?}"),
                    NetworkEvent::Preference(p) => panic!("{label}: a message field gave a preference {p:?}"),
                };
                assert_eq!(routed.as_str(), "1122334455667", "{label}");
            }
        }
    }
    assert_eq!(cases, 37, "all cases were exercised");
}

#[test]
fn text_messages_keep_body_sender_and_name() {
    let text = only_inbound("message.json", "text");
    assert_eq!(text.message_type, "text");
    assert_eq!(text.from.as_str(), "+972987654321");
    assert_eq!(text.from_name.as_deref(), Some("Test Name"));
    assert_eq!(text.network_message_id, "wamid.xyzxyz");
    assert_eq!(text.received_at.timestamp(), 1_697_043_223);
    assert_eq!(text.context_message_id, None);
    let InboundContent::Text { body } = &text.content else {
        panic!("expected text, got {:?}", text.content)
    };
    let expected =
        case("message.json", "text")["entry"][0]["changes"][0]["value"]["messages"][0]["text"]["body"]
            .as_str()
            .unwrap()
            .to_owned();
    assert_eq!(body, &expected);

    let reply = only_inbound("message.json", "reply");
    assert_eq!(reply.context_message_id.as_deref(), Some("wamid.xyzxyz=="));
    // A forward has a context without an id.
    assert_eq!(only_inbound("message.json", "forwarded").context_message_id, None);
}

#[test]
fn media_messages_keep_id_mime_and_more() {
    let image = only_inbound("message.json", "image");
    assert_eq!(
        image.content,
        InboundContent::Media {
            kind: "image".into(),
            network_media_id: "65463453".into(),
            mime_type: Some("image/jpeg".into()),
            sha256: Some("4654+8g=".into()),
            caption: None,
            filename: None,
            voice: None,
            animated: None,
        }
    );
    let document = only_inbound("message.json", "document");
    let original =
        &case("message.json", "document")["entry"][0]["changes"][0]["value"]["messages"][0]["document"];
    match &document.content {
        InboundContent::Media {
            kind,
            network_media_id,
            filename,
            mime_type,
            ..
        } => {
            assert_eq!(kind, "document");
            assert_eq!(network_media_id, original["id"].as_str().unwrap());
            assert_eq!(filename.as_deref(), original["filename"].as_str());
            assert_eq!(mime_type.as_deref(), original["mime_type"].as_str());
        }
        other => panic!("expected media, got {other:?}"),
    }
    for (name, kind) in [
        ("video", "video"),
        ("audio", "audio"),
        ("voice", "audio"),
        ("static_sticker", "sticker"),
        ("animated_sticker", "sticker"),
        ("media_with_url", "image"),
    ] {
        let message = only_inbound("message.json", name);
        assert!(
            matches!(&message.content, InboundContent::Media { kind: k, .. } if k == kind),
            "{name}: {:?}",
            message.content
        );
    }
}

#[test]
fn unsupported_kinds_are_other_with_raw_kept() {
    let cases = [
        ("message.json", "unsupported", "unsupported"),
        ("message.json", "unsupported_with_type", "unsupported"),
        ("message.json", "interactive_message_with_err", "interactive"),
    ];
    for (file, name, kind) in cases {
        let message = only_inbound(file, name);
        assert_eq!(message.message_type, kind, "{file}/{name}");
        assert_eq!(message.content, InboundContent::Other, "{file}/{name}");
        let raw: Value = serde_json::from_str(&message.raw).unwrap();
        let original = &case(file, name)["entry"][0]["changes"][0]["value"]["messages"][0];
        assert_eq!(
            &raw, original,
            "{file}/{name}: raw is the network's message object"
        );
    }
    let unsupported = only_inbound("message.json", "unsupported");
    assert!(unsupported.raw.contains("131051"));
}

#[test]
fn payload_level_errors_are_noted_without_losing_the_message() {
    let parsed = parse(&case("message.json", "interactive_message_with_err"));
    assert_eq!(parsed.events.len(), 1);
    assert_eq!(parsed.skipped.len(), 1);
    assert!(parsed.skipped[0].contains("131000"), "{:?}", parsed.skipped);
}

#[test]
fn statuses_carry_time_recipient_and_callback_data() {
    for (name, status) in [
        ("sent", ReportedStatus::Sent),
        ("delivered", ReportedStatus::Delivered),
        ("read", ReportedStatus::Read),
        ("played", ReportedStatus::Played),
        ("failed", ReportedStatus::Failed),
    ] {
        let report = only_status(name);
        assert_eq!(report.status, status, "{name}");
        assert_eq!(report.network_message_id, "wamid.xyzxyz");
        assert_eq!(report.recipient.as_deref(), Some("972987654321"));
        assert_eq!(report.error.is_some(), name == "failed", "{name}");
    }
    let tracked = only_status("with_tracker");
    assert_eq!(tracked.callback_data.as_deref(), Some("some data"));
    assert_eq!(tracked.occurred_at.timestamp(), 1_698_266_945);
    assert_eq!(only_status("sent").callback_data, None);
}

/// A status naming the recipient's business-scoped user id keeps it; a malformed one is left out, the
/// status still applies.
#[test]
fn statuses_carry_the_recipient_user_id_when_named() {
    let envelope = |user_id: &str| {
        json!({ "object": "whatsapp_business_account", "entry": [ { "id": "1", "changes": [ {
            "field": "messages", "value": {
                "messaging_product": "whatsapp",
                "metadata": { "display_phone_number": "15550783881", "phone_number_id": "106540352242922" },
                "statuses": [ { "id": "wamid.U1", "status": "delivered", "timestamp": "1750263774",
                                "recipient_id": "16505551234", "recipient_user_id": user_id } ]
            } } ] } ] })
    };
    let status = |body: &Value| match parse(body).events.as_slice() {
        [NetworkEvent::Status(report)] => report.clone(),
        other => panic!("expected one status, got {other:?}"),
    };
    let named = status(&envelope("US.13491208655302741918"));
    assert_eq!(named.recipient.as_deref(), Some("16505551234"));
    assert_eq!(
        named.recipient_user_id.as_ref().map(|id| id.as_str()),
        Some("US.13491208655302741918")
    );
    let malformed = status(&envelope("not an id"));
    assert_eq!(malformed.recipient_user_id, None);
    assert_eq!(malformed.status, ReportedStatus::Delivered);
    assert_eq!(only_status("sent").recipient_user_id, None);
}

#[test]
fn a_failed_status_maps_its_error_through_the_table() {
    let failed = only_status("failed");
    let error = failed.error.unwrap();
    assert_eq!(error.code, "recipient_in_experiment");
    assert_eq!(error.network_code, Some(130472));
    assert_eq!(
        error.detail,
        "Failed to send message because this user's phone number is part of an experiment"
    );
    assert_eq!(failed.occurred_at.timestamp(), 1_689_380_458);
}

#[test]
fn a_broken_item_never_fails_the_others() {
    let body = json!({
        "object": "whatsapp_business_account",
        "entry": [
            { "id": "1", "changes": [
                { "field": "messages", "value": {
                    "messaging_product": "whatsapp",
                    "metadata": { "display_phone_number": "15550783881", "phone_number_id": "106540352242922" },
                    "contacts": [ { "profile": { "name": "Sheena" }, "wa_id": "16505551234" } ],
                    "messages": [
                        { "from": "16505551234", "id": "wamid.A", "timestamp": "1749416383",
                          "type": "text", "text": { "body": "first" } },
                        { "from": "not-a-number", "id": "wamid.B", "timestamp": "1749416384",
                          "type": "text", "text": { "body": "broken sender" } },
                        { "from": "16505551234", "id": "wamid.C", "timestamp": "yesterday",
                          "type": "text", "text": { "body": "broken time" } },
                        { "from": "16505551234", "id": "wamid.D", "timestamp": "1749416385",
                          "type": "image", "image": { "mime_type": "image/png" } },
                        "not even an object",
                        { "from": "16505551234", "id": "wamid.E", "timestamp": "1749416386",
                          "type": "text", "text": { "body": "last" } }
                    ],
                    "statuses": [
                        { "id": "wamid.S1", "status": "exploded", "timestamp": "1750263773" },
                        { "id": "wamid.S2", "status": "delivered", "timestamp": "1750263774",
                          "recipient_id": "16505551234", "biz_opaque_callback_data": "msg_01J0000000000000000000000A" }
                    ]
                } },
                { "field": "business_capability_update", "value": {
                    "max_daily_conversation_per_phone": 250, "max_phone_numbers_per_business": 2 } }
            ] },
            { "id": "2" }
        ]
    });
    let parsed = parse(&body);
    let ids: Vec<&str> = parsed
        .events
        .iter()
        .map(|e| match e {
            NetworkEvent::Status(s) => s.network_message_id.as_str(),
            NetworkEvent::Inbound(m) => m.network_message_id.as_str(),
            NetworkEvent::Notice(n) => n.dedupe_key.as_str(),
            NetworkEvent::Preference(p) => p.dedupe_key.as_str(),
        })
        .collect();
    assert_eq!(ids, ["wamid.S2", "wamid.A", "wamid.E"]);
    let NetworkEvent::Inbound(first) = &parsed.events[1] else {
        panic!()
    };
    assert_eq!(first.from_name.as_deref(), Some("Sheena"));
    let NetworkEvent::Status(delivered) = &parsed.events[0] else {
        panic!()
    };
    assert_eq!(
        delivered.callback_data.as_deref(),
        Some("msg_01J0000000000000000000000A")
    );
    assert_eq!(delivered.phone_number_id.as_str(), "106540352242922");

    assert_eq!(parsed.skipped.len(), 7, "{:#?}", parsed.skipped);
    let skipped = parsed.skipped.join("\n");
    for expected in [
        "statuses[0]: unknown status `exploded`",
        "messages[1]: `from` not-a-number",
        "messages[2]: `timestamp`",
        "messages[3]: image: no `id`",
        "messages[4]: no `id`",
        "changes[1]: field `business_capability_update` is not handled",
        "entry[1]: no `changes` list",
    ] {
        assert!(skipped.contains(expected), "missing `{expected}` in\n{skipped}");
    }
}

#[test]
fn only_non_envelopes_are_errors() {
    assert!(matches!(parse_callback(b"not json"), Err(ParseError::NotJson(_))));
    assert!(matches!(
        parse_callback(b"[1, 2]"),
        Err(ParseError::NotAnEnvelope(_))
    ));
    assert!(matches!(
        parse_callback(br#"{"object":"page"}"#),
        Err(ParseError::NotAnEnvelope(_))
    ));
    let empty = parse_callback(br#"{"object":"whatsapp_business_account","entry":[]}"#).unwrap();
    assert_eq!(empty, ParsedCallback::default());
}
