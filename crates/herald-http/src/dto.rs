//! Wire types: the resources Herald answers with (docs/api.md §5, §7) and the documented shapes of the send
//! bodies. Send bodies are converted by hand (`send_body`), so their types here only describe them in the
//! OpenAPI document.

use herald_domain::Timestamp;
use herald_domain::attachment::MediaSource;
use herald_domain::message::{Message, MessageContent, MessageError, StatusEvent};
use herald_domain::usecases::WindowView;
use serde::Serialize;
use std::collections::BTreeMap;
use utoipa::{IntoParams, ToSchema};

mod broadcast;
pub use broadcast::*;
mod contact;
pub use contact::{ContactResource, ErasureResource, KeywordRuleResource};
mod inbound;
pub use inbound::{
    InboundContextResource, InboundListQuery, InboundPageResource, InboundReadRequest, InboundResource,
};
mod kinds;
pub use kinds::*;
mod pricing;
pub use pricing::*;
mod template_definition;
pub use template_definition::*;

/// RFC 3339 in UTC with milliseconds and `Z`: `2026-11-21T10:15:30.123Z`.
pub(crate) fn time(at: Timestamp) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

pub(crate) fn time_opt(at: Option<Timestamp>) -> Option<String> {
    at.map(time)
}

/// A message and where it stands (docs/api.md §5).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct MessageResource {
    #[schema(example = "msg_01JD0000000000000000000000")]
    pub id: String,
    /// `scheduled`, `accepted`, `submitted`, `sent`, `delivered`, `read`, `failed` or `cancelled`.
    #[schema(example = "accepted")]
    pub status: String,
    /// The recipient as the send named it: an E.164 number or a business-scoped user id.
    #[schema(example = "+15551234567")]
    pub to: String,
    #[schema(example = "+15550001111")]
    pub from: String,
    /// `text`, `template`, `document`, `image`, `video`, `audio`, `sticker`, `interactive`, `reaction`,
    /// `location` or `contacts`.
    #[serde(rename = "type")]
    #[schema(example = "template")]
    pub type_: String,
    pub template: Option<TemplateRefResource>,
    /// The body of a text message.
    pub text: Option<String>,
    pub caption: Option<String>,
    pub media: Option<MediaResource>,
    /// An interactive message, in Meta's shape.
    pub interactive: Option<InteractiveObject>,
    /// A reaction: the message reacted to and the emoji.
    pub reaction: Option<ReactionResource>,
    pub location: Option<LocationObject>,
    pub contacts: Option<Vec<ContactObject>>,
    /// The message of the conversation this one replies to (`msg_…` or `inb_…`).
    pub reply_to: Option<String>,
    pub client_reference: Option<String>,
    /// The network's id (`wamid…`) once submitted.
    pub network_message_id: Option<String>,
    pub error: Option<MessageErrorResource>,
    /// When a scheduled message is (or was) due to be sent; `null` for a message sent at once.
    #[schema(format = DateTime)]
    pub send_at: Option<String>,
    /// The broadcast it belongs to (`brd_…`); `null` for a single send.
    #[schema(example = json!(null))]
    pub broadcast_id: Option<String>,
    /// A marketing template's send path as asked (`auto`, `cloud_api` or `marketing_messages`, docs/api.md
    /// §4.11); `null` for every other message, which goes on the Cloud API.
    #[schema(example = json!(null))]
    pub marketing_route: Option<String>,
    /// The path the message went out on once submitted: `cloud_api` or `marketing_messages`.
    #[schema(example = json!(null))]
    pub route: Option<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
    pub timestamps: TimestampsResource,
    /// The network's pricing, once a status report carried it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pricing: Option<PricingResource>,
    /// What the organization's rate card says the message costs, when a rate applies to its category.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_cost: Option<CostResource>,
}

/// Names a template in one language.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct TemplateRefResource {
    #[schema(example = "order_shipped")]
    pub name: String,
    #[schema(example = "en_US")]
    pub language: String,
}

/// The file of a media message.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct MediaResource {
    /// `document`, `image`, `video`, `audio` or `sticker`.
    #[serde(rename = "type")]
    pub type_: String,
    /// The uploaded file (`med_…`), when it came from an upload.
    pub id: Option<String>,
    /// The public URL the network fetches, when given by link.
    pub link: Option<String>,
    /// Documents only.
    pub filename: Option<String>,
}

/// Why a message failed.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct MessageErrorResource {
    #[schema(example = "recipient_unreachable")]
    pub code: String,
    pub title: String,
    pub detail: String,
    /// The network's own error code, when it gave one.
    #[schema(example = 131026)]
    pub network_code: Option<i64>,
}

