//! The exact wire body of the interactive, reaction, location and contacts kinds and of a reply's `context`
//! (wiremock), and the same messages accepted by the real simulator, which checks Meta's shapes.

use crate::helpers::*;
use herald_cloudapi::CloudApiClient;
use herald_domain::content::{
    ContactCard, ContactDraft, Emoji, Location, LocationDraft, MessageRef, MessageTarget, Reaction,
};
use herald_domain::ids::MediaId;
use herald_domain::interactive::{
    ActionDraft, ButtonDraft, HeaderDraft, Interactive, InteractiveDraft, ParametersDraft, RowDraft,
    SectionDraft,
};
use herald_domain::message::{Message, MessageContent};
use herald_domain::organization::{NetworkRef, SenderNumber};
use herald_domain::ports::{MessagingNetwork, NetworkError, NetworkMediaIds};
use herald_domain::values::{MessageText, PhoneNumber};
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer};

const MEDIA: &str = "med_01HZX3N5Q2V8K4T6W9Y1B3D5F7";
const TARGET: &str = "msg_01J0000000000000000000000Q";

fn interactive(draft: InteractiveDraft) -> MessageContent {
    MessageContent::Interactive(Interactive::parse(&draft).unwrap())
}

fn buttons() -> MessageContent {
    let button = |id: &str, title: &str| ButtonDraft {
        kind: Some("reply".into()),
        id: Some(id.into()),
        title: Some(title.into()),
    };
    interactive(InteractiveDraft {
        kind: "button".into(),
        header: Some(HeaderDraft {
            kind: "document".into(),
            media_id: Some(MEDIA.into()),
            filename: Some("menu.pdf".into()),
            ..HeaderDraft::default()
        }),
        body: Some("Pick one".into()),
        footer: Some("Thanks".into()),
        action: ActionDraft {
            buttons: Some(vec![button("yes", "Yes"), button("no", "No")]),
            ..ActionDraft::default()
        },
    })
}

fn list() -> MessageContent {
    interactive(InteractiveDraft {
        kind: "list".into(),
        header: Some(HeaderDraft {
            kind: "text".into(),
            text: Some("Menu".into()),
            ..HeaderDraft::default()
        }),
        body: Some("Choose".into()),
        action: ActionDraft {
            button: Some("Options".into()),
            sections: Some(vec![SectionDraft {
                title: Some("Mains".into()),
                rows: vec![RowDraft {
                    id: Some("1".into()),
                    title: Some("Soup".into()),
                    description: Some("Hot".into()),
                }],
            }]),
            ..ActionDraft::default()
        },
        ..InteractiveDraft::default()
    })
}

fn flow() -> MessageContent {
    interactive(InteractiveDraft {
        kind: "flow".into(),
        body: Some("Book a table".into()),
        action: ActionDraft {
            name: Some("flow".into()),
            parameters: ParametersDraft {
                flow_id: Some("1234".into()),
                flow_cta: Some("Book".into()),
                flow_token: Some("t-1".into()),
                screen: Some("START".into()),
                data: Some(r#"{"party":2}"#.into()),
                ..ParametersDraft::default()
            },
            ..ActionDraft::default()
        },
        ..InteractiveDraft::default()
    })
}

fn location() -> MessageContent {
    MessageContent::Location(
        Location::parse(&LocationDraft {
            latitude: Some("-33.8688".into()),
            longitude: Some("151.2093".into()),
            name: Some("Opera House".into()),
            address: None,
        })
        .unwrap(),
    )
}

fn contacts() -> MessageContent {
    MessageContent::Contacts(
        ContactCard::parse_all(&[ContactDraft {
            formatted_name: Some("Ana Díaz".into()),
            first_name: Some("Ana".into()),
            phones: vec![(Some("+15551234567".into()), Some("WORK".into()))],
            ..ContactDraft::default()
        }])
        .unwrap(),
    )
}

fn reaction(wamid: Option<&str>, emoji: &str) -> MessageContent {
    MessageContent::Reaction(Reaction {
        target: MessageTarget {
            message: MessageRef::parse(TARGET).unwrap(),
            network_message_id: wamid.map(str::to_owned),
        },
        emoji: Emoji::parse(emoji).unwrap(),
    })
}

fn text(body: &str) -> MessageContent {
    MessageContent::Text {
        body: MessageText::parse(body).unwrap(),
        preview_url: false,
    }
}

fn reply(content: MessageContent, wamid: &str) -> Message {
    let mut message = message(content);
    message.reply_to = Some(MessageTarget {
        message: MessageRef::parse(TARGET).unwrap(),
        network_message_id: Some(wamid.into()),
    });
    message
}

/// Sends `message` to wiremock and answers the body the network received.
async fn wire_body(message: &Message, media: &NetworkMediaIds) -> Result<Value, NetworkError> {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(format!("/{VERSION}/{PHONE_NUMBER_ID}/messages")))
        .respond_with(accepted())
        .mount(&server)
        .await;
    client(&server).send(&sender(), message, media).await?;
    let requests = server.received_requests().await.unwrap();
    Ok(requests[0].body_json().unwrap())
}

