//! `MessageStore` and the message kinds beside text, files and templates: each reads back exactly, with the
//! message it replies to, and `referenced` finds what a reply or reaction may point at, in one organization.

use super::{Ports, accept_all, new_organization_with_sender};
use crate::fixtures::{at, message, network_ref, next_ulid, text_message};
use herald_domain::content::{
    ContactCard, ContactDraft, Emoji, Location, LocationDraft, MessageRef, MessageTarget, Reaction,
};
use herald_domain::customer_event::InboundRecord;
use herald_domain::ids::EventId;
use herald_domain::ids::{InboundId, MessageId};
use herald_domain::interactive::{
    ActionDraft, ButtonDraft, HeaderDraft, Interactive, InteractiveDraft, ParametersDraft, RowDraft,
    SectionDraft,
};
use herald_domain::message::{Message, MessageContent, MessageStatus, MessageType};
use herald_domain::network::{InboundContent, InboundMessage};
use herald_domain::ports::{MessageQuery, ReferencedMessage};
use herald_domain::values::PhoneNumber;

const TO: &str = "+15551234567";

fn buttons_with_document_header() -> MessageContent {
    let draft = InteractiveDraft {
        kind: "button".into(),
        header: Some(HeaderDraft {
            kind: "document".into(),
            media_id: Some("med_01HZX3N5Q2V8K4T6W9Y1B3D5F7".into()),
            filename: Some("menu «2026».pdf".into()),
            ..HeaderDraft::default()
        }),
        body: Some("Olá 👋 — pick one\nsecond line".into()),
        footer: Some("Thanks".into()),
        action: ActionDraft {
            buttons: Some(vec![
                ButtonDraft {
                    kind: Some("reply".into()),
                    id: Some("yes".into()),
                    title: Some("Yes".into()),
                },
                ButtonDraft {
                    kind: Some("reply".into()),
                    id: Some("no".into()),
                    title: Some("No \"thanks\"".into()),
                },
            ]),
            ..ActionDraft::default()
        },
    };
    MessageContent::Interactive(Interactive::parse(&draft).expect("valid buttons"))
}

fn list() -> MessageContent {
    let row = |id: &str, description: Option<&str>| RowDraft {
        id: Some(id.into()),
        title: Some(format!("Row {id}")),
        description: description.map(Into::into),
    };
    let draft = InteractiveDraft {
        kind: "list".into(),
        header: Some(HeaderDraft {
            kind: "text".into(),
            text: Some("Menu".into()),
            ..HeaderDraft::default()
        }),
        body: Some("Choose".into()),
        action: ActionDraft {
            button: Some("Options".into()),
            sections: Some(vec![
                SectionDraft {
                    title: Some("Mains".into()),
                    rows: vec![row("1", Some("Spicy")), row("2", None)],
                },
                SectionDraft {
                    title: Some("Drinks".into()),
                    rows: vec![row("3", None)],
                },
            ]),
            ..ActionDraft::default()
        },
        ..InteractiveDraft::default()
    };
    MessageContent::Interactive(Interactive::parse(&draft).expect("valid list"))
}

