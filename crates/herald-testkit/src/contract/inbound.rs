//! `InboundStore`: inbound messages as resources, and the Herald ids their replies and reactions point at.

use super::outbox::{events_of, payload};
use super::{Ports, accept_ok, new_organization_with_sender};
use crate::fixtures::{
    SIMULATOR_SENDER_1, SIMULATOR_SENDER_2, accept_request, at, network_ref, next_ulid, phone, sender,
    text_message,
};
use herald_domain::Timestamp;
use herald_domain::customer_event::InboundRecord;
use herald_domain::ids::{EventId, InboundId, OrganizationId};
use herald_domain::network::{InboundContent, InboundMessage, SourceField};
use herald_domain::organization::SenderNumber;
use herald_domain::ports::{InboundQuery, InboundView};
use serde_json::{Value, json};

fn message(
    sender: &SenderNumber,
    wamid: &str,
    from: &str,
    received_at: Timestamp,
    content: InboundContent,
    message_type: &str,
) -> InboundMessage {
    InboundMessage {
        phone_number_id: network_ref(sender.phone_number_id.as_str()),
        network_message_id: wamid.to_owned(),
        from: phone(from).into(),
        from_user_id: None,
        from_name: Some("Ana".to_owned()),
        received_at,
        message_type: message_type.to_owned(),
        content,
        context_message_id: None,
        referral: None,
        raw: format!(r#"{{"id":"{wamid}"}}"#),
        source_field: herald_domain::network::SourceField::Messages,
        echo: false,
    }
}

fn text(body: &str) -> InboundContent {
    InboundContent::Text {
        body: body.to_owned(),
    }
}

/// Records `message` for `sender` and answers its id.
async fn record(ports: &Ports, sender: &SenderNumber, message: InboundMessage) -> InboundId {
    let id = InboundId::from_ulid(next_ulid());
    let recorded = ports
        .tracking
        .record_inbound_message(&InboundRecord {
            id,
            organization_id: sender.organization_id,
            sender_id: sender.id,
            message,
            media_id: None,
            customer_event_id: EventId::from_ulid(next_ulid()),
            recorded_at: at(1_000),
        })
        .await
        .expect("record_inbound_message");
    assert!(recorded, "a new inbound message is recorded");
    id
}

fn json_of(view: &InboundView) -> Value {
    serde_json::from_str(&view.json).expect("the resource is JSON")
}

async fn get(ports: &Ports, org: &OrganizationId, id: &InboundId) -> Option<InboundView> {
    ports
        .inbound
        .inbound_message(org, id)
        .await
        .expect("inbound_message")
}

async fn list(ports: &Ports, org: &OrganizationId, query: InboundQuery) -> Vec<InboundId> {
    ports
        .inbound
        .inbound_messages(org, &query)
        .await
        .expect("inbound_messages")
        .into_iter()
        .map(|view| view.id)
        .collect()
}

/// A reply's `context` and a reaction's target are resolved to Herald's ids within the organization (a
/// message Herald sent, one it received), kept with the wamid; the event's `data` and the resource say the
/// same; another organization's message with that wamid is not resolved.
pub async fn inbound_replies_and_reactions_resolve_to_herald_ids(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let mut sent = text_message(org.id, &sender, "+15557654321", at(0));
    sent.network_message_id = Some("wamid.OUT".to_owned());
    accept_ok(&ports, &accept_request(&sent, None, None)).await;

    let mut reply = message(&sender, "wamid.IN1", "+15557654321", at(10), text("yes"), "text");
    reply.context_message_id = Some("wamid.OUT".to_owned());
    let reply_id = record(&ports, &sender, reply).await;
    let reaction = InboundContent::Reaction {
        network_message_id: "wamid.IN1".to_owned(),
        emoji: "👍".to_owned(),
    };
    let reaction_id = record(
        &ports,
        &sender,
        message(&sender, "wamid.IN2", "+15557654321", at(11), reaction, "reaction"),
    )
    .await;

    let view = get(&ports, &org.id, &reply_id)
        .await
        .expect("the reply reads back");
    let resource = json_of(&view);
    assert_eq!(
        resource["context"],
        json!({ "message_id": sent.id.to_string(), "network_message_id": "wamid.OUT" }),
        "a reply names the Herald message it answers"
    );
    assert_eq!(resource["id"], reply_id.to_string());
    assert!(reply_id.to_string().starts_with("inb_"));
    assert_eq!(resource["from_name"], "Ana");
    assert_eq!(resource["to"], SIMULATOR_SENDER_1);
    let reaction_view = get(&ports, &org.id, &reaction_id)
        .await
        .expect("the reaction reads back");
    assert_eq!(
        json_of(&reaction_view)["reaction"],
        json!({ "message_id": reply_id.to_string(), "network_message_id": "wamid.IN1", "emoji": "👍" }),
        "a reaction to an inbound message names its `inb_` id"
    );

    let events = events_of(&ports, &org).await;
    let event = events
        .iter()
        .map(payload)
        .find(|body| body["data"]["id"] == reply_id.to_string())
        .expect("the reply's event");
    let mut without_extras = resource.clone();
    if let Some(fields) = without_extras.as_object_mut() {
        fields.remove("from_name");
        fields.remove("read_at");
    }
    assert_eq!(
        event["data"], without_extras,
        "the event's data and the resource agree"
    );

    let (other, other_sender) = new_organization_with_sender(&ports, "starter").await;
    let mut foreign = message(
        &other_sender,
        "wamid.IN3",
        "+15557654321",
        at(12),
        text("?"),
        "text",
    );
    foreign.context_message_id = Some("wamid.OUT".to_owned());
    let foreign_id = record(&ports, &other_sender, foreign).await;
    let foreign_view = get(&ports, &other.id, &foreign_id).await.expect("reads back");
    assert_eq!(
        json_of(&foreign_view)["context"],
        json!({ "message_id": null, "network_message_id": "wamid.OUT" }),
        "another organization's wamid is not resolved"
    );
}

/// The list is newest first, filtered by receiving number, customer, type and time, paged by cursor, and
/// holds only the organization's messages.
pub async fn inbound_list_filters_and_pages(ports: Ports) {
    let (org, first) = new_organization_with_sender(&ports, "starter").await;
    let second = sender(org.id, SIMULATOR_SENDER_2, false);
    ports.accounts.add_sender(&second).await.expect("add_sender");
    let (other, other_sender) = new_organization_with_sender(&ports, "starter").await;
    let a = record(
        &ports,
        &first,
        message(&first, "wamid.A", "+15557000001", at(10), text("a"), "text"),
    )
    .await;
    let reaction = InboundContent::Reaction {
        network_message_id: "wamid.A".to_owned(),
        emoji: String::new(),
    };
    let b = record(
        &ports,
        &first,
        message(&first, "wamid.B", "+15557000002", at(20), reaction, "reaction"),
    )
    .await;
    let c = record(
        &ports,
        &second,
        message(&second, "wamid.C", "+15557000001", at(30), text("c"), "text"),
    )
    .await;
    let d = record(
        &ports,
        &first,
        message(&first, "wamid.D", "+15557000001", at(40), text("d"), "text"),
    )
    .await;
    record(
        &ports,
        &other_sender,
        message(
            &other_sender,
            "wamid.E",
            "+15557000001",
            at(50),
            text("e"),
            "text",
        ),
    )
    .await;
    let all = |limit| InboundQuery {
        limit,
        ..InboundQuery::default()
    };
    assert_eq!(
        list(&ports, &org.id, all(10)).await,
        [d, c, b, a],
        "newest first, own only"
    );
    assert_eq!(list(&ports, &other.id, all(10)).await.len(), 1);
    let number = InboundQuery {
        number: Some(phone(SIMULATOR_SENDER_2)),
        ..all(10)
    };
    assert_eq!(list(&ports, &org.id, number).await, [c], "by receiving number");
    let unknown_number = InboundQuery {
        number: Some(phone("+15550009999")),
        ..all(10)
    };
    assert!(list(&ports, &org.id, unknown_number).await.is_empty());
    let customer = InboundQuery {
        sender: Some(phone("+15557000001").into()),
        ..all(10)
    };
    assert_eq!(list(&ports, &org.id, customer).await, [d, c, a], "by customer");
    let kind = InboundQuery {
        message_type: Some("reaction".to_owned()),
        ..all(10)
    };
    assert_eq!(list(&ports, &org.id, kind).await, [b], "by type");
    let window = InboundQuery {
        since: Some(at(20)),
        until: Some(at(40)),
        ..all(10)
    };
    assert_eq!(
        list(&ports, &org.id, window).await,
        [c, b],
        "since inclusive, until exclusive"
    );
    assert_eq!(list(&ports, &org.id, all(2)).await, [d, c]);
    let next = InboundQuery {
        before: Some(c),
        ..all(2)
    };
    assert_eq!(
        list(&ports, &org.id, next).await,
        [b, a],
        "the cursor continues after its id"
    );
}

/// One message reads back only in its organization; reading marks the time once, and another
/// organization cannot mark it.
pub async fn inbound_get_and_read_are_scoped(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let (other, _) = new_organization_with_sender(&ports, "starter").await;
    let id = record(
        &ports,
        &sender,
        message(&sender, "wamid.R", "+15557654321", at(10), text("hi"), "text"),
    )
    .await;
    let view = get(&ports, &org.id, &id).await.expect("reads back");
    assert_eq!(view.network_message_id, "wamid.R");
    assert_eq!(view.sender_id, sender.id);
    assert_eq!(view.read_at, None);
    assert!(json_of(&view).get("read_at").is_none());
    assert_eq!(json_of(&view)["text"], json!({ "body": "hi" }));
    assert!(
        get(&ports, &other.id, &id).await.is_none(),
        "another organization's id is unknown"
    );
    assert!(
        ports
            .inbound
            .mark_inbound_read(&other.id, &id, at(20))
            .await
            .expect("mark_inbound_read")
            .is_none()
    );
    let read = ports
        .inbound
        .mark_inbound_read(&org.id, &id, at(30))
        .await
        .expect("mark_inbound_read")
        .expect("its own message");
    assert_eq!(read.read_at, Some(at(30)));
    assert_eq!(
        json_of(&read)["read_at"],
        at(30)
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
            .as_str()
    );
    let again = ports
        .inbound
        .mark_inbound_read(&org.id, &id, at(40))
        .await
        .expect("mark_inbound_read")
        .expect("its own message");
    assert_eq!(again.read_at, Some(at(30)), "the first read stays");
}

/// The webhook field a message came on and whether it is an echo are kept on the resource and its event;
/// an echo (the business side's own message) opens no service window, the customer's message on another
/// field does.
pub async fn inbound_keeps_its_source_and_an_echo_opens_no_window(ports: Ports) {
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let customer = "+15557654321";
    let window = || async {
        ports
            .windows
            .window(&org.id, &sender.id, &phone(customer).into())
            .await
            .expect("window")
    };
    let echo = InboundMessage {
        source_field: SourceField::SmbMessageEchoes,
        echo: true,
        ..message(
            &sender,
            "wamid.ECHO",
            customer,
            at(100),
            text("our hours changed"),
            "text",
        )
    };
    let echo_id = record(&ports, &sender, echo).await;
    assert!(window().await.is_none(), "an echo opens no window");
    let standby = InboundMessage {
        source_field: SourceField::Standby,
        ..message(
            &sender,
            "wamid.STANDBY",
            customer,
            at(200),
            text("hello?"),
            "text",
        )
    };
    let standby_id = record(&ports, &sender, standby).await;
    assert_eq!(window().await.map(|w| w.last_inbound_at), Some(at(200)));

    let echo_json = json_of(&get(&ports, &org.id, &echo_id).await.expect("the echo"));
    assert_eq!(echo_json["source_field"], "smb_message_echoes");
    assert_eq!(echo_json["echo"], true);
    assert_eq!(echo_json["from"], customer);
    let standby_json = json_of(&get(&ports, &org.id, &standby_id).await.expect("the message"));
    assert_eq!(standby_json["source_field"], "standby");
    assert_eq!(standby_json["echo"], false);
    let events: Vec<Value> = events_of(&ports, &org)
        .await
        .iter()
        .map(|event| payload(event)["data"].clone())
        .collect();
    let event = |id: &InboundId| {
        events
            .iter()
            .find(|data| data["id"] == id.to_string())
            .cloned()
            .expect("its event")
    };
    assert_eq!(event(&echo_id)["source_field"], "smb_message_echoes");
    assert_eq!(event(&echo_id)["echo"], true);
    assert_eq!(event(&standby_id)["source_field"], "standby");
}