/// When each status was reached.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct TimestampsResource {
    /// When a scheduled message was accepted (and counted); such a message has no `accepted` time.
    #[schema(format = DateTime)]
    pub scheduled: Option<String>,
    #[schema(format = DateTime)]
    pub accepted: Option<String>,
    #[schema(format = DateTime)]
    pub submitted: Option<String>,
    #[schema(format = DateTime)]
    pub sent: Option<String>,
    #[schema(format = DateTime)]
    pub delivered: Option<String>,
    #[schema(format = DateTime)]
    pub read: Option<String>,
    #[schema(format = DateTime)]
    pub failed: Option<String>,
    #[schema(format = DateTime)]
    pub cancelled: Option<String>,
}

impl From<&MessageError> for MessageErrorResource {
    fn from(error: &MessageError) -> Self {
        Self {
            code: error.code.clone(),
            title: error.title.clone(),
            detail: error.detail.clone(),
            network_code: error.network_code,
        }
    }
}

impl From<&Message> for MessageResource {
    fn from(message: &Message) -> Self {
        let (template, text, caption, media) = match &message.content {
            MessageContent::Text { body, .. } => (None, Some(body.as_str().to_owned()), None, None),
            MessageContent::Template { template, .. } => (
                Some(TemplateRefResource {
                    name: template.name.as_str().to_owned(),
                    language: template.language.as_str().to_owned(),
                }),
                None,
                None,
                None,
            ),
            MessageContent::Media { media, caption } => {
                let (id, link) = match &media.source {
                    MediaSource::Stored(id) => (Some(id.to_string()), None),
                    MediaSource::Link(link) => (None, Some(link.as_str().to_owned())),
                    // Replaced by `Stored` before a message exists.
                    MediaSource::Upload => (None, None),
                };
                (
                    None,
                    None,
                    caption.as_ref().map(|c| c.as_str().to_owned()),
                    Some(MediaResource {
                        type_: media.kind.as_str().to_owned(),
                        id,
                        link,
                        filename: media.filename.as_ref().map(|f| f.as_str().to_owned()),
                    }),
                )
            }
            MessageContent::Interactive(_)
            | MessageContent::Reaction(_)
            | MessageContent::Location(_)
            | MessageContent::Contacts(_)
            | MessageContent::Erased(_) => (None, None, None, None),
        };
        let content = &message.content;
        let stamps = &message.timestamps;
        Self {
            id: message.id.to_string(),
            status: message.status.as_str().to_owned(),
            to: message.to.as_str().to_owned(),
            from: message.from.as_str().to_owned(),
            type_: message.content.message_type().as_str().to_owned(),
            template,
            text,
            caption,
            media,
            interactive: match content {
                MessageContent::Interactive(interactive) => Some(interactive.into()),
                _ => None,
            },
            reaction: match content {
                MessageContent::Reaction(reaction) => Some(reaction.into()),
                _ => None,
            },
            location: match content {
                MessageContent::Location(location) => Some(location.into()),
                _ => None,
            },
            contacts: match content {
                MessageContent::Contacts(cards) => Some(cards.iter().map(ContactObject::from).collect()),
                _ => None,
            },
            reply_to: message.reply_to.as_ref().map(|target| target.message.to_string()),
            client_reference: message.client_reference.as_ref().map(|r| r.as_str().to_owned()),
            network_message_id: message.network_message_id.clone(),
            error: message.error.as_ref().map(MessageErrorResource::from),
            send_at: time_opt(message.send_at),
            broadcast_id: message.broadcast_id.map(|id| id.to_string()),
            marketing_route: message.marketing.map(|m| m.route.as_str().to_owned()),
            route: message.route.map(|route| route.as_str().to_owned()),
            created_at: time(message.created_at),
            updated_at: time(message.updated_at),
            timestamps: TimestampsResource {
                scheduled: time_opt(stamps.scheduled),
                accepted: time_opt(stamps.accepted),
                submitted: time_opt(stamps.submitted),
                sent: time_opt(stamps.sent),
                delivered: time_opt(stamps.delivered),
                read: time_opt(stamps.read),
                failed: time_opt(stamps.failed),
                cancelled: time_opt(stamps.cancelled),
            },
            pricing: message.pricing.as_ref().map(PricingResource::from),
            estimated_cost: None,
        }
    }
}

/// A page of the message log, newest first.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct MessagePageResource {
    pub data: Vec<MessageResource>,
    /// Pass as `cursor` for the next page; `null` on the last page.
    pub next_cursor: Option<String>,
}