fn flow() -> MessageContent {
    let draft = InteractiveDraft {
        kind: "flow".into(),
        body: Some("Book a table".into()),
        action: ActionDraft {
            name: Some("flow".into()),
            parameters: ParametersDraft {
                flow_id: Some("1234567890".into()),
                flow_cta: Some("Book".into()),
                flow_token: Some("token-1".into()),
                mode: Some("draft".into()),
                screen: Some("START".into()),
                data: Some(r#"{"party":2,"name":"Ana"}"#.into()),
                ..ParametersDraft::default()
            },
            ..ActionDraft::default()
        },
        ..InteractiveDraft::default()
    };
    MessageContent::Interactive(Interactive::parse(&draft).expect("valid flow"))
}

fn location() -> MessageContent {
    let draft = LocationDraft {
        latitude: Some("-33.8688".into()),
        longitude: Some("151.2093".into()),
        name: Some("Opera House".into()),
        address: Some("Bennelong Point, Sydney".into()),
    };
    MessageContent::Location(Location::parse(&draft).expect("valid location"))
}

fn contacts() -> MessageContent {
    let card = ContactDraft {
        formatted_name: Some("Ana Díaz".into()),
        first_name: Some("Ana".into()),
        last_name: Some("Díaz".into()),
        phones: vec![(Some("+15551234567".into()), Some("WORK".into()))],
        emails: vec![(Some("ana@example.com".into()), None)],
        addresses: vec![[
            Some("1 Main St".into()),
            Some("Springfield".into()),
            None,
            None,
            Some("USA".into()),
            Some("US".into()),
            Some("HOME".into()),
        ]],
        org: Some([Some("Acme".into()), None, Some("CEO".into())]),
        birthday: Some("1990-02-28".into()),
        ..ContactDraft::default()
    };
    let other = ContactDraft {
        formatted_name: Some("Bo".into()),
        first_name: Some("Bo".into()),
        ..ContactDraft::default()
    };
    MessageContent::Contacts(ContactCard::parse_all(&[card, other]).expect("valid cards"))
}

fn resolved(message: MessageRef, wamid: &str) -> MessageTarget {
    MessageTarget {
        message,
        network_message_id: Some(wamid.to_owned()),
    }
}

fn reaction(target: MessageTarget, emoji: &str) -> MessageContent {
    MessageContent::Reaction(Reaction {
        target,
        emoji: Emoji::parse(emoji).expect("one emoji"),
    })
}

/// Every new kind, and a reply of each old and new kind, reads back exactly; the log filters on the new types.
pub async fn messages_new_kinds_round_trip_with_reply_to(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "business").await;
    let earlier = MessageRef::Outbound(MessageId::parse("msg_01J0000000000000000000000Z").expect("id"));
    let inbound = MessageRef::Inbound(InboundId::parse("inb_01J0000000000000000000000Y").expect("id"));
    let contents = vec![
        buttons_with_document_header(),
        list(),
        flow(),
        location(),
        contacts(),
        reaction(resolved(earlier, "wamid.earlier"), "👍🏽"),
        reaction(resolved(inbound, "wamid.inbound"), ""),
    ];
    let mut messages: Vec<Message> = contents
        .into_iter()
        .enumerate()
        .map(|(i, content)| message(org.id, &sender, TO, content, at(i64::try_from(i).unwrap_or(0))))
        .collect();
    let mut reply = text_message(org.id, &sender, TO, at(50));
    reply.reply_to = Some(resolved(inbound, "wamid.inbound"));
    messages.push(reply);
    let mut replying_list = message(org.id, &sender, TO, list(), at(51));
    replying_list.reply_to = Some(resolved(earlier, "wamid.earlier"));
    messages.push(replying_list);

    accept_all(&ports, &messages).await;
    for expected in &messages {
        let got = ports
            .messages
            .message(&org.id, &expected.id)
            .await
            .expect("message");
        assert_eq!(
            got.as_ref(),
            Some(expected),
            "message() must read back exactly what was accepted, reply_to included"
        );
    }
    for (kind, count) in [
        (MessageType::Interactive, 4),
        (MessageType::Location, 1),
        (MessageType::Contacts, 1),
        (MessageType::Reaction, 2),
    ] {
        let query = MessageQuery {
            message_type: Some(kind),
            limit: 50,
            ..MessageQuery::default()
        };
        let listed = ports.messages.messages(&org.id, &query).await.expect("messages");
        assert_eq!(listed.len(), count, "the log filtered on type {}", kind.as_str());
        assert!(listed.iter().all(|m| m.content.message_type() == kind));
    }
}