fn envelope(kind: &str, object: Value) -> Value {
    let mut body = json!({
        "messaging_product": "whatsapp",
        "recipient_type": "individual",
        "to": "+16505551234",
        "type": kind,
        "biz_opaque_callback_data": MESSAGE_ID,
    });
    body[kind] = object;
    body
}

#[tokio::test]
async fn each_new_kind_goes_out_in_meta_s_exact_shape() {
    let mut media = NetworkMediaIds::new();
    media.insert(MediaId::parse(MEDIA).unwrap(), "4490709327384033".into());
    let cases = [
        (
            buttons(),
            "interactive",
            json!({
                "type": "button",
                "header": { "type": "document", "document": { "id": "4490709327384033", "filename": "menu.pdf" } },
                "body": { "text": "Pick one" },
                "footer": { "text": "Thanks" },
                "action": { "buttons": [
                    { "type": "reply", "reply": { "id": "yes", "title": "Yes" } },
                    { "type": "reply", "reply": { "id": "no", "title": "No" } }
                ] }
            }),
        ),
        (
            list(),
            "interactive",
            json!({
                "type": "list",
                "header": { "type": "text", "text": "Menu" },
                "body": { "text": "Choose" },
                "action": { "button": "Options", "sections": [
                    { "title": "Mains", "rows": [ { "id": "1", "title": "Soup", "description": "Hot" } ] }
                ] }
            }),
        ),
        (
            flow(),
            "interactive",
            json!({
                "type": "flow",
                "body": { "text": "Book a table" },
                "action": { "name": "flow", "parameters": {
                    "flow_message_version": "3",
                    "flow_id": "1234",
                    "flow_cta": "Book",
                    "flow_token": "t-1",
                    "flow_action": "navigate",
                    "flow_action_payload": { "screen": "START", "data": { "party": 2 } }
                } }
            }),
        ),
        (
            location(),
            "location",
            json!({ "latitude": -33.8688, "longitude": 151.2093, "name": "Opera House" }),
        ),
        (
            contacts(),
            "contacts",
            json!([{
                "name": { "formatted_name": "Ana Díaz", "first_name": "Ana" },
                "phones": [ { "phone": "+15551234567", "type": "WORK" } ]
            }]),
        ),
        (
            reaction(Some("wamid.T"), "👍"),
            "reaction",
            json!({ "message_id": "wamid.T", "emoji": "👍" }),
        ),
        (
            reaction(Some("wamid.T"), ""),
            "reaction",
            json!({ "message_id": "wamid.T", "emoji": "" }),
        ),
    ];
    for (content, kind, object) in cases {
        let body = wire_body(&message(content), &media).await.unwrap();
        assert_eq!(body, envelope(kind, object));
    }
}

