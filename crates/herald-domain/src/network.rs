//! What the network reports back (statuses and inbound messages), already translated into Herald's terms by
//! the adapter. The network port itself is [`crate::ports::MessagingNetwork`].

use crate::error::InvalidValue;
use crate::message::{MessageError, MessageStatus};
use crate::organization::NetworkRef;
use crate::template::{LanguageCode, TemplateName, TemplateStatus};
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
    /// The recipient's business-scoped user id (`recipient_user_id`), when the report names it.
    pub recipient_user_id: Option<crate::values::UserId>,
    /// For `failed`: the first error, mapped into Herald's terms.
    pub error: Option<MessageError>,
    /// The report's `pricing` object, when it has one.
    pub pricing: Option<crate::pricing::Pricing>,
}

/// The content of an inbound message: every kind the network sends (docs/cloud-api.md §4.3). Numbers and
/// nested objects the network defines (coordinates, contact cards, an order's items, a Flow's answer) are
/// kept as the JSON text it sent, so nothing is rounded or reshaped on the way to the customer.
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
        /// `audio` only: recorded as a voice message.
        voice: Option<bool>,
        /// `sticker` only: an animated sticker.
        animated: Option<bool>,
    },
    Location {
        /// Decimal degrees, the JSON number as the network wrote it.
        latitude: String,
        longitude: String,
        name: Option<String>,
        address: Option<String>,
        url: Option<String>,
    },
    /// Contact cards: the network's `contacts` array as JSON text.
    Contacts {
        cards_json: String,
    },
    /// A reaction to a message of the conversation; an empty emoji means the reaction was removed.
    Reaction {
        /// The wamid reacted to.
        network_message_id: String,
        emoji: String,
    },
    /// `interactive.button_reply`: the tap on a reply button.
    ButtonReply {
        id: String,
        title: String,
    },
    /// `interactive.list_reply`: the choice of a list row.
    ListReply {
        id: String,
        title: String,
        description: Option<String>,
    },
    /// `interactive.nfm_reply`: a Flow's answer.
    FlowReply {
        name: Option<String>,
        body: Option<String>,
        /// The answer, the JSON document the network sends inside a string.
        response_json: String,
    },
    /// `button`: the tap on a template's quick-reply button.
    QuickReply {
        payload: String,
        text: String,
    },
    /// `order`: the network's order object as JSON text (catalog, items, prices).
    Order {
        order_json: String,
    },
    /// `system`: a change on the customer's side (a new number, a new identity).
    System {
        body: Option<String>,
        /// The network's `system.type` (`user_changed_number`, `customer_identity_changed`, …).
        system_type: Option<String>,
        /// The customer's new WhatsApp id, after a number change.
        wa_id: Option<String>,
    },
    /// `unsupported`, and any kind Herald does not know: the network's own object is in
    /// [`InboundMessage::raw`].
    Other,
}

impl InboundContent {
    /// The wamid this content reacts to, if it is a reaction.
    pub fn reacted_to(&self) -> Option<&str> {
        match self {
            Self::Reaction {
                network_message_id, ..
            } => Some(network_message_id),
            _ => None,
        }
    }
}

/// A message a user sent to one of the organizations' numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboundMessage {
    /// Which business number received it.
    pub phone_number_id: NetworkRef,
    pub network_message_id: String,
    /// The user's number, or their business-scoped user id when the network hides the number (a user
    /// who chose a username writes by user id only).
    pub from: crate::contact::Recipient,
    /// The user's business-scoped user id, when the network sent it (`from_user_id`, or the contact's
    /// `user_id`).
    pub from_user_id: Option<crate::values::UserId>,
    /// The user's profile name, when the envelope carries one.
    pub from_name: Option<String>,
    pub received_at: Timestamp,
    /// The network's `type` (`text`, `image`, `reaction`, `unsupported`, …).
    pub message_type: String,
    pub content: InboundContent,
    /// The wamid this message replies to, if any.
    pub context_message_id: Option<String>,
    /// The click-to-WhatsApp ad or post the message came from: the network's `referral` object as JSON text.
    pub referral: Option<String>,
    /// The network's message object, as JSON text, so nothing the network said is lost.
    pub raw: String,
    /// The webhook field the message came on.
    pub source_field: SourceField,
    /// `true` for an echo: a message the business side sent to the user outside Herald (from the WhatsApp
    /// Business app, or by another app holding the conversation), which the network copies to Herald.
    /// `from` then names the user it was sent to; an echo opens no service window and is no keyword.
    pub echo: bool,
}

/// Every webhook field Herald reads (docs/cloud-api.md §4.7), which each business account must deliver to
/// Herald's app: the three that carry messages, the account notices, and the users' marketing preferences.
pub const WEBHOOK_FIELDS_NEEDED: [&str; 10] = [
    "messages",
    "standby",
    "smb_message_echoes",
    "message_template_status_update",
    "message_template_quality_update",
    "template_category_update",
    "phone_number_quality_update",
    "account_update",
    "account_alerts",
    "user_preferences",
];

/// The webhook field an inbound message or echo came on (docs/cloud-api.md §4.7): `messages` while
/// Herald's app holds the conversation, `standby` while another app (Meta's business agent) does, and
/// `smb_message_echoes` for what the business sends from the WhatsApp Business app on a shared number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SourceField {
    #[default]
    Messages,
    Standby,
    SmbMessageEchoes,
}

impl SourceField {
    /// Every field that carries messages, in the order the documentation lists them.
    pub const ALL: [Self; 3] = [Self::Messages, Self::Standby, Self::SmbMessageEchoes];