/// One entry of a message's status history.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct EventResource {
    #[schema(example = "evt_01JD0000000000000000000000")]
    pub id: String,
    pub status: String,
    /// The status before this event, when it was applied.
    pub previous_status: Option<String>,
    /// Whether it changed the message (late and duplicate reports are recorded, not applied).
    pub applied: bool,
    /// `herald` or `network`.
    pub source: String,
    pub error: Option<MessageErrorResource>,
    #[schema(format = DateTime)]
    pub occurred_at: String,
    #[schema(format = DateTime)]
    pub recorded_at: String,
}

impl From<&StatusEvent> for EventResource {
    fn from(event: &StatusEvent) -> Self {
        Self {
            id: event.id.to_string(),
            status: event.status.as_str().to_owned(),
            previous_status: event.previous_status.map(|s| s.as_str().to_owned()),
            applied: event.applied,
            source: event.source.as_str().to_owned(),
            error: event.error.as_ref().map(MessageErrorResource::from),
            occurred_at: time(event.occurred_at),
            recorded_at: time(event.recorded_at),
        }
    }
}

/// A message's status history, oldest first.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct EventListResource {
    pub data: Vec<EventResource>,
}

/// Whether free-form messages to a number may go now (docs/api.md §7).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct WindowResource {
    #[schema(example = "+15551234567")]
    pub number: String,
    #[schema(example = "+15550001111")]
    pub from: String,
    pub open: bool,
    #[schema(format = DateTime)]
    pub last_inbound_at: Option<String>,
    #[schema(format = DateTime)]
    pub expires_at: Option<String>,
}

impl From<&WindowView> for WindowResource {
    fn from(view: &WindowView) -> Self {
        Self {
            number: view.number.as_str().to_owned(),
            from: view.from.as_str().to_owned(),
            open: view.open,
            last_inbound_at: time_opt(view.last_inbound_at),
            expires_at: time_opt(view.expires_at),
        }
    }
}

/// `{"status": "ok"}`.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct HealthResource {
    #[schema(example = "ok")]
    pub status: String,
}

// ---- documented request shapes -------------------------------------------------------------------

/// `POST /api/v1/messages/send-text`, and the text form of send-template.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({"to": "+15551234567", "message": "Hi", "preview_url": false}))]
pub struct SendTextRequest {
    /// E.164 (`+` then 8 to 15 digits, the first not 0) or a business-scoped user id (`US.1349…`).
    pub to: String,
    /// Leave out, or `text`.
    #[serde(rename = "type")]
    pub type_: Option<String>,
    /// 1 to 4096 characters.
    pub message: String,
    pub preview_url: Option<bool>,
    /// The sender number (E.164) when the organization has several.
    pub from: Option<String>,
    /// Your own id, up to 128 characters, echoed in the resource and every event.
    pub client_reference: Option<String>,
    /// The message of the conversation this one replies to: a `msg_…` or `inb_…` id (sent as Meta's
    /// `context`).
    pub reply_to: Option<String>,
}

/// `POST /api/v1/messages/send-file` with a JSON body: a file uploaded before or hosted elsewhere.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({"to": "+15551234567", "media_id": "med_01JD0000000000000000000000", "caption": "Your invoice"}))]
pub struct SendFileRequest {
    /// E.164 (`+` then 8 to 15 digits, the first not 0) or a business-scoped user id (`US.1349…`).
    pub to: String,
    /// An upload of this organization (`POST /api/v1/media`); its kind is the upload's. Either this or
    /// `link`.
    pub media_id: Option<String>,
    /// An absolute `https://` URL the network fetches itself. Either this or `media_id`.
    pub link: Option<String>,
    /// `document`, `image`, `video`, `audio` or `sticker`: required with `link`; with `media_id`, the
    /// upload's kind.
    #[serde(rename = "type")]
    pub type_: Option<String>,
    /// 1 to 1024 characters; not for audio or stickers.
    pub caption: Option<String>,
    /// Documents only: the name the recipient sees (default: the upload's file name).
    pub filename: Option<String>,
    /// The sender number (E.164) when the organization has several.
    pub from: Option<String>,
    /// Your own id, up to 128 characters, echoed in the resource and every event.
    pub client_reference: Option<String>,
    /// The message of the conversation this one replies to: a `msg_…` or `inb_…` id (sent as Meta's
    /// `context`).
    pub reply_to: Option<String>,
}

