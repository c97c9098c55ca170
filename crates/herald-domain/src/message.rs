//! Messages: what was asked to be sent, and where it stands.

use crate::contact::Recipient;
use crate::content::{ContactCard, Location, MessageTarget, Reaction};
use crate::error::{FieldError, InvalidValue, ValidationErrors};
use crate::ids::{EventId, MessageId, OrganizationId, SenderId};
use crate::interactive::{Interactive, InteractiveHeader};
use crate::organization::MessageKind;
use crate::template::{TemplateRef, TemplateVariables};
use crate::time::Timestamp;
use crate::values::{Caption, ClientReference, MessageText, PhoneNumber};

use crate::attachment::{AttachmentRole, MediaAttachment, MediaKind};

/// Where a message stands. See docs/api.md §5 for the model; [`crate::status`] for the rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MessageStatus {
    /// Accepted (stored, counted) and waiting for its `send_at`; dispatched then, straight to `submitted`.
    Scheduled,
    Accepted,
    Submitted,
    Sent,
    Delivered,
    Read,
    Failed,
    /// Cancelled before dispatch (`POST /api/v1/messages/{id}/cancel`); final, the quota given back.
    Cancelled,
}

impl MessageStatus {
    pub const ALL: [Self; 8] = [
        Self::Scheduled,
        Self::Accepted,
        Self::Submitted,
        Self::Sent,
        Self::Delivered,
        Self::Read,
        Self::Failed,
        Self::Cancelled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Scheduled => "scheduled",
            Self::Accepted => "accepted",
            Self::Submitted => "submitted",
            Self::Sent => "sent",
            Self::Delivered => "delivered",
            Self::Read => "read",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }

    /// Not dispatched yet: the only statuses a cancel may still stop (the outbox job decides the rest).
    pub fn is_undispatched(self) -> bool {
        matches!(self, Self::Scheduled | Self::Accepted)
    }

    /// # Errors
    /// [`InvalidValue`] for an unknown status.
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        Self::ALL
            .into_iter()
            .find(|s| s.as_str() == value)
            .ok_or_else(|| InvalidValue::new(format!("unknown status `{value}`")))
    }
}

/// What a message says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MessageContent {
    Text {
        body: MessageText,
        preview_url: bool,
    },
    Media {
        media: MediaAttachment,
        caption: Option<Caption>,
    },
    Template {
        template: TemplateRef,
        variables: TemplateVariables,
    },
    Interactive(Interactive),
    /// A reaction's only status is `sent`: the network reports nothing after it (docs/api.md §5).
    Reaction(Reaction),
    Location(Location),
    Contacts(Vec<ContactCard>),
    /// The content of a message to a person since erased (docs/api.md §7.2): only its type is kept.
    Erased(MessageType),
}

impl MessageContent {
    /// The plan category of this content.
    pub fn kind(&self) -> MessageKind {
        match self {
            Self::Text { .. } => MessageKind::Text,
            Self::Media { .. } => MessageKind::Media,
            Self::Template { .. } => MessageKind::Template,
            // A file in the header makes an interactive message a media message for the plan; the request
            // said so too (docs/api.md §4.6), so the plan check before validation agrees.
            Self::Interactive(Interactive {
                header: Some(InteractiveHeader::Media(_)),
                ..
            }) => MessageKind::Media,
            Self::Interactive(_) | Self::Reaction(_) | Self::Location(_) | Self::Contacts(_) => {
                MessageKind::Text
            }
            Self::Erased(message_type) => match message_type {
                MessageType::Template => MessageKind::Template,
                MessageType::Document
                | MessageType::Image
                | MessageType::Video
                | MessageType::Audio
                | MessageType::Sticker => MessageKind::Media,
                _ => MessageKind::Text,
            },
        }
    }

