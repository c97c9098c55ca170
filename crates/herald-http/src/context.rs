//! What the handlers are given: the use cases the application wires, the limiters, readiness.

use crate::client_address::AuthFailureLimit;
use herald_domain::ports::KeyLimit;
use herald_domain::ports::MediaStore;
use herald_domain::usecases::{
    Authenticate, Broadcasts, CancelMessage, Contacts, GetMessage, InboundMessages, ListMessages,
    ListTemplates, ManageTemplates, ManageWebhooks, Media, MessageEvents, RateCards, SendMessage, Senders,
    SyncTemplates, Usage, WindowStatus,
};
use std::sync::Arc;

/// The use cases the API drives, built by the application.
pub struct ApiContext {
    pub authenticate: Authenticate,
    pub send: SendMessage,
    pub get_message: GetMessage,
    pub list_messages: ListMessages,
    pub message_events: MessageEvents,
    /// Broadcasts: creating, reading, cancelling and resuming them (docs/api.md §4.10). Shared with the
    /// pacer worker, which drives the same use case.
    pub broadcasts: Arc<Broadcasts>,
    /// Cancelling a message before dispatch (docs/api.md §5, `POST /messages/{id}/cancel`).
    pub cancel_message: CancelMessage,
    /// Inbound messages as resources, and read receipts (docs/api.md §5.1).
    pub inbound: InboundMessages,
    pub window_status: WindowStatus,
    /// Contacts: opt-outs, blocks, the STOP keyword rule (docs/api.md §7.1).
    pub contacts: Contacts,
    /// Erasing a person (`DELETE /api/v1/contacts/{recipient}`).
    pub erase: herald_domain::usecases::ErasePerson,
    pub templates: ListTemplates,
    pub sync_templates: Arc<SyncTemplates>,
    /// Templates created, edited and deleted through the network's review (docs/api.md §6.1).
    pub manage_templates: ManageTemplates,
    /// The organization's senders with their quality (docs/api.md §6.2).
    pub senders: Senders,
    /// Customer webhook endpoints (docs/api.md §9).
    pub webhooks: ManageWebhooks,
    /// Each organization's rate card: the estimated cost of messages and dry runs.
    pub rate_cards: RateCards,
    /// Messages and estimated cost by day and category (docs/api.md §5.2).
    pub usage: Usage,
    /// Uploads and reading media back (docs/api.md §4.5, §9).
    pub media: Media,
    /// Where multipart uploads are staged while they stream in.
    pub files: Arc<dyn MediaStore>,
    /// The organizations' send-rate limiter, peeked (cost 0) for the `RateLimit-*` headers; the domain
    /// itself charges sends against it.
    pub send_limiter: Arc<dyn herald_domain::ports::RateLimiter>,
    /// Dry runs (docs/api.md §3): the plan's send rate in buckets of their own, so a dry run neither takes a
    /// real send's allowance nor goes unbounded. Charged before the body is read.
    pub dry_run_limiter: Arc<dyn herald_domain::ports::RateLimiter>,
    /// Broadcast recipient rows (docs/api.md §3): [`herald_domain::organization::Plan::broadcast_rows`] per
    /// organization, in buckets of their own, charged a broadcast's rows before they are checked and stored.
    pub broadcast_row_limiter: Arc<dyn herald_domain::ports::RateLimiter>,
    /// The per-key limit on reads (docs/api.md §3: default 50/s, burst 100).
    pub read_limiter: Arc<dyn KeyLimit>,
    /// The per-key limit on writes other than sends (docs/api.md §3: default 5/s, burst 20).
    pub write_limiter: Arc<dyn KeyLimit>,
    pub readiness: Arc<dyn Readiness>,
    /// Whose `X-Forwarded-For` names the client (`HERALD_TRUSTED_PROXIES`); empty: the TCP peer is.
    pub trusted_proxies: herald_domain::client_address::TrustedProxies,
    /// Failed authentications per client address (docs/api.md §1: default 30 a minute).
    pub auth_failures: Arc<dyn AuthFailureLimit>,
    /// `metrics_organization_labels`: label `herald_sends_total` by the caller's organization.
    pub metrics_organization_labels: bool,
}

/// Whether the service can take traffic: the store is reachable and its migrations are current.
#[async_trait::async_trait]
pub trait Readiness: Send + Sync + 'static {
    /// # Errors
    /// Why the service is not ready; logged, never shown to the caller.
    async fn check(&self) -> Result<(), String>;
}
