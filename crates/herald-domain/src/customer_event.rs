//! Customer events (docs/api.md §9) as the domain decides them: which event, its place among the
//! message's events, and a typed body. The store writes them as they are and serializes the body to the
//! wire format in one place, so what a customer receives is exactly what was decided and recorded.

use crate::content::MessageRef;
use crate::ids::{EventId, InboundId, MediaId, OrganizationId, SenderId};
use crate::message::{Message, MessageError, MessageStatus};
use crate::network::{InboundContent, InboundMessage};
use crate::time::Timestamp;
use crate::values::{ClientReference, PhoneNumber};

/// One customer event about one message, ready to be recorded and delivered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomerEvent {
    pub id: EventId,
    pub organization_id: OrganizationId,
    /// The message it is about (an inbound message's own `inb_` id for `message.inbound`).
    pub message_id: MessageRef,
    /// 1, 2, 3… per message.
    pub sequence: u32,
    /// When it happened, per its reporter.
    pub occurred_at: Timestamp,
    /// When Herald recorded it: the body's `timestamp`.
    pub recorded_at: Timestamp,
    pub body: EventBody,
}

impl CustomerEvent {
    /// The event's `type`, which follows from its body.
    pub fn event_type(&self) -> CustomerEventType {
        match &self.body {
            EventBody::Status(body) => CustomerEventType::for_status(body.status),
            EventBody::Inbound(_) => CustomerEventType::MessageInbound,
        }
    }
}

/// What an event says, by kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventBody {
    /// `message.status` or `message.failed`.
    Status(StatusBody),
    /// `message.inbound` (boxed: every inbound kind makes it far larger than a status body).
    Inbound(Box<InboundBody>),
}

/// A message's status change, as the message is after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusBody {
    pub status: MessageStatus,
    /// `None` for the one event of an acceptance (a scheduled message's `scheduled`): it had no status before.
    pub previous_status: Option<MessageStatus>,
    /// The message's recipient as the client named it (a number or a business-scoped user id).
    pub to: crate::contact::Recipient,
    pub from: PhoneNumber,
    pub client_reference: Option<ClientReference>,
    pub network_message_id: Option<String>,
    /// The failure, only on `message.failed`.
    pub error: Option<MessageError>,
    /// The message's pricing as the network last gave it (boxed: it would double the size of every event).
    pub pricing: Option<Box<crate::pricing::Pricing>>,
}

/// A message a user sent to one of the organization's numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboundBody {
    /// The user's number, or their user id when the network hid the number.
    pub from: crate::contact::Recipient,
    /// The user's business-scoped user id, when the network sent one.
    pub from_user_id: Option<crate::values::UserId>,
    /// The number of the sender (business number) that received it.
    pub to: PhoneNumber,
    /// The network's `type`.
    pub message_type: String,
    pub content: InboundContent,
    /// Herald's id for the message's file, which names it to the customer (the network's id stays inside).
    pub media_id: Option<MediaId>,
    /// The network's message object, for kinds Herald does not model.
    pub raw: String,
    /// The wamid this message replies to, if any.
    pub context_message_id: Option<String>,
    /// Herald's ids of the messages it replies or reacts to.
    pub links: InboundLinks,
    /// The network's `referral` object as JSON text, when the message came from an ad or post.
    pub referral: Option<String>,
    /// The webhook field it came on.
    pub source_field: crate::network::SourceField,
    /// An echo of what the business side sent the user outside Herald (`from` is then the user).
    pub echo: bool,
}

/// Herald's ids of the messages an inbound message points at (the one it replies to, the one it reacts
/// to), resolved from their wamids within the organization when it is recorded. `None` where the wamid
/// names no message Herald knows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct InboundLinks {
    pub context: Option<MessageRef>,
    pub reaction: Option<MessageRef>,
}

/// The event a status change emits, about `message` as it is after the change.
pub fn status_changed(
    id: EventId,
    message: &Message,
    previous: MessageStatus,
    occurred_at: Timestamp,
    sequence: u32,
    recorded_at: Timestamp,
) -> CustomerEvent {
    let failed = CustomerEventType::for_status(message.status) == CustomerEventType::MessageFailed;
    CustomerEvent {
        id,
        organization_id: message.organization_id,
        message_id: MessageRef::Outbound(message.id),
        sequence,
        occurred_at,
        recorded_at,
        body: EventBody::Status(StatusBody {
            status: message.status,
            previous_status: Some(previous),
            to: message.to.clone(),
            from: message.from.clone(),
            client_reference: message.client_reference.clone(),
            network_message_id: message.network_message_id.clone(),
            error: if failed { message.error.clone() } else { None },
            pricing: message.pricing.clone().map(Box::new),
        }),
    }
}