    /// The resource's `type`.
    pub fn message_type(&self) -> MessageType {
        match self {
            Self::Text { .. } => MessageType::Text,
            Self::Media { media, .. } => match media.kind {
                MediaKind::Document => MessageType::Document,
                MediaKind::Image => MessageType::Image,
                MediaKind::Video => MessageType::Video,
                MediaKind::Audio => MessageType::Audio,
                MediaKind::Sticker => MessageType::Sticker,
            },
            Self::Template { .. } => MessageType::Template,
            Self::Interactive(_) => MessageType::Interactive,
            Self::Reaction(_) => MessageType::Reaction,
            Self::Location(_) => MessageType::Location,
            Self::Contacts(_) => MessageType::Contacts,
            Self::Erased(message_type) => *message_type,
        }
    }

    /// The message a reaction reacts to.
    pub fn reaction_target(&self) -> Option<&MessageTarget> {
        match self {
            Self::Reaction(reaction) => Some(&reaction.target),
            _ => None,
        }
    }

    /// [`MessageContent::reaction_target`], to fill in its network id at acceptance.
    pub fn reaction_target_mut(&mut self) -> Option<&mut MessageTarget> {
        match self {
            Self::Reaction(reaction) => Some(&mut reaction.target),
            _ => None,
        }
    }

    /// Whether `status` is as far as this message goes: `read` for every message, `sent` already for a
    /// reaction, which the network reports as sent and never as delivered or read.
    pub fn is_final(&self, status: MessageStatus) -> bool {
        match status {
            MessageStatus::Read | MessageStatus::Failed | MessageStatus::Cancelled => true,
            MessageStatus::Sent | MessageStatus::Delivered => matches!(self, Self::Reaction(_)),
            MessageStatus::Scheduled | MessageStatus::Accepted | MessageStatus::Submitted => false,
        }
    }

    /// The one file this content carries, if any: a media message's file or a template's header file.
    pub fn attachment(&self) -> Option<(AttachmentRole, &MediaAttachment)> {
        match self {
            Self::Media { media, .. } => Some((AttachmentRole::Message, media)),
            Self::Template { variables, .. } => match &variables.header {
                Some(crate::template::HeaderValue::Media(media)) => {
                    Some((AttachmentRole::TemplateHeader, media))
                }
                _ => None,
            },
            Self::Interactive(Interactive {
                header: Some(InteractiveHeader::Media(media)),
                ..
            }) => Some((AttachmentRole::InteractiveHeader, media)),
            Self::Text { .. }
            | Self::Interactive(_)
            | Self::Reaction(_)
            | Self::Location(_)
            | Self::Contacts(_)
            | Self::Erased(_) => None,
        }
    }

    /// Every file this content carries: [`MessageContent::attachment`], then a carousel's card headers.
    pub fn attachments(&self) -> Vec<(AttachmentRole, &MediaAttachment)> {
        let mut all: Vec<_> = self.attachment().into_iter().collect();
        if let Self::Template { variables, .. } = self {
            all.extend(
                variables
                    .cards
                    .iter()
                    .enumerate()
                    .map(|(i, card)| (AttachmentRole::TemplateCard(i), &card.header)),
            );
        }
        all
    }

    /// [`MessageContent::attachments`], to change them (the send use case fills in what stored files say).
    pub fn attachments_mut(&mut self) -> Vec<(AttachmentRole, &mut MediaAttachment)> {
        if let Self::Template { variables, .. } = self {
            let header = match &mut variables.header {
                Some(crate::template::HeaderValue::Media(media)) => {
                    Some((AttachmentRole::TemplateHeader, media))
                }
                _ => None,
            };
            let cards = variables
                .cards
                .iter_mut()
                .enumerate()
                .map(|(i, card)| (AttachmentRole::TemplateCard(i), &mut card.header));
            return header.into_iter().chain(cards).collect();
        }
        self.attachment_mut().into_iter().collect()
    }

