//! The wire format of customer events (docs/api.md §9), defined once: the JSON body of a domain
//! [`CustomerEvent`], built in the transaction that records the event, so what a customer receives is
//! exactly what was recorded at that moment.

use chrono::SecondsFormat;
use herald_domain::Timestamp;
use herald_domain::customer_event::{CustomerEvent, EventBody, InboundBody, StatusBody};
use herald_domain::dispatch::CustomerEventType;
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
        "previous_status": body.previous_status.as_str(),
        "to": body.to.as_str(),
        "from": body.from.as_str(),
        "client_reference": body.client_reference.as_ref().map(|r| r.as_str()),
        "network_message_id": body.network_message_id,
        "occurred_at": event_time(event.occurred_at),
        "sequence": event.sequence,
    });
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
    let mut data = Map::new();
    data.insert("id".to_owned(), json!(event.message_id.to_string()));
    data.insert("from".to_owned(), json!(body.from.as_str()));
    data.insert("to".to_owned(), json!(body.to.as_str()));
    data.insert("type".to_owned(), json!(body.message_type));
    match &body.content {
        InboundContent::Text { body } => {
            data.insert("text".to_owned(), json!({ "body": body }));
        }
        InboundContent::Media {
            mime_type,
            sha256,
            caption,
            filename,
            ..
        } => {
            // Herald's own `med_` id names the file (`GET /api/v1/media/{id}/content`); the network's id
            // stays inside Herald. The kind is `type`.
            data.insert(
                "media".to_owned(),
                json!({
                    "id": body.media_id.map(|id| id.to_string()),
                    "mime_type": mime_type,
                    "sha256": sha256,
                    "caption": caption,
                    "filename": filename,
                }),
            );
        }
        InboundContent::Other => {
            // Kinds Herald does not model reach the customer as the network sent them, never dropped.
            let raw = serde_json::from_str::<Value>(&body.raw).unwrap_or_else(|_| json!(body.raw));
            data.insert("raw".to_owned(), raw);
        }
    }
    data.insert("received_at".to_owned(), json!(event_time(event.occurred_at)));
    data.insert(
        "context".to_owned(),
        body.context_message_id
            .as_ref()
            .map_or(Value::Null, |id| json!({ "message_id": id })),
    );
    data
}

#[cfg(test)]
mod tests {
    use super::*;
    use herald_domain::customer_event::{inbound, status_changed};
    use herald_domain::dispatch::InboundRecord;
    use herald_domain::ids::{EventId, MediaId, MessageId, OrganizationId, SenderId};
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
            id: MessageId::from_ulid(Ulid::from_parts(1, 1)),
            organization_id: OrganizationId::from_ulid(Ulid::from_parts(1, 2)),
            sender_id: SenderId::from_ulid(Ulid::from_parts(1, 3)),
            message: InboundMessage {
                phone_number_id: NetworkRef::parse("123").unwrap(),
                network_message_id: "wamid.A".into(),
                from: PhoneNumber::parse("+15551234567").unwrap(),
                from_name: None,
                received_at: at(1_700_000_000_000_000),
                message_type: "reaction".into(),
                content: InboundContent::Other,
                context_message_id: Some("wamid.B".into()),
                raw: r#"{"reaction":{"emoji":"👍"}}"#.into(),
            },
            media_id: None,
            customer_event_id: EventId::from_ulid(Ulid::from_parts(1, 4)),
            recorded_at: at(1_700_000_000_000_000),
        };
        let body = event_body(&inbound(&record, &PhoneNumber::parse("+15550001111").unwrap()));
        assert_eq!(body["type"], "message.inbound");
        assert_eq!(body["data"]["to"], "+15550001111");
        assert_eq!(body["data"]["raw"]["reaction"]["emoji"], "👍");
        assert_eq!(body["data"]["context"]["message_id"], "wamid.B");
        assert!(body["data"].get("text").is_none());
    }

    #[test]
    fn inbound_media_is_named_by_its_herald_id() {
        let media_id = MediaId::from_ulid(Ulid::from_parts(1, 5));
        let record = InboundRecord {
            id: MessageId::from_ulid(Ulid::from_parts(1, 1)),
            organization_id: OrganizationId::from_ulid(Ulid::from_parts(1, 2)),
            sender_id: SenderId::from_ulid(Ulid::from_parts(1, 3)),
            message: InboundMessage {
                phone_number_id: NetworkRef::parse("123").unwrap(),
                network_message_id: "wamid.A".into(),
                from: PhoneNumber::parse("+15551234567").unwrap(),
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
                },
                context_message_id: None,
                raw: "{}".into(),
            },
            media_id: Some(media_id),
            customer_event_id: EventId::from_ulid(Ulid::from_parts(1, 4)),
            recorded_at: at(1_700_000_000_000_000),
        };
        let body = event_body(&inbound(&record, &PhoneNumber::parse("+15550001111").unwrap()));
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