/// `referenced` answers the sender, the customer and the network id of the organization's own message, and
/// `None` for an unknown id, another organization's id, or an inbound id that is not one of its messages.
pub async fn messages_referenced_stays_in_the_organization(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "business").await;
    let (other_org, other_sender) = new_organization_with_sender(&ports, "business").await;
    let queued = text_message(org.id, &sender, TO, at(0));
    let mut submitted = text_message(org.id, &sender, "+15557654321", at(1));
    submitted.status = MessageStatus::Submitted;
    submitted.network_message_id = Some("wamid.submitted".into());
    submitted.timestamps.submitted = Some(at(2));
    let foreign = text_message(other_org.id, &other_sender, TO, at(3));
    accept_all(&ports, &[queued.clone(), submitted.clone(), foreign.clone()]).await;

    let referenced = |id: MessageId| {
        let ports = ports.clone();
        async move {
            ports
                .messages
                .referenced(&org.id, &MessageRef::Outbound(id))
                .await
                .expect("referenced")
        }
    };
    assert_eq!(
        referenced(queued.id).await,
        Some(ReferencedMessage {
            sender_id: sender.id,
            counterpart: PhoneNumber::parse(TO).expect("number").into(),
            network_message_id: None,
        }),
        "a queued message is found, without a network id yet"
    );
    assert_eq!(
        referenced(submitted.id).await,
        Some(ReferencedMessage {
            sender_id: sender.id,
            counterpart: PhoneNumber::parse("+15557654321").expect("number").into(),
            network_message_id: Some("wamid.submitted".into()),
        })
    );
    assert_eq!(
        referenced(foreign.id).await,
        None,
        "another organization's message reads as no message"
    );
    assert_eq!(
        referenced(MessageId::parse("msg_01J0000000000000000000000X").expect("id")).await,
        None
    );
    // A received message answers its sender and customer, by its `inb_` id and by the `msg_` id inbound
    // messages had before they had `inb_` ids (the migration kept the ULID).
    let received_ulid = next_ulid();
    let received_id = MessageId::from_ulid(received_ulid);
    let record = InboundRecord {
        id: InboundId::from_ulid(received_ulid),
        organization_id: org.id,
        sender_id: sender.id,
        media_id: None,
        message: InboundMessage {
            phone_number_id: network_ref(sender.phone_number_id.as_str()),
            network_message_id: "wamid.received".to_owned(),
            from: PhoneNumber::parse("+15550002222").expect("number").into(),
            from_user_id: None,
            from_name: None,
            received_at: at(4),
            message_type: "text".to_owned(),
            content: InboundContent::Text {
                body: "hi".to_owned(),
            },
            context_message_id: None,
            referral: None,
            raw: r#"{"id":"wamid.received"}"#.to_owned(),
            source_field: herald_domain::network::SourceField::Messages,
            echo: false,
        },
        customer_event_id: EventId::from_ulid(next_ulid()),
        recorded_at: at(5),
    };
    assert!(
        ports
            .tracking
            .record_inbound_message(&record)
            .await
            .expect("recorded")
    );
    assert_eq!(
        referenced(received_id).await,
        Some(ReferencedMessage {
            sender_id: sender.id,
            counterpart: PhoneNumber::parse("+15550002222").expect("number").into(),
            network_message_id: Some("wamid.received".into()),
        })
    );
    let foreign_view = ports
        .messages
        .referenced(&other_org.id, &MessageRef::Outbound(received_id))
        .await
        .expect("referenced");
    assert_eq!(foreign_view, None, "another organization does not see it");
    let by_inbound_id = ports
        .messages
        .referenced(&org.id, &MessageRef::Inbound(InboundId::from_ulid(received_ulid)))
        .await
        .expect("referenced");
    assert_eq!(
        by_inbound_id,
        referenced(received_id).await,
        "its `inb_` id and its legacy `msg_` id agree"
    );

    let unknown_inbound =
        MessageRef::Inbound(InboundId::parse("inb_01J0000000000000000000000W").expect("id"));
    assert_eq!(
        ports
            .messages
            .referenced(&org.id, &unknown_inbound)
            .await
            .expect("referenced"),
        None
    );
}