    /// [`MessageContent::attachment`], to change it (the send use case fills in what the stored file says).
    pub fn attachment_mut(&mut self) -> Option<(AttachmentRole, &mut MediaAttachment)> {
        match self {
            Self::Media { media, .. } => Some((AttachmentRole::Message, media)),
            Self::Template { variables, .. } => match &mut variables.header {
                Some(crate::template::HeaderValue::Media(media)) => {
                    Some((AttachmentRole::TemplateHeader, media))
                }
                _ => None,
            },
            Self::Interactive(Interactive {
                header: Some(InteractiveHeader::Media(media)),
                ..
            }) => Some((AttachmentRole::InteractiveHeader, media)),
            Self::Text { .. }
            | Self::Interactive(_)
            | Self::Reaction(_)
            | Self::Location(_)
            | Self::Contacts(_)
            | Self::Erased(_) => None,
        }
    }

    /// A caption or filename on a file that takes neither (audio, stickers: docs/api.md §4.3), as field
    /// errors. A stored file's kind is known only once the send looks it up, so the send use case asks
    /// this after every file's kind is settled, whatever form the request came in.
    pub fn file_field_errors(&self) -> ValidationErrors {
        let mut errors = ValidationErrors::new();
        if let Self::Media { media, caption } = self
            && !media.kind.takes_caption()
        {
            let kind = media.kind.as_str();
            if caption.is_some() {
                errors.push(FieldError::new(
                    "caption",
                    format!("this file is {kind}: audio and stickers take no caption"),
                ));
            }
            if media.filename.is_some() {
                errors.push(FieldError::new(
                    "filename",
                    format!("this file is {kind}: audio and stickers take no filename"),
                ));
            }
        }
        errors
    }

    /// Free-form content may only go inside the 24-hour service window.
    pub fn is_free_form(&self) -> bool {
        !matches!(self, Self::Template { .. })
    }
}

/// The `type` of a message resource, and a filter of the message log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MessageType {
    Text,
    Document,
    Image,
    Video,
    Audio,
    Sticker,
    Template,
    Interactive,
    Reaction,
    Location,
    Contacts,
}

impl MessageType {
    pub const ALL: [Self; 11] = [
        Self::Text,
        Self::Document,
        Self::Image,
        Self::Video,
        Self::Audio,
        Self::Sticker,
        Self::Template,
        Self::Interactive,
        Self::Reaction,
        Self::Location,
        Self::Contacts,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Text => "text",
            Self::Document => "document",
            Self::Image => "image",
            Self::Video => "video",
            Self::Audio => "audio",
            Self::Sticker => "sticker",
            Self::Template => "template",
            Self::Interactive => "interactive",
            Self::Reaction => "reaction",
            Self::Location => "location",
            Self::Contacts => "contacts",
        }
    }

    /// # Errors
    /// [`InvalidValue`] for an unknown type.
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        Self::ALL
            .into_iter()
            .find(|t| t.as_str() == value)
            .ok_or_else(|| InvalidValue::new(format!("unknown message type `{value}`")))
    }
}

/// Why a message failed, in Herald's terms, with the network's code when it gave one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageError {
    /// Herald's stable code, e.g. `recipient_unreachable`.
    pub code: String,
    pub title: String,
    pub detail: String,
    pub network_code: Option<i64>,
}

/// When each status was reached; a skipped stage carries the time of the report that skipped it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatusTimestamps {
    pub scheduled: Option<Timestamp>,
    pub accepted: Option<Timestamp>,
    pub submitted: Option<Timestamp>,
    pub sent: Option<Timestamp>,
    pub delivered: Option<Timestamp>,
    pub read: Option<Timestamp>,
    pub failed: Option<Timestamp>,
    pub cancelled: Option<Timestamp>,
}

