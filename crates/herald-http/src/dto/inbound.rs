//! The documented shapes of inbound messages (docs/api.md §5.1). The resource's JSON itself is written by
//! the store with the serializer of the `message.inbound` event, so these types only describe it.

use serde::Serialize;
use utoipa::{IntoParams, ToSchema};

/// A message a customer sent to one of the organization's numbers. Besides the fields below it carries
/// exactly one object of its kind, as in the `message.inbound` event: `text`, `media` (image, video,
/// document, audio with `voice`, sticker with `animated`), `location`, `contacts`, `reaction`,
/// `interactive` (`button_reply`, `list_reply`, `nfm_reply`), `button`, `order`, `system`, or `raw`
/// (an unsupported or unknown kind, the network's object as it came).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[allow(dead_code, reason = "documents the resource, which the store serializes")]
pub struct InboundResource {
    #[schema(example = "inb_01JD0000000000000000000000")]
    pub id: String,
    /// The customer's number; their business-scoped user id when the network hid the number (a user who
    /// chose a username) and no earlier message paired that id with a number.
    #[schema(example = "+15551234567")]
    pub from: String,
    /// The customer's business-scoped user id, when the network sent one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "US.13491208655302741918")]
    pub from_user_id: Option<String>,
    /// The business number that received it.
    #[schema(example = "+15550001111")]
    pub to: String,
    /// The network's type: `text`, `image`, `video`, `document`, `audio`, `sticker`, `location`,
    /// `contacts`, `reaction`, `interactive`, `button`, `order`, `system`, `unsupported`, …
    #[serde(rename = "type")]
    #[schema(example = "text")]
    pub type_: String,
    #[schema(format = DateTime)]
    pub received_at: String,
    /// The customer's profile name, when the network gave one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_name: Option<String>,
    /// The message this one replies to; `null` when it replies to none.
    pub context: Option<InboundContextResource>,
    /// When the business marked it read (`POST /api/v1/inbound/{id}/read`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(format = DateTime)]
    pub read_at: Option<String>,
    /// The text of a `text` message (the other kinds carry their own object instead).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub text: Option<serde_json::Value>,
    /// A reaction: `{ "message_id": "msg_…"|"inb_…"|null, "network_message_id", "emoji" }`; an empty
    /// emoji removes the reaction.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub reaction: Option<serde_json::Value>,
    /// The ad or post a click-to-WhatsApp message came from, as the network sent it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub referral: Option<serde_json::Value>,
    /// The network's webhook field it came on: `messages` while Herald's app holds the conversation,
    /// `standby` while another app (Meta's business agent) holds it, `smb_message_echoes` for what the
    /// business sent from the WhatsApp Business app on a number it shares with Herald.
    #[schema(example = "messages")]
    pub source_field: SourceFieldName,
    /// `true` for an echo: a message the business side sent the customer outside Herald (the WhatsApp
    /// Business app, or the app holding the conversation), copied to Herald. `from` is then the customer it
    /// went to; an echo opens no service window and never counts as a STOP keyword.
    pub echo: bool,
}

/// The webhook fields an inbound message can come on.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code, reason = "documents the resource, which the store serializes")]
pub enum SourceFieldName {
    Messages,
    Standby,
    SmbMessageEchoes,
}

/// The message an inbound message answers.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct InboundContextResource {
    /// Herald's id of it (`msg_…` sent, `inb_…` received); `null` when Herald does not know it.
    #[schema(example = "msg_01JD0000000000000000000000")]
    pub message_id: Option<String>,
    /// The network's id of it.
    #[schema(example = "wamid.HBgL…")]
    pub network_message_id: String,
}

/// A page of inbound messages, newest first.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct InboundPageResource {
    #[schema(value_type = Vec<InboundResource>)]
    pub data: Vec<serde_json::Value>,
    /// Pass as `cursor` for the next page; `null` on the last page.
    pub next_cursor: Option<String>,
}

/// `POST /api/v1/inbound/{id}/read`; the body may be empty.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[allow(dead_code, reason = "documents the body, which is parsed by hand")]
pub struct InboundReadRequest {
    /// Also show the customer the typing indicator (until the business answers, at most 25 s).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub typing: Option<bool>,
}

/// Filters of the inbound list. Numbers must be URL-encoded (`%2B…`): a literal `+` in a query is a space.
#[derive(Debug, Clone, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code, reason = "documents the query string, which is parsed by hand")]
pub struct InboundListQuery {
    /// The business number that received it (E.164, URL-encoded).
    pub number: Option<String>,
    /// The customer who sent it (E.164, URL-encoded), or their business-scoped user id for messages that
    /// came without a number.
    pub sender: Option<String>,
    /// The network's type (`text`, `image`, `reaction`, `interactive`, …).
    #[param(rename = "type")]
    pub type_: Option<String>,
    /// Received at or after (RFC 3339).
    #[param(format = DateTime)]
    pub since: Option<String>,
    /// Received before (RFC 3339).
    #[param(format = DateTime)]
    pub until: Option<String>,
    /// 1–200, default 50.
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<u32>,
    /// `next_cursor` of the previous page.
    pub cursor: Option<String>,
}