#[tokio::test]
async fn a_reply_carries_the_target_s_network_id_as_context() {
    let body = wire_body(&reply(text("Yes"), "wamid.ASKED"), &NetworkMediaIds::new())
        .await
        .unwrap();
    let mut expected = envelope("text", json!({ "preview_url": false, "body": "Yes" }));
    expected["context"] = json!({ "message_id": "wamid.ASKED" });
    assert_eq!(body, expected);

    let body = wire_body(&reply(location(), "wamid.ASKED"), &NetworkMediaIds::new())
        .await
        .unwrap();
    assert_eq!(body["context"], json!({ "message_id": "wamid.ASKED" }));
    assert_eq!(body["type"], "location");
}

/// A header file that was not uploaded for the sender, or a reaction whose target has no network id, fails
/// for good before anything reaches the network.
#[tokio::test]
async fn a_missing_network_id_fails_the_send_without_a_request() {
    let server = MockServer::start().await;
    let client = client(&server);
    for content in [buttons(), reaction(None, "👍")] {
        let outcome = client
            .send(&sender(), &message(content), &NetworkMediaIds::new())
            .await;
        assert!(matches!(outcome, Err(NetworkError::Permanent(_))), "{outcome:?}");
    }
    assert!(server.received_requests().await.unwrap().is_empty());
}

/// The same kinds against the real simulator, which refuses anything not in Meta's shape and any reply or
/// reaction to a message that is not of the conversation.
#[tokio::test]
async fn the_simulator_accepts_every_new_kind_and_the_replies() {
    use herald_simulator::{DEFAULT_ACCESS_TOKEN, Simulator, SimulatorConfig, standalone};
    let simulator = Simulator::new(SimulatorConfig {
        callback_delay_ms: (1, 2),
        ..SimulatorConfig::default()
    });
    let (server, port) = standalone("127.0.0.1:0", std::sync::Arc::clone(&simulator)).unwrap();
    tokio::spawn(server);
    let base = format!("http://127.0.0.1:{port}/simulator");
    let mut config = config(&base);
    config.default_access_token = Some(secrecy::SecretString::from(DEFAULT_ACCESS_TOKEN));
    let client = CloudApiClient::new(config).unwrap();
    let seeded = &herald_simulator::seeded_senders()[0];
    let sender = SenderNumber {
        phone_number_id: NetworkRef::parse(seeded.phone_number_id).unwrap(),
        waba_id: NetworkRef::parse(seeded.waba_id).unwrap(),
        ..sender()
    };
    // The customer writes first: the simulator holds the window and knows the conversation.
    let response = reqwest::Client::new()
        .post(format!("{base}/control/inbound"))
        .json(&json!({ "from": "+16505551234", "to": seeded.display_phone_number, "text": "hi" }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);

    let to = |content| {
        let mut m = message(content);
        m.to = PhoneNumber::parse("+16505551234").unwrap().into();
        m
    };
    let first = client
        .send(&sender, &to(text("Hello")), &NetworkMediaIds::new())
        .await
        .unwrap();
    for content in [list(), flow(), location(), contacts()] {
        client
            .send(&sender, &to(content), &NetworkMediaIds::new())
            .await
            .unwrap();
    }
    let wamid = first.network_message_id;
    client
        .send(
            &sender,
            &to(reaction(Some(&wamid), "👍")),
            &NetworkMediaIds::new(),
        )
        .await
        .unwrap();
    let mut answer = to(text("Replying"));
    answer.reply_to = reply(text("x"), &wamid).reply_to;
    client
        .send(&sender, &answer, &NetworkMediaIds::new())
        .await
        .unwrap();
    let sent = simulator.sent();
    assert_eq!(sent.len(), 7);
    assert_eq!(
        sent[5].request["reaction"],
        json!({ "message_id": wamid, "emoji": "👍" })
    );
    assert_eq!(sent[6].request["context"], json!({ "message_id": wamid }));

    // A reaction to a message the simulator never sent in this conversation is refused, as Meta would.
    let outcome = client
        .send(
            &sender,
            &to(reaction(Some("wamid.UNKNOWN"), "👍")),
            &NetworkMediaIds::new(),
        )
        .await;
    assert!(outcome.is_err(), "{outcome:?}");
}
