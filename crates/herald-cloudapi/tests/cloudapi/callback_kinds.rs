//! Every inbound kind Meta sends, parsed field by field from the fixtures (and Meta's documented Flow
//! answer, which the fixtures lack).

use crate::callbacks::{case, only_inbound};
use herald_cloudapi::parse_callback;
use herald_domain::network::{InboundContent, NetworkEvent};
use serde_json::{Value, json};

fn media(kind: &str, sha: &str, voice: Option<bool>, animated: Option<bool>) -> InboundContent {
    InboundContent::Media {
        kind: kind.into(),
        network_media_id: "1234567890987654321".into(),
        mime_type: Some(
            if kind == "audio" {
                "audio/ogg; codecs=opus"
            } else {
                "image/webp"
            }
            .into(),
        ),
        sha256: Some(sha.into()),
        caption: None,
        filename: None,
        voice,
        animated,
    }
}

#[test]
fn audio_keeps_the_voice_flag_and_stickers_the_animated_flag() {
    assert_eq!(
        only_inbound("message.json", "voice").content,
        media(
            "audio",
            "m04pFf2ERdaopTyFkGPA0+bX3i+YY2dYgVFwOgDLSDI=",
            Some(true),
            None
        )
    );
    assert_eq!(
        only_inbound("message.json", "audio").content,
        media(
            "audio",
            "E3dxS/PdYZE7ppA3pQ4mpCFaXBJ8pX4SRN/dsfvds/iPGA=",
            Some(false),
            None
        )
    );
    assert_eq!(
        only_inbound("message.json", "animated_sticker").content,
        media(
            "sticker",
            "HcwyCKrTKXHk0a00ms4HWIA76GY0Du6q4Z/iuwevw=",
            None,
            Some(true)
        )
    );
    assert_eq!(
        only_inbound("message.json", "static_sticker").content,
        media(
            "sticker",
            "OmT4nhjUhCMIPNmj7eeOZeCYjTXkLxoOv85OMCFwSuc=",
            None,
            Some(false)
        )
    );
    let video = only_inbound("message.json", "video");
    assert!(matches!(
        &video.content,
        InboundContent::Media { caption: Some(c), voice: None, animated: None, .. } if c == "caption"
    ));
}

#[test]
fn locations_keep_the_numbers_as_written() {
    assert_eq!(
        only_inbound("message.json", "chosen_location").content,
        InboundContent::Location {
            latitude: "37.4611978".into(),
            longitude: "-122.2164385".into(),
            name: Some("Facebook HQ".into()),
            address: Some("1 Hacker Way, Menlo Park, CA 94025".into()),
            url: Some("https://maps.google.com/?cid=2000000000000000000".into()),
        }
    );
    let current = only_inbound("message.json", "current_location");
    assert_eq!(current.message_type, "location");
    assert_eq!(
        current.content,
        InboundContent::Location {
            latitude: "12.25089".into(),
            longitude: "43.90539".into(),
            name: None,
            address: None,
            url: None,
        }
    );
}

#[test]
fn contacts_keep_the_network_cards() {
    let message = only_inbound("message.json", "contacts");
    let InboundContent::Contacts { cards_json } = &message.content else {
        panic!("expected contacts, got {:?}", message.content)
    };
    let cards: Value = serde_json::from_str(cards_json).unwrap();
    let original =
        &case("message.json", "contacts")["entry"][0]["changes"][0]["value"]["messages"][0]["contacts"];
    assert_eq!(&cards, original);
    assert_eq!(cards[2]["name"]["formatted_name"], "Rachel Green");
}

#[test]
fn reactions_name_their_target_and_an_empty_or_missing_emoji_removes() {
    for (name, emoji) in [
        ("reaction", "\u{1f62e}"),
        ("unreaction_empty", ""),
        ("unreaction_no_emoji", ""),
    ] {
        let message = only_inbound("message.json", name);
        assert_eq!(message.message_type, "reaction");
        assert_eq!(
            message.content,
            InboundContent::Reaction {
                network_message_id: "wamid.yzxyzx=".into(),
                emoji: emoji.into(),
            },
            "{name}"
        );
        assert_eq!(message.content.reacted_to(), Some("wamid.yzxyzx="));
    }
}

#[test]
fn interactive_replies_and_template_buttons() {
    let button = only_inbound("callback_button.json", "button");
    assert_eq!(button.message_type, "interactive");
    assert_eq!(
        button.content,
        InboundContent::ButtonReply {
            id: "callback_data".into(),
            title: "title".into(),
        }
    );
    assert_eq!(button.context_message_id.as_deref(), Some("wamid.xyzxyz"));
    assert_eq!(
        only_inbound("callback_selection.json", "callback").content,
        InboundContent::ListReply {
            id: "callback_data".into(),
            title: "title".into(),
            description: None,
        }
    );
    assert_eq!(
        only_inbound("callback_selection.json", "description").content,
        InboundContent::ListReply {
            id: "callback_data".into(),
            title: "title".into(),
            description: Some("description".into()),
        }
    );
    for name in ["quick_reply", "quick_reply_without_context"] {
        let quick = only_inbound("callback_button.json", name);
        assert_eq!(quick.message_type, "button");
        assert_eq!(
            quick.content,
            InboundContent::QuickReply {
                payload: "callback_data".into(),
                text: "title".into(),
            },
            "{name}"
        );
    }
    assert_eq!(
        only_inbound("callback_button.json", "quick_reply")
            .context_message_id
            .as_deref(),
        Some("wamid.xyzxyz==")
    );
}