    /// The network's name of the field, which is also Herald's (`source_field` on the API).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Messages => "messages",
            Self::Standby => "standby",
            Self::SmbMessageEchoes => "smb_message_echoes",
        }
    }

    /// The field named `name`, if it is one that carries messages.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|field| field.as_str() == name)
    }
}

/// One item of a network callback.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NetworkEvent {
    Status(NetworkStatusReport),
    Inbound(InboundMessage),
    /// A change of a business account's templates, numbers or standing.
    Notice(AccountNotice),
    /// A user stopped or resumed marketing messages (`user_preferences`).
    Preference(UserPreference),
}

/// Meta's `user_preferences` webhook item: a WhatsApp user stopped or resumed the business's marketing
/// messages (docs/cloud-api.md §4.5). The user is named by number, by business-scoped user id, or both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserPreference {
    /// Which business number the user stopped or resumed.
    pub phone_number_id: NetworkRef,
    /// The user's number, when the item carries one (`wa_id`).
    pub number: Option<PhoneNumber>,
    /// The user's business-scoped id, when the item carries one (`user_id`).
    pub user_id: Option<crate::values::UserId>,
    pub preference: crate::contact::MarketingPreference,
    /// The item's `timestamp`.
    pub occurred_at: Timestamp,
    /// The same for every delivery of this item: the SHA-256 of the business number, the user and the
    /// item's value and time, so a redelivered or reprocessed callback records it once.
    pub dedupe_key: String,
}

/// The outcome of parsing one callback body: every item that parsed, and a note for each that did not
/// (one bad item never fails the others).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedCallback {
    pub events: Vec<NetworkEvent>,
    pub skipped: Vec<String>,
    /// Webhook fields the parser does not know at all (each name once, at most
    /// [`MAX_UNKNOWN_FIELDS`]): acknowledged like the others, and worth a warning, since the network
    /// may have started sending something Herald should read.
    pub unknown_fields: Vec<String>,
}

/// Most unknown field names one callback reports ([`ParsedCallback::unknown_fields`]).
pub const MAX_UNKNOWN_FIELDS: usize = 8;

/// A change the network reports about a business account rather than about one message: a template's
/// review, quality or category, a number's quality and messaging limit, or the account itself
/// (`message_template_status_update`, `message_template_quality_update`, `template_category_update`,
/// `phone_number_quality_update`, `account_update`, `account_alerts`; docs/cloud-api.md §4.5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountNotice {
    /// The business account (WABA) it is about: the envelope's `entry.id`.
    pub waba_id: NetworkRef,
    /// When the network says it happened (the entry's `time`).
    pub occurred_at: Timestamp,
    /// The same for every delivery of the same notice, and different for any other: the callback may be
    /// redelivered by the network or reprocessed from its stored copy, and must record its events once.
    pub dedupe_key: String,
    pub change: NoticeChange,
}

/// A template a notice names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoticeTemplate {
    /// The network's id of the template (`message_template_id`).
    pub network_id: Option<String>,
    pub name: TemplateName,
    pub language: LanguageCode,
}

/// What a notice says changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoticeChange {
    /// `message_template_status_update`: the review's outcome or a later status change.
    TemplateStatus {
        template: NoticeTemplate,
        /// The network's `event` (`APPROVED`, `REJECTED`, `PAUSED`, `REINSTATED`, …).
        status: TemplateStatus,
        /// The network's reason (`INVALID_FORMAT`, …); the network's `NONE` is no reason.
        reason: Option<String>,
        /// `other_info` of a pause or a lock: its title and description.
        info: Option<NoticeInfo>,
    },
    /// `message_template_quality_update`.
    TemplateQuality {
        template: NoticeTemplate,
        previous: Option<QualityScore>,
        quality: QualityScore,
    },
    /// `template_category_update`: a category changed, or is about to (`correct_category`).
    TemplateCategory {
        template: NoticeTemplate,
        previous: Option<String>,
        category: String,
        /// The category the network will move the template to (an impending change).
        correct: Option<String>,
    },
    /// `phone_number_quality_update`: a number's quality event and messaging limit.
    SenderQuality {
        /// The number as the network displays it (digits).
        display_phone_number: String,
        /// `FLAGGED`, `UNFLAGGED`, `ONBOARDING`, `THROUGHPUT_UPGRADE`, `UPGRADE`, `DOWNGRADE`, …
        event: String,
        current_limit: Option<String>,
        old_limit: Option<String>,
    },
    /// `account_update` or `account_alerts`: about the account as a whole.
    Account {
        /// The webhook field: `account_update` or `account_alerts`.
        field: String,
        /// `DISABLED_UPDATE`, `ACCOUNT_VIOLATION`, …; an alert's `alert_type`.
        event: String,
        /// The network's `value` object as JSON text (ban, violation, restriction or alert details).
        details_json: String,
    },
}

/// A title and description the network attaches to a status change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoticeInfo {
    pub title: Option<String>,
    pub description: Option<String>,
}

/// A quality rating as the network writes it: `GREEN`, `YELLOW`, `RED`, `UNKNOWN` (kept as given when it
/// adds another uppercase word).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct QualityScore(String);

impl QualityScore {
    /// # Errors
    /// [`InvalidValue`] when empty or not uppercase letters and underscores.
    pub fn parse(value: &str) -> Result<Self, InvalidValue> {
        if !value.is_empty()
            && value.len() <= 32
            && value.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')
        {
            Ok(Self(value.to_owned()))
        } else {
            Err(InvalidValue::new(
                "a quality rating is an uppercase word such as GREEN",
            ))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}
