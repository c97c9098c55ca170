//! The messaging network: sends, media transfers, template listing, and the callbacks it sends back.

use crate::ids::MediaId;
use crate::message::{Message, MessageError};
use crate::network::ParsedCallback;
use crate::organization::SenderNumber;
use crate::template::{LanguageCode, TemplateName, TemplateStatus, TemplateStructure};
use crate::time::Duration;
use async_trait::async_trait;

/// The network's media ids of the Herald-stored files a message refers to, found or uploaded by dispatch
/// just before the send (a media message's file, a template's header file).
pub type NetworkMediaIds = std::collections::BTreeMap<MediaId, String>;

/// A stored file to upload to the network for one sender.
#[derive(Debug)]
pub struct MediaUpload {
    /// Opened for reading at its start.
    pub file: std::fs::File,
    pub size: u64,
    /// The type judged from the bytes when the file was uploaded to Herald.
    pub mime_type: String,
    /// The part's file name (the network wants one; it is not what a document's recipient sees).
    pub filename: String,
}

/// A file coming from the network, streamed: never held whole in memory.
pub struct MediaDownload {
    pub mime_type: Option<String>,
    /// The size, when the network said it.
    pub size: Option<u64>,
    pub body: futures::stream::BoxStream<'static, Result<Vec<u8>, std::io::Error>>,
}

impl std::fmt::Debug for MediaDownload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MediaDownload")
            .field("mime_type", &self.mime_type)
            .field("size", &self.size)
            .finish_non_exhaustive()
    }
}

/// The network accepted a send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetworkReceipt {
    /// The network's id of the message (`wamid.…`), at most 128 characters.
    pub network_message_id: String,
    /// The path it went on: `/messages`, or `/marketing_messages` for a marketing template routed there.
    pub route: crate::marketing::NetworkRoute,
}

/// Why a network call did not succeed, classified the way dispatch must react (docs/cloud-api.md §5).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NetworkError {
    /// Transient (5xx, overload, maintenance): retry the same request later.
    #[error("network temporarily failed ({detail}); retry")]
    Retryable {
        code: Option<i64>,
        detail: String,
        retry_after: Option<Duration>,
    },
    /// The sender's throughput (or the app's call rate) is exceeded: slow this sender down and retry.
    #[error("network throughput limit ({detail}); slow down")]
    Throttled {
        code: i64,
        detail: String,
        retry_after: Option<Duration>,
    },
    /// The network refused the message for good; the message fails with this error.
    #[error("network refused the message: {}", .0.code)]
    Permanent(MessageError),
    /// The access token is missing, expired or lacks permissions: nothing for this sender can go out until an
    /// operator fixes it. Retried slowly.
    #[error("network credentials problem: {detail}")]
    Credentials { code: Option<i64>, detail: String },
    /// The request may or may not have reached the network (timeout after sending, connection lost while
    /// waiting for the answer). Resending blindly could deliver twice.
    #[error("network outcome unknown: {detail}")]
    OutcomeUnknown { detail: String },
}

/// A template as the network defines it, parsed into what a send must fill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetworkTemplate {
    pub name: TemplateName,
    pub language: LanguageCode,
    pub status: TemplateStatus,
    pub category: String,
    pub structure: TemplateStructure,
    pub network_id: Option<String>,
    /// Quality rating and rejection reason as listed (`updated_at` is `None`).
    pub health: crate::template::TemplateHealth,
}

/// A user the network would not block or unblock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockFailure {
    /// The user as the request named them (a number's digits, or a user id).
    pub user: String,
    /// The network's reason.
    pub reason: String,
}