impl StatusTimestamps {
    pub fn get(&self, status: MessageStatus) -> Option<Timestamp> {
        match status {
            MessageStatus::Scheduled => self.scheduled,
            MessageStatus::Accepted => self.accepted,
            MessageStatus::Submitted => self.submitted,
            MessageStatus::Sent => self.sent,
            MessageStatus::Delivered => self.delivered,
            MessageStatus::Read => self.read,
            MessageStatus::Failed => self.failed,
            MessageStatus::Cancelled => self.cancelled,
        }
    }

    pub fn set(&mut self, status: MessageStatus, at: Timestamp) {
        let slot = match status {
            MessageStatus::Scheduled => &mut self.scheduled,
            MessageStatus::Accepted => &mut self.accepted,
            MessageStatus::Submitted => &mut self.submitted,
            MessageStatus::Sent => &mut self.sent,
            MessageStatus::Delivered => &mut self.delivered,
            MessageStatus::Read => &mut self.read,
            MessageStatus::Failed => &mut self.failed,
            MessageStatus::Cancelled => &mut self.cancelled,
        };
        *slot = Some(at);
    }
}

/// A message and where it stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub id: MessageId,
    pub organization_id: OrganizationId,
    pub sender_id: SenderId,
    pub from: PhoneNumber,
    /// Whom it goes to, as the client named them: a number, or a business-scoped user id.
    pub to: Recipient,
    pub content: MessageContent,
    /// The message of the conversation this one replies to (Meta's `context`).
    pub reply_to: Option<MessageTarget>,
    pub client_reference: Option<ClientReference>,
    pub status: MessageStatus,
    /// The network's id (`wamid…`) once submitted.
    pub network_message_id: Option<String>,
    pub error: Option<MessageError>,
    /// When a scheduled message is to be dispatched (`send_at`); `None` for a message sent at once.
    pub send_at: Option<Timestamp>,
    /// The broadcast it belongs to, if any (`POST /api/v1/broadcasts`).
    pub broadcast_id: Option<crate::ids::BroadcastId>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub timestamps: StatusTimestamps,
    /// The network's pricing of the message, once a status report carries it ([`crate::pricing::kept`]).
    pub pricing: Option<crate::pricing::Pricing>,
    /// A marketing template's choice of send path; `None` for every other message, which goes on the
    /// Cloud API.
    pub marketing: Option<crate::marketing::MarketingSend>,
    /// The path it went out on, once submitted.
    pub route: Option<crate::marketing::NetworkRoute>,
}

impl Message {
    /// A freshly accepted message.
    pub fn accepted(
        id: MessageId,
        organization_id: OrganizationId,
        sender: (SenderId, PhoneNumber),
        to: impl Into<Recipient>,
        content: MessageContent,
        client_reference: Option<ClientReference>,
        now: Timestamp,
    ) -> Self {
        Self {
            id,
            organization_id,
            sender_id: sender.0,
            from: sender.1,
            to: to.into(),
            content,
            reply_to: None,
            client_reference,
            status: MessageStatus::Accepted,
            network_message_id: None,
            error: None,
            send_at: None,
            broadcast_id: None,
            created_at: now,
            updated_at: now,
            timestamps: StatusTimestamps {
                accepted: Some(now),
                ..StatusTimestamps::default()
            },
            pricing: None,
            marketing: None,
            route: None,
        }
    }

    /// This freshly accepted message held until `send_at`: its first status is `scheduled` (reached now,
    /// when it was stored and counted), and dispatch takes it from there to `submitted` at `send_at`.
    #[must_use]
    pub fn scheduled_for(mut self, send_at: Timestamp) -> Self {
        self.status = MessageStatus::Scheduled;
        self.send_at = Some(send_at);
        self.timestamps = StatusTimestamps {
            scheduled: Some(self.created_at),
            ..StatusTimestamps::default()
        };
        self
    }

    /// The status it was stored with: `scheduled` when it has a `send_at`, else `accepted`.
    pub fn first_status(&self) -> MessageStatus {
        if self.send_at.is_some() {
            MessageStatus::Scheduled
        } else {
            MessageStatus::Accepted
        }
    }