/// `POST /api/v1/messages/send-template`: a template message, or a text message with `"type": "text"`
/// (then `message` and `preview_url` as in send-text, and no `template`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({
    "to": "+15551234567",
    "type": "template",
    "template": {"name": "order_shipped", "language": "en_US"},
    "variables": {
        "header": {"type": "text", "values": ["#1234"]},
        "body": ["Ana", "#1234", "Friday"],
        "buttons": [{"index": 0, "sub_type": "url", "values": ["track/1234"]}]
    }
}))]
pub struct SendTemplateRequest {
    pub to: String,
    /// `template` (may be left out when `template` is given) or `text`.
    #[serde(rename = "type")]
    pub type_: Option<String>,
    /// Required for template messages.
    pub template: Option<TemplateRefRequest>,
    pub variables: Option<TemplateVariablesRequest>,
    /// Text form only.
    pub message: Option<String>,
    /// Text form only.
    pub preview_url: Option<bool>,
    pub from: Option<String>,
    pub client_reference: Option<String>,
    /// A `msg_…` or `inb_…` id of this conversation.
    pub reply_to: Option<String>,
    /// A marketing template's send path (docs/api.md §4.11): `auto` (the default: the Marketing Messages
    /// API when the business has accepted its terms, else the Cloud API), `cloud_api` or
    /// `marketing_messages` (only that API; refused with 422 for any message but a marketing template).
    #[schema(example = "auto")]
    pub marketing_route: Option<String>,
    /// Meta's `message_activity_sharing` on the Marketing Messages API; marketing templates only.
    pub message_activity_sharing: Option<bool>,
}

/// The template to send.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TemplateRefRequest {
    pub name: String,
    pub language: String,
}

/// The template's variables: the full form, or a shorthand for the body (an array: positional; an
/// object of strings whose keys are not only `header`/`body`/`buttons`: named).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(untagged)]
#[allow(
    dead_code,
    reason = "describes the body in the OpenAPI document; bodies are parsed by hand"
)]
pub enum TemplateVariablesRequest {
    Full(FullVariablesRequest),
    Positional(Vec<String>),
    Named(BTreeMap<String, String>),
}

/// The full variables form.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct FullVariablesRequest {
    pub header: Option<HeaderVariablesRequest>,
    pub body: Option<BodyVariablesRequest>,
    pub buttons: Option<Vec<ButtonVariablesRequest>>,
}

/// Body values: in order, or by name.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(untagged)]
#[allow(
    dead_code,
    reason = "describes the body in the OpenAPI document; bodies are parsed by hand"
)]
pub enum BodyVariablesRequest {
    Positional(Vec<String>),
    Named(BTreeMap<String, String>),
}

/// The header's value: `{"type": "text", "values": [...]}`, or a file by `media_id` (an upload) or `link`
/// for document, image and video headers.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct HeaderVariablesRequest {
    /// `text`, `document`, `image` or `video`.
    #[serde(rename = "type")]
    pub type_: String,
    /// Text headers: exactly one value.
    pub values: Option<Vec<String>>,
    /// Media headers: an upload (`med_…`, `POST /api/v1/media`) of the header's kind.
    pub media_id: Option<String>,
    /// Media headers: a public `https://` URL of the file.
    pub link: Option<String>,
    /// Document headers: the name the recipient sees.
    pub filename: Option<String>,
}

/// Values of one button.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ButtonVariablesRequest {
    /// The button's zero-based position in the template (0 to 9).
    pub index: u8,
    /// `url`, `quick_reply`, `copy_code` or `flow`.
    pub sub_type: String,
    pub values: Option<Vec<String>>,
}

/// Filters of the message log. `to` must be URL-encoded (`%2B…`): a literal `+` in a query is a space.
#[derive(Debug, Clone, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code, reason = "documents the query string, which is parsed by hand")]
pub struct MessageListQuery {
    /// `scheduled`, `accepted`, `submitted`, `sent`, `delivered`, `read`, `failed` or `cancelled`.
    pub status: Option<String>,
    /// The recipient as the send named them: E.164 (URL-encoded) or a business-scoped user id.
    pub to: Option<String>,
    /// `text`, `template`, `document`, `image`, `video`, `audio`, `sticker`, `interactive`, `reaction`,
    /// `location` or `contacts`.
    #[param(rename = "type")]
    pub type_: Option<String>,
    pub client_reference: Option<String>,
    /// RFC 3339; inclusive.
    #[param(format = DateTime)]
    pub created_after: Option<String>,
    /// RFC 3339; exclusive.
    #[param(format = DateTime)]
    pub created_before: Option<String>,
    /// 1 to 200; default 50.
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<u32>,
    /// `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use herald_domain::ids::{EventId, MessageId, OrganizationId, SenderId};
    use herald_domain::message::{EventSource, MessageStatus};
    use herald_domain::template::{LanguageCode, TemplateName, TemplateRef, TemplateVariables};
    use herald_domain::values::{ClientReference, MessageText, PhoneNumber};
    use serde_json::json;
    use ulid::Ulid;

