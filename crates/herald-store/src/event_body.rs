//! The wire format of customer events (docs/api.md §9), defined once: the JSON body of a domain
//! [`CustomerEvent`], built in the transaction that records the event, so what a customer receives is
//! exactly what was recorded at that moment.

mod broadcast;
mod contact;
mod notice;

pub(crate) use broadcast::broadcast_body;
pub(crate) use contact::{erased_body, preference_body, scrubbed_body};
pub(crate) use notice::notice_body;

use chrono::SecondsFormat;
use herald_domain::Timestamp;
use herald_domain::customer_event::CustomerEventType;
use herald_domain::customer_event::{CustomerEvent, EventBody, InboundBody, StatusBody};
use herald_domain::network::InboundContent;
use serde_json::{Map, Value, json};

/// RFC 3339 in UTC with milliseconds and `Z`, the one time format of event bodies.
fn event_time(at: Timestamp) -> String {
    at.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// The JSON body of `event`, as it is stored and delivered.
pub(crate) fn event_body(event: &CustomerEvent) -> Value {
    let event_type = event.event_type();
    let data = match &event.body {
        EventBody::Status(body) => status_data(event, body),
        EventBody::Inbound(body) => Value::Object(inbound_data(event, body)),
    };
    json!({
        "type": event_type.as_str(),
        "timestamp": event_time(event.recorded_at),
        "data": data,
    })
}

/// The `data` of `message.status` and `message.failed`.
fn status_data(event: &CustomerEvent, body: &StatusBody) -> Value {
    let mut data = json!({
        "message_id": event.message_id.to_string(),
        "status": body.status.as_str(),
        "previous_status": body.previous_status.map(|s| s.as_str()),
        "to": body.to.as_str(),
        "from": body.from.as_str(),
        "client_reference": body.client_reference.as_ref().map(|r| r.as_str()),
        "network_message_id": body.network_message_id,
        "occurred_at": event_time(event.occurred_at),
        "sequence": event.sequence,
    });
    if let (Some(pricing), Some(fields)) = (&body.pricing, data.as_object_mut()) {
        // The message resource's shape (docs/api.md §5), absent until the network priced the message.
        fields.insert(
            "pricing".to_owned(),
            json!({
                "model": pricing.model.as_ref().map(|w| w.as_str()),
                "category": pricing.category.as_ref().map(|w| w.as_str()),
                "type": pricing.kind.as_ref().map(|w| w.as_str()),
                "billable": pricing.billable,
            }),
        );
    }
    if event.event_type() == CustomerEventType::MessageFailed
        && let (Some(error), Some(fields)) = (&body.error, data.as_object_mut())
    {
        fields.insert(
            "error".to_owned(),
            json!({
                "code": error.code,
                "title": error.title,
                "detail": error.detail,
                "network_code": error.network_code,
            }),
        );
    }
    data
}

/// The `data` of `message.inbound`.
fn inbound_data(event: &CustomerEvent, body: &InboundBody) -> Map<String, Value> {
    inbound_object(&event.message_id.to_string(), body, event.occurred_at)
}

/// An inbound message as JSON: the `data` of its `message.inbound` event and the body of its resource
/// (`GET /api/v1/inbound/{id}`, which adds `from_name` and `read_at`), written here only, so the two agree.
/// Each kind's object follows Meta's own shape, with Herald's ids where Herald has them.
pub(crate) fn inbound_object(id: &str, body: &InboundBody, received_at: Timestamp) -> Map<String, Value> {
    let mut data = Map::new();
    data.insert("id".to_owned(), json!(id));
    data.insert("from".to_owned(), json!(body.from.as_str()));
    if let Some(user_id) = &body.from_user_id {
        data.insert("from_user_id".to_owned(), json!(user_id.as_str()));
    }
    data.insert("to".to_owned(), json!(body.to.as_str()));
    data.insert("type".to_owned(), json!(body.message_type));
    let (key, object) = kind_object(body);
    data.insert(key.to_owned(), object);
    data.insert("received_at".to_owned(), json!(event_time(received_at)));
    data.insert(
        "context".to_owned(),
        body.context_message_id.as_ref().map_or(Value::Null, |wamid| {
            json!({
                "message_id": body.links.context.map(|id| id.to_string()),
                "network_message_id": wamid,
            })
        }),
    );
    if let Some(referral) = &body.referral {
        data.insert("referral".to_owned(), json_text(referral));
    }
    data.insert("source_field".to_owned(), json!(body.source_field.as_str()));
    data.insert("echo".to_owned(), json!(body.echo));
    data
}

/// JSON the network sent, kept as text; text that is somehow not JSON goes out as a string, never lost.
fn json_text(text: &str) -> Value {
    serde_json::from_str::<Value>(text).unwrap_or_else(|_| json!(text))
}

/// Adds `key` to `object` when there is a value.
fn put(object: &mut Map<String, Value>, key: &str, value: Option<&String>) {
    if let Some(value) = value {
        object.insert(key.to_owned(), json!(value));
    }
}

/// The key and object that carry what the message says.
fn kind_object(body: &InboundBody) -> (&'static str, Value) {
    match &body.content {
        InboundContent::Text { body } => ("text", json!({ "body": body })),
        InboundContent::Media {
            mime_type,
            sha256,
            caption,
            filename,
            voice,
            animated,
            ..
        } => {
            // Herald's own `med_` id names the file (`GET /api/v1/media/{id}/content`); the network's id
            // stays inside Herald. The kind is `type`.
            let mut media = json!({
                "id": body.media_id.map(|id| id.to_string()),
                "mime_type": mime_type,
                "sha256": sha256,
                "caption": caption,
                "filename": filename,
            });
            if let Some(fields) = media.as_object_mut() {
                if let Some(voice) = voice {
                    fields.insert("voice".to_owned(), json!(voice));
                }
                if let Some(animated) = animated {
                    fields.insert("animated".to_owned(), json!(animated));
                }
            }
            ("media", media)
        }
        InboundContent::Location {
            latitude,
            longitude,
            name,
            address,
            url,
        } => {
            let mut location = Map::new();
            location.insert("latitude".to_owned(), json_text(latitude));
            location.insert("longitude".to_owned(), json_text(longitude));
            put(&mut location, "name", name.as_ref());
            put(&mut location, "address", address.as_ref());
            put(&mut location, "url", url.as_ref());
            ("location", Value::Object(location))
        }
        InboundContent::Contacts { cards_json } => ("contacts", json_text(cards_json)),
        InboundContent::Reaction {
            network_message_id,
            emoji,
        } => (
            "reaction",
            json!({
                "message_id": body.links.reaction.map(|id| id.to_string()),
                "network_message_id": network_message_id,
                "emoji": emoji,
            }),
        ),
        InboundContent::ButtonReply { id, title } => (
            "interactive",
            json!({ "type": "button_reply", "button_reply": { "id": id, "title": title } }),
        ),
        InboundContent::ListReply {
            id,
            title,
            description,
        } => {
            let mut reply = Map::new();
            reply.insert("id".to_owned(), json!(id));
            reply.insert("title".to_owned(), json!(title));
            put(&mut reply, "description", description.as_ref());
            (
                "interactive",
                json!({ "type": "list_reply", "list_reply": reply }),
            )
        }
        InboundContent::FlowReply {
            name,
            body: flow_body,
            response_json,
        } => {
            let mut reply = Map::new();
            put(&mut reply, "name", name.as_ref());
            put(&mut reply, "body", flow_body.as_ref());
            // Meta's form: the answer is a JSON document inside a string.
            reply.insert("response_json".to_owned(), json!(response_json));
            ("interactive", json!({ "type": "nfm_reply", "nfm_reply": reply }))
        }
        InboundContent::QuickReply { payload, text } => {
            ("button", json!({ "payload": payload, "text": text }))
        }
        InboundContent::Order { order_json } => ("order", json_text(order_json)),
        InboundContent::System {
            body: system_body,
            system_type,
            wa_id,
        } => {
            let mut system = Map::new();
            put(&mut system, "body", system_body.as_ref());
            put(&mut system, "type", system_type.as_ref());
            put(&mut system, "wa_id", wa_id.as_ref());
            ("system", Value::Object(system))
        }
        // Kinds Herald does not model reach the customer as the network sent them, never dropped.
        InboundContent::Other => ("raw", json_text(&body.raw)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use herald_domain::customer_event::InboundRecord;
    use herald_domain::customer_event::{InboundLinks, inbound, status_changed};
    use herald_domain::ids::{EventId, InboundId, MediaId, MessageId, OrganizationId, SenderId};
    use herald_domain::message::{Message, MessageContent, MessageError, MessageStatus};
    use herald_domain::network::InboundMessage;
    use herald_domain::organization::NetworkRef;
    use herald_domain::values::{MessageText, PhoneNumber};
    use ulid::Ulid;

    fn at(micros: i64) -> Timestamp {
        chrono::DateTime::from_timestamp_micros(micros).unwrap()
    }

    #[test]
    fn failed_event_carries_the_error_and_millisecond_times() {
        let mut message = Message::accepted(
            MessageId::from_ulid(Ulid::from_parts(1, 1)),
            OrganizationId::from_ulid(Ulid::from_parts(1, 2)),
            (
                SenderId::from_ulid(Ulid::from_parts(1, 3)),
                PhoneNumber::parse("+15550001111").unwrap(),
            ),
            PhoneNumber::parse("+15551234567").unwrap(),
            MessageContent::Text {
                body: MessageText::parse("hi").unwrap(),
                preview_url: false,
            },
            None,
            at(1_700_000_000_000_000),
        );
        message.status = MessageStatus::Failed;
        message.error = Some(MessageError {
            code: "recipient_unreachable".into(),
            title: "Unreachable".into(),
            detail: "x".into(),
            network_code: Some(131_026),
        });
        let body = event_body(&status_changed(
            EventId::from_ulid(Ulid::from_parts(1, 4)),
            &message,
            MessageStatus::Sent,
            at(1_700_000_000_123_456),
            2,
            at(1_700_000_001_000_000),
        ));
        assert_eq!(body["type"], "message.failed");
        assert_eq!(body["timestamp"], "2023-11-14T22:13:21.000Z");
        assert_eq!(body["data"]["occurred_at"], "2023-11-14T22:13:20.123Z");
        assert_eq!(body["data"]["previous_status"], "sent");
        assert_eq!(body["data"]["client_reference"], Value::Null);
        assert_eq!(body["data"]["sequence"], 2);
        assert_eq!(body["data"]["error"]["network_code"], 131_026);
    }

    #[test]
    fn inbound_of_an_unmodelled_kind_keeps_the_raw_object() {
        let record = InboundRecord {
            id: InboundId::from_ulid(Ulid::from_parts(1, 1)),
            organization_id: OrganizationId::from_ulid(Ulid::from_parts(1, 2)),
            sender_id: SenderId::from_ulid(Ulid::from_parts(1, 3)),
            message: InboundMessage {
                phone_number_id: NetworkRef::parse("123").unwrap(),
                network_message_id: "wamid.A".into(),
                from: PhoneNumber::parse("+15551234567").unwrap().into(),
                from_user_id: None,
                from_name: None,
                received_at: at(1_700_000_000_000_000),
                message_type: "reaction".into(),
                content: InboundContent::Other,
                context_message_id: Some("wamid.B".into()),
                referral: None,
                raw: r#"{"reaction":{"emoji":"👍"}}"#.into(),
                source_field: herald_domain::network::SourceField::Messages,
                echo: false,
            },
            media_id: None,
            customer_event_id: EventId::from_ulid(Ulid::from_parts(1, 4)),
            recorded_at: at(1_700_000_000_000_000),
        };
        let body = event_body(&inbound(
            &record,
            &PhoneNumber::parse("+15550001111").unwrap(),
            InboundLinks::default(),
        ));
        assert_eq!(body["type"], "message.inbound");
        assert_eq!(body["data"]["to"], "+15550001111");
        assert_eq!(body["data"]["raw"]["reaction"]["emoji"], "👍");
        assert_eq!(
            body["data"]["context"],
            json!({ "message_id": null, "network_message_id": "wamid.B" })
        );
        assert!(body["data"].get("text").is_none());
    }

    #[test]
    fn inbound_media_is_named_by_its_herald_id() {
        let media_id = MediaId::from_ulid(Ulid::from_parts(1, 5));
        let record = InboundRecord {
            id: InboundId::from_ulid(Ulid::from_parts(1, 1)),
            organization_id: OrganizationId::from_ulid(Ulid::from_parts(1, 2)),
            sender_id: SenderId::from_ulid(Ulid::from_parts(1, 3)),
            message: InboundMessage {
                phone_number_id: NetworkRef::parse("123").unwrap(),
                network_message_id: "wamid.A".into(),
                from: PhoneNumber::parse("+15551234567").unwrap().into(),
                from_user_id: None,
                from_name: None,
                received_at: at(1_700_000_000_000_000),
                message_type: "document".into(),
                content: InboundContent::Media {
                    kind: "document".into(),
                    network_media_id: "987654".into(),
                    mime_type: Some("application/pdf".into()),
                    sha256: Some("c0ffee".into()),
                    caption: Some("the contract".into()),
                    filename: Some("contract.pdf".into()),
                    voice: None,
                    animated: None,
                },
                context_message_id: None,
                referral: None,
                raw: "{}".into(),
                source_field: herald_domain::network::SourceField::Messages,
                echo: false,
            },
            media_id: Some(media_id),
            customer_event_id: EventId::from_ulid(Ulid::from_parts(1, 4)),
            recorded_at: at(1_700_000_000_000_000),
        };
        let body = event_body(&inbound(
            &record,
            &PhoneNumber::parse("+15550001111").unwrap(),
            InboundLinks::default(),
        ));
        assert_eq!(body["data"]["type"], "document");
        assert_eq!(
            body["data"]["media"],
            json!({
                "id": media_id.to_string(),
                "mime_type": "application/pdf",
                "sha256": "c0ffee",
                "caption": "the contract",
                "filename": "contract.pdf",
            })
        );
    }
}