    /// The message exactly as it was when first accepted: what an idempotent replay answers, so the replay
    /// body equals the first response even after the status moved on.
    pub fn as_accepted(&self) -> Self {
        let first = self.first_status();
        let mut timestamps = StatusTimestamps::default();
        timestamps.set(first, self.timestamps.get(first).unwrap_or(self.created_at));
        Self {
            status: first,
            network_message_id: None,
            error: None,
            pricing: None,
            updated_at: self.created_at,
            timestamps,
            ..self.clone()
        }
    }
}

/// Who reported a status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventSource {
    /// Herald itself (accepting, submitting, failing a send).
    Herald,
    /// A report from the network.
    Network,
}

impl EventSource {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Herald => "herald",
            Self::Network => "network",
        }
    }

    /// # Errors
    /// [`InvalidValue`] for an unknown source.
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        match value {
            "herald" => Ok(Self::Herald),
            "network" => Ok(Self::Network),
            other => Err(InvalidValue::new(format!("unknown event source `{other}`"))),
        }
    }
}

/// One entry of a message's status history: every report, applied or not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusEvent {
    pub id: EventId,
    pub organization_id: OrganizationId,
    pub message_id: MessageId,
    pub status: MessageStatus,
    /// The status before this event, when it was applied.
    pub previous_status: Option<MessageStatus>,
    /// Whether it changed the message (late and duplicate reports are recorded but not applied).
    pub applied: bool,
    pub source: EventSource,
    pub error: Option<MessageError>,
    /// When it happened, per its reporter.
    pub occurred_at: Timestamp,
    /// When Herald recorded it.
    pub recorded_at: Timestamp,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attachment::MediaSource;
    use ulid::Ulid;

    #[test]
    fn replay_view_is_the_first_response() {
        let t0 = chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap();
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
            t0,
        );
        let first = message.clone();
        message.status = MessageStatus::Delivered;
        message.network_message_id = Some("wamid.X".into());
        message.timestamps.delivered = Some(t0 + chrono::TimeDelta::seconds(3));
        message.updated_at = t0 + chrono::TimeDelta::seconds(3);
        assert_eq!(message.as_accepted(), first);
    }

    #[test]
    fn names_round_trip() {
        for s in MessageStatus::ALL {
            assert_eq!(MessageStatus::parse(s.as_str()).unwrap(), s);
        }
        for t in MessageType::ALL {
            assert_eq!(MessageType::parse(t.as_str()).unwrap(), t);
        }
        for k in MediaKind::ALL {
            assert_eq!(MediaKind::parse(k.as_str()).unwrap(), k);
        }
        assert!(MessageStatus::parse("queued").is_err());
    }

    #[test]
    fn only_audio_and_stickers_refuse_a_caption_and_a_filename() {
        let content = |kind| MessageContent::Media {
            media: MediaAttachment {
                kind,
                source: MediaSource::Upload,
                filename: Some(crate::values::FileName::parse("a.bin").unwrap()),
            },
            caption: Some(Caption::parse("hi").unwrap()),
        };
        for kind in [MediaKind::Document, MediaKind::Image, MediaKind::Video] {
            assert!(content(kind).file_field_errors().is_empty(), "{kind:?}");
        }
        for kind in [MediaKind::Audio, MediaKind::Sticker] {
            let errors = content(kind).file_field_errors();
            let fields: Vec<&str> = errors.errors().iter().map(|e| e.field.as_str()).collect();
            assert_eq!(fields, ["caption", "filename"], "{kind:?}");
        }
        assert_eq!(
            MessageContent::Media {
                media: MediaAttachment {
                    kind: MediaKind::Sticker,
                    source: MediaSource::Upload,
                    filename: None,
                },
                caption: None,
            }
            .message_type(),
            MessageType::Sticker
        );
    }
}