/// Meta's WhatsApp Cloud API, or the simulator speaking its wire format.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait MessagingNetwork: Send + Sync + 'static {
    /// Sends `message` from `sender`. The request carries the message id as callback data
    /// (`biz_opaque_callback_data`), so status reports can be matched even before the receipt is stored.
    ///
    /// Files stored in Herald are sent by the network ids in `media` (dispatch uploads them first); a
    /// stored file missing from `media` is a [`NetworkError::Permanent`] `media_unavailable`.
    ///
    /// # Errors
    /// A [`NetworkError`] saying how dispatch must react.
    async fn send(
        &self,
        sender: &SenderNumber,
        message: &Message,
        media: &NetworkMediaIds,
    ) -> Result<NetworkReceipt, NetworkError>;

    /// Uploads a file for `sender` (docs/cloud-api.md §2.1) and returns the network's media id, usable by that
    /// sender for 30 days. The bytes are streamed from the file.
    ///
    /// # Errors
    /// A [`NetworkError`], classified as for a send.
    async fn upload_media(&self, sender: &SenderNumber, upload: MediaUpload) -> Result<String, NetworkError>;

    /// Streams a file the network holds (an inbound message's media), fetched with `sender`'s credentials
    /// (docs/cloud-api.md §2.2: look the id up, then download its short-lived URL with the same token).
    ///
    /// # Errors
    /// [`NetworkError::Permanent`] with code `media_not_found` when the network does not know the id (any
    /// more); otherwise a [`NetworkError`] as for a send.
    async fn download_media(
        &self,
        sender: &SenderNumber,
        network_media_id: &str,
    ) -> Result<MediaDownload, NetworkError>;

    /// Marks an inbound message (by its wamid) read for `sender`, so the customer sees blue ticks; with
    /// `typing`, the customer also sees the typing indicator until the business answers (at most 25 s).
    ///
    /// # Errors
    /// A [`NetworkError`], classified as for a send.
    async fn mark_read(
        &self,
        sender: &SenderNumber,
        network_message_id: &str,
        typing: bool,
    ) -> Result<(), NetworkError>;

    /// Adds users to (`block`) or removes them from the sender's block list (docs/cloud-api.md §2.4: only
    /// users who wrote in the last 24 hours can be blocked; the adapter sends at most 1,000 per request).
    /// Answers the users the network refused, each with its reason; every other one was done.
    ///
    /// # Errors
    /// A [`NetworkError`] when the request as a whole failed, classified as for a send.
    async fn block_users(
        &self,
        sender: &SenderNumber,
        users: &[crate::contact::Recipient],
        block: bool,
    ) -> Result<Vec<BlockFailure>, NetworkError>;

    /// Every template of the sender's business account, all pages.
    ///
    /// # Errors
    /// A [`NetworkError`]; templates the adapter cannot parse are skipped and logged, not an error.
    async fn templates(&self, sender: &SenderNumber) -> Result<Vec<NetworkTemplate>, NetworkError>;

    /// Whether the sender's business account delivers its webhooks to Herald's Meta app
    /// (`GET /{waba-id}/subscribed_apps`, docs/cloud-api.md §4.7). Meta's answer names the subscribed apps,
    /// never the fields each receives: with the app's id configured the adapter looks for that app, without
    /// it any subscribed app counts.
    ///
    /// # Errors
    /// A [`NetworkError`], classified as for a send.
    async fn app_subscription(&self, sender: &SenderNumber) -> Result<AppSubscription, NetworkError>;
}

/// Whether a business account delivers its webhooks to Herald's app.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppSubscription {
    Subscribed,
    /// No webhook of the account reaches Herald: every field it needs is missing.
    NotSubscribed,
}

/// Turns a raw callback body into events (the network adapter's parser).
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
pub trait CallbackDecoder: Send + Sync + 'static {
    /// # Errors
    /// A description when the body is not a callback envelope at all.
    fn decode(&self, body: &[u8]) -> Result<ParsedCallback, String>;
}

/// Checks what the network presents: the body signature and the handshake token.
pub trait CallbackAuthenticator: Send + Sync + 'static {
    /// Whether `signature` (the `X-Hub-Signature-256` header) signs `raw_body`. Must compare in constant time.
    fn signature_valid(&self, signature: Option<&str>, raw_body: &[u8]) -> bool;

    /// Whether the handshake's `hub.verify_token` is the configured one. Must compare in constant time.
    fn verify_token_valid(&self, token: &str) -> bool;
}
