//! What the simulator keeps of each request it accepted, as `GET /simulator/control/sent` lists it.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// One send the simulator accepted (answered 200), as listed by `GET /simulator/control/sent`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SentRecord {
    /// The business number's phone number id from the request path.
    pub phone_number_id: String,
    /// The wamid the simulator answered with.
    pub wamid: String,
    /// The recipient's WhatsApp id (`to` with everything but digits removed), or the business-scoped user id
    /// of `recipient` when the send named one instead.
    pub recipient: String,
    /// The request body exactly as parsed from JSON.
    pub request: serde_json::Value,
    /// The request's `biz_opaque_callback_data`, if any.
    pub biz_opaque_callback_data: Option<String>,
    /// When the simulator accepted it.
    pub received_at: DateTime<Utc>,
    /// The file the send carried (a media message's, or a template's media header), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media: Option<SentMedia>,
    /// A message, or a read receipt (with or without the typing indicator) for an inbound message: then
    /// `wamid` is the message marked read and `recipient` the customer who sent it.
    #[serde(default)]
    pub kind: RecordKind,
    /// The Cloud API path the request came on: `messages`, or `marketing_messages` (docs/cloud-api.md §1.6).
    #[serde(default)]
    pub endpoint: Endpoint,
}

/// Which send path of a phone number a [`SentRecord`] arrived on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Endpoint {
    /// `POST /{phone_number_id}/messages`.
    #[default]
    Messages,
    /// `POST /{phone_number_id}/marketing_messages`, the Marketing Messages API.
    MarketingMessages,
}

/// What a [`SentRecord`] is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecordKind {
    /// A message of any type, answered with a wamid.
    #[default]
    Message,
    /// `{"status":"read","message_id":…}`.
    Read,
    /// A read receipt that also showed the typing indicator (`"typing_indicator":{"type":"text"}`).
    Typing,
}

/// The file of an accepted send, as `GET /simulator/control/sent` lists it: what the request said about it
/// and, for a file sent by id, what the simulator holds under that id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SentMedia {
    /// `image`, `video`, `document`, `audio` or `sticker`.
    pub kind: String,
    /// `message` for a media message, `template_header` for a template's header, `interactive_header` for
    /// an interactive message's header.
    pub role: String,
    /// The media id it was sent by (an upload to this simulator).
    pub id: Option<String>,
    /// The URL it was sent by.
    pub link: Option<String>,
    pub caption: Option<String>,
    pub filename: Option<String>,
    /// Of the uploaded file, for a send by id.
    pub mime_type: Option<String>,
    /// Hex SHA-256 of the uploaded file's bytes, for a send by id.
    pub sha256: Option<String>,
    /// Size in bytes of the uploaded file, for a send by id.
    pub size: Option<u64>,
}