    fn t0() -> Timestamp {
        chrono::DateTime::from_timestamp_millis(1_795_256_130_123).unwrap()
    }

    #[test]
    fn message_resource_has_exactly_the_contract_fields() {
        let message = Message::accepted(
            MessageId::from_ulid(Ulid::from_parts(1, 1)),
            OrganizationId::from_ulid(Ulid::from_parts(1, 2)),
            (
                SenderId::from_ulid(Ulid::from_parts(1, 3)),
                PhoneNumber::parse("+15550001111").unwrap(),
            ),
            PhoneNumber::parse("+15551234567").unwrap(),
            MessageContent::Template {
                template: TemplateRef {
                    name: TemplateName::parse("order_shipped").unwrap(),
                    language: LanguageCode::parse("en_US").unwrap(),
                },
                variables: TemplateVariables::default(),
            },
            Some(ClientReference::parse("order-1234").unwrap()),
            t0(),
        );
        let value = serde_json::to_value(MessageResource::from(&message)).unwrap();
        assert_eq!(
            value,
            json!({
                "id": message.id.to_string(),
                "status": "accepted",
                "to": "+15551234567",
                "from": "+15550001111",
                "type": "template",
                "template": {"name": "order_shipped", "language": "en_US"},
                "text": null,
                "caption": null,
                "media": null,
                "interactive": null,
                "reaction": null,
                "location": null,
                "contacts": null,
                "reply_to": null,
                "client_reference": "order-1234",
                "network_message_id": null,
                "error": null,
                "send_at": null,
                "broadcast_id": null,
                "marketing_route": null,
                "route": null,
                "created_at": "2026-11-21T10:15:30.123Z",
                "updated_at": "2026-11-21T10:15:30.123Z",
                "timestamps": {
                    "scheduled": null,
                    "accepted": "2026-11-21T10:15:30.123Z",
                    "submitted": null, "sent": null, "delivered": null, "read": null, "failed": null,
                    "cancelled": null
                }
            })
        );
    }

    #[test]
    fn text_messages_and_errors() {
        let mut message = Message::accepted(
            MessageId::from_ulid(Ulid::from_parts(1, 1)),
            OrganizationId::from_ulid(Ulid::from_parts(1, 2)),
            (
                SenderId::from_ulid(Ulid::from_parts(1, 3)),
                PhoneNumber::parse("+15550001111").unwrap(),
            ),
            PhoneNumber::parse("+15551239999").unwrap(),
            MessageContent::Text {
                body: MessageText::parse("Hi").unwrap(),
                preview_url: false,
            },
            None,
            chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap(),
        );
        message.status = MessageStatus::Failed;
        message.error = Some(MessageError {
            code: "recipient_unreachable".into(),
            title: "Recipient unreachable".into(),
            detail: "d".into(),
            network_code: Some(131_026),
        });
        let value = serde_json::to_value(MessageResource::from(&message)).unwrap();
        assert_eq!(value["type"], "text");
        assert_eq!(value["text"], "Hi");
        assert_eq!(value["template"], Value::Null);
        assert_eq!(value["created_at"], "2023-11-14T22:13:20.000Z");
        assert_eq!(
            value["error"],
            json!({"code": "recipient_unreachable", "title": "Recipient unreachable", "detail": "d", "network_code": 131026})
        );
    }

    use serde_json::Value;

    #[test]
    fn event_resource_fields() {
        let event = StatusEvent {
            id: EventId::from_ulid(Ulid::from_parts(2, 2)),
            organization_id: OrganizationId::from_ulid(Ulid::from_parts(1, 2)),
            message_id: MessageId::from_ulid(Ulid::from_parts(1, 1)),
            status: MessageStatus::Sent,
            previous_status: Some(MessageStatus::Submitted),
            applied: true,
            source: EventSource::Network,
            error: None,
            occurred_at: t0(),
            recorded_at: t0(),
        };
        let value = serde_json::to_value(EventResource::from(&event)).unwrap();
        let keys: Vec<&str> = value.as_object().unwrap().keys().map(String::as_str).collect();
        let mut expected = vec![
            "id",
            "status",
            "previous_status",
            "applied",
            "source",
            "error",
            "occurred_at",
            "recorded_at",
        ];
        expected.sort_unstable();
        let mut keys = keys;
        keys.sort_unstable();
        assert_eq!(keys, expected);
        assert_eq!(value["previous_status"], "submitted");
        assert_eq!(value["source"], "network");
    }
}