#[test]
fn orders_system_messages_and_referrals() {
    let order = only_inbound("message.json", "order");
    let InboundContent::Order { order_json } = &order.content else {
        panic!("expected an order, got {:?}", order.content)
    };
    let parsed: Value = serde_json::from_str(order_json).unwrap();
    assert_eq!(parsed["catalog_id"], "354160437058781");
    assert_eq!(parsed["product_items"][0]["product_retailer_id"], "HAMBURGER");
    assert_eq!(
        only_inbound("system.json", "phone_number_change").content,
        InboundContent::System {
            body: Some("User A changed from 972987654321 to 972912345678".into()),
            system_type: Some("user_changed_number".into()),
            wa_id: Some("972912345678".into()),
        }
    );
    assert_eq!(
        only_inbound("system.json", "identity_change").content,
        InboundContent::System {
            body: Some("User identity changed".into()),
            system_type: Some("customer_identity_changed".into()),
            wa_id: None,
        }
    );
    let referred = only_inbound("message.json", "referral");
    assert_eq!(referred.content, InboundContent::Text { body: "BODY".into() });
    let referral: Value = serde_json::from_str(referred.referral.as_deref().unwrap()).unwrap();
    assert_eq!(referral["source_id"], "ADID");
    assert_eq!(referral["ctwa_clid"], "CTWA_CLID");
    assert_eq!(only_inbound("message.json", "text").referral, None);
}

fn one_message(message: Value) -> Result<InboundContent, Vec<String>> {
    let body = json!({
        "object": "whatsapp_business_account",
        "entry": [{ "id": "1", "changes": [{ "field": "messages", "value": {
            "messaging_product": "whatsapp",
            "metadata": { "display_phone_number": "15550783881", "phone_number_id": "106540352242922" },
            "messages": [message],
        } }] }],
    });
    let parsed = parse_callback(&serde_json::to_vec(&body).unwrap()).unwrap();
    match parsed.events.as_slice() {
        [NetworkEvent::Inbound(inbound)] => Ok(inbound.content.clone()),
        _ => Err(parsed.skipped),
    }
}

#[test]
fn flow_answers_keep_the_response_json_text() {
    let response = r#"{"flow_token":"T1","rating":"5"}"#;
    let content = one_message(json!({
        "context": { "from": "15550783881", "id": "wamid.FLOW" },
        "from": "16505551234", "id": "wamid.ANSWER", "timestamp": "1749416383", "type": "interactive",
        "interactive": { "type": "nfm_reply", "nfm_reply": {
            "name": "flow", "body": "Sent", "response_json": response } },
    }));
    assert_eq!(
        content,
        Ok(InboundContent::FlowReply {
            name: Some("flow".into()),
            body: Some("Sent".into()),
            response_json: response.into(),
        })
    );
}

#[test]
fn a_malformed_kind_fails_only_its_item() {
    let base = |kind: &str, object: Value| {
        let mut message = json!({
            "from": "16505551234", "id": "wamid.X", "timestamp": "1749416383", "type": kind,
        });
        message[kind] = object;
        message
    };
    for (message, why) in [
        (
            base("location", json!({ "latitude": "north", "longitude": 1 })),
            "latitude",
        ),
        (
            base("location", json!({ "latitude": 91, "longitude": 1 })),
            "latitude",
        ),
        (base("reaction", json!({ "emoji": "x" })), "message_id"),
        (
            base(
                "interactive",
                json!({ "type": "button_reply", "button_reply": { "id": "a" } }),
            ),
            "title",
        ),
        (
            base(
                "interactive",
                json!({ "type": "nfm_reply", "nfm_reply": { "name": "f" } }),
            ),
            "response_json",
        ),
        (base("contacts", json!(null)), "contacts"),
        (base("button", json!({ "payload": "p" })), "text"),
    ] {
        let skipped = one_message(message.clone()).expect_err(&message.to_string());
        assert_eq!(skipped.len(), 1);
        assert!(skipped[0].contains(why), "{why}: {skipped:?}");
    }
    // An interactive answer of a kind Herald does not know is kept, not refused.
    assert_eq!(
        one_message(base(
            "interactive",
            json!({ "type": "payment_reply", "payment_reply": {} })
        )),
        Ok(InboundContent::Other)
    );
    assert_eq!(one_message(base("poll", json!({}))), Ok(InboundContent::Other));
}