/// The event a scheduled message's acceptance emits (docs/api.md §9): `scheduled`, with no previous status,
/// first of the message's events, at its acceptance. An immediate send's acceptance emits none: its first
/// event is `submitted`. `None` for a message that is not `scheduled`.
pub fn scheduled(id: EventId, message: &Message) -> Option<CustomerEvent> {
    (message.status == MessageStatus::Scheduled).then(|| CustomerEvent {
        id,
        organization_id: message.organization_id,
        message_id: MessageRef::Outbound(message.id),
        sequence: 1,
        occurred_at: message.created_at,
        recorded_at: message.created_at,
        body: EventBody::Status(StatusBody {
            status: message.status,
            previous_status: None,
            to: message.to.clone(),
            from: message.from.clone(),
            client_reference: message.client_reference.clone(),
            network_message_id: None,
            error: None,
            pricing: None,
        }),
    })
}

/// The event an inbound message emits; `to` is the number of the sender that received it, `links` the
/// messages it points at. It is the first and only event about that message.
pub fn inbound(record: &InboundRecord, to: &PhoneNumber, links: InboundLinks) -> CustomerEvent {
    let inbound = &record.message;
    CustomerEvent {
        id: record.customer_event_id,
        organization_id: record.organization_id,
        message_id: MessageRef::Inbound(record.id),
        sequence: 1,
        occurred_at: inbound.received_at,
        recorded_at: record.recorded_at,
        body: EventBody::Inbound(Box::new(InboundBody {
            from: inbound.from.clone(),
            from_user_id: inbound.from_user_id.clone(),
            to: to.clone(),
            message_type: inbound.message_type.clone(),
            content: inbound.content.clone(),
            media_id: record.media_id,
            raw: inbound.raw.clone(),
            context_message_id: inbound.context_message_id.clone(),
            links,
            referral: inbound.referral.clone(),
            source_field: inbound.source_field,
            echo: inbound.echo,
        })),
    }
}

/// An inbound message to record, routed to its organization and sender.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboundRecord {
    pub id: InboundId,
    pub organization_id: OrganizationId,
    pub sender_id: SenderId,
    pub message: InboundMessage,
    /// Herald's id for the message's file, when it carries one ([`crate::network::InboundContent::Media`]):
    /// the store records it with the message, and the customer event names it (`media.id`), so the
    /// file can be fetched with `GET /api/v1/media/{id}/content`.
    pub media_id: Option<MediaId>,
    pub customer_event_id: EventId,
    pub recorded_at: Timestamp,
}

/// The kinds of customer event (docs/api.md §9).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CustomerEventType {
    MessageStatus,
    MessageFailed,
    MessageInbound,
    WebhookTest,
    TemplateStatus,
    TemplateQuality,
    TemplateCategory,
    SenderQuality,
    AccountUpdate,
    ContactPreferences,
    BroadcastProgress,
    BroadcastCompleted,
    /// A person's data was erased (docs/api.md §7.2).
    ContactErased,
}

impl CustomerEventType {
    /// The kinds an endpoint may subscribe to, in the order the docs list them (`webhook.test` is not one:
    /// it goes to the endpoint it was sent to).
    pub const SUBSCRIBABLE: [Self; 12] = [
        Self::MessageStatus,
        Self::MessageFailed,
        Self::MessageInbound,
        Self::TemplateStatus,
        Self::TemplateQuality,
        Self::TemplateCategory,
        Self::SenderQuality,
        Self::AccountUpdate,
        Self::ContactPreferences,
        Self::BroadcastProgress,
        Self::BroadcastCompleted,
        Self::ContactErased,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::MessageStatus => "message.status",
            Self::MessageFailed => "message.failed",
            Self::MessageInbound => "message.inbound",
            Self::WebhookTest => "webhook.test",
            Self::TemplateStatus => "template.status",
            Self::TemplateQuality => "template.quality",
            Self::TemplateCategory => "template.category",
            Self::SenderQuality => "sender.quality",
            Self::AccountUpdate => "account.update",
            Self::ContactPreferences => "contact.preferences",
            Self::BroadcastProgress => "broadcast.progress",
            Self::BroadcastCompleted => "broadcast.completed",
            Self::ContactErased => "contact.erased",
        }
    }

    /// The kind named `name` (any kind, `webhook.test` included).
    pub fn parse(name: &str) -> Option<Self> {
        std::iter::once(Self::WebhookTest)
            .chain(Self::SUBSCRIBABLE)
            .find(|kind| kind.as_str() == name)
    }

    /// The event a status change emits.
    pub fn for_status(status: MessageStatus) -> Self {
        if status == MessageStatus::Failed {
            Self::MessageFailed
        } else {
            Self::MessageStatus
        }
    }
}
