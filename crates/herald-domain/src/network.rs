//! What the network reports back (statuses and inbound messages), already translated into Herald's terms by
//! the adapter. The network port itself is [`crate::ports::MessagingNetwork`].

use crate::message::{MessageError, MessageStatus};
use crate::organization::NetworkRef;
use crate::time::Timestamp;
use crate::values::PhoneNumber;

/// A status the network reports (`played` is the network's "voice message played", past `read`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportedStatus {
    Sent,
    Delivered,
    Read,
    Failed,
    Played,
}

impl ReportedStatus {
    /// The status this report drives the message to; `played` counts as `read`.
    pub fn as_message_status(self) -> MessageStatus {
        match self {
            Self::Sent => MessageStatus::Sent,
            Self::Delivered => MessageStatus::Delivered,
            Self::Read | Self::Played => MessageStatus::Read,
            Self::Failed => MessageStatus::Failed,
        }
    }
}

/// A status report from the network about a message Herald sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetworkStatusReport {
    /// Which business number sent the message.
    pub phone_number_id: NetworkRef,
    pub network_message_id: String,
    /// `biz_opaque_callback_data` as sent: Herald's message id.
    pub callback_data: Option<String>,
    pub status: ReportedStatus,
    pub occurred_at: Timestamp,
    /// The recipient as the network writes it (digits).
    pub recipient: Option<String>,
    /// For `failed`: the first error, mapped into Herald's terms.
    pub error: Option<MessageError>,
}

/// The content of an inbound message, as far as Herald models it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InboundContent {
    Text {
        body: String,
    },
    /// `image`, `video`, `document`, `audio`, `sticker`.
    Media {
        kind: String,
        network_media_id: String,
        mime_type: Option<String>,
        sha256: Option<String>,
        caption: Option<String>,
        filename: Option<String>,
    },
    /// Any other kind (reaction, location, contacts, interactive, button, order, unsupported, …): the
    /// network's own object is in [`InboundMessage::raw`].
    Other,
}

/// A message a user sent to one of the organizations' numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboundMessage {
    /// Which business number received it.
    pub phone_number_id: NetworkRef,
    pub network_message_id: String,
    pub from: PhoneNumber,
    /// The user's profile name, when the envelope carries one.
    pub from_name: Option<String>,
    pub received_at: Timestamp,
    /// The network's `type` (`text`, `image`, `reaction`, `unsupported`, …).
    pub message_type: String,
    pub content: InboundContent,
    /// The wamid this message replies to, if any.
    pub context_message_id: Option<String>,
    /// The network's message object, as JSON text, so nothing the network said is lost.
    pub raw: String,
}

/// One item of a network callback.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NetworkEvent {
    Status(NetworkStatusReport),
    Inbound(InboundMessage),
}

/// The outcome of parsing one callback body: every item that parsed, and a note for each that did not
/// (one bad item never fails the others).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedCallback {
    pub events: Vec<NetworkEvent>,
    pub skipped: Vec<String>,
}
