//! What the dashboard's handlers are given by the application.

use crate::login_limits::LoginLimits;
use actix_web::cookie::Key;
use herald_domain::ports::{Clock, MessageStore};
use herald_domain::usecases::{
    Admin, Broadcasts, CancelMessage, ErasePerson, GetMessage, ListMessages, ListTemplates, ManageWebhooks,
    MessageEvents, OwnerAccess, RateCards, Senders, SyncTemplates, Usage,
};
use std::sync::Arc;

/// Everything the dashboard's handlers use, built by the application.
pub struct DashboardContext {
    /// Login, sessions, the account page and the events sent about a message.
    pub access: OwnerAccess,
    /// API keys: create, list, disable (scoped to the owner's organization).
    pub admin: Admin,
    pub list_messages: ListMessages,
    pub get_message: GetMessage,
    pub message_events: MessageEvents,
    /// The message page's Cancel button (a message not dispatched yet).
    pub cancel_message: CancelMessage,
    /// The privacy page's erasure of a person: the same use case as `DELETE /api/v1/contacts/{recipient}`.
    pub erase: ErasePerson,
    /// The broadcasts pages: progress, Cancel and Resume.
    pub broadcasts: Arc<Broadcasts>,
    pub webhooks: ManageWebhooks,
    pub templates: ListTemplates,
    /// The account page's numbers, with the quality and messaging limit the network last reported.
    pub senders: Senders,
    /// The templates page's "sync now" (the same sync the periodic worker runs).
    pub sync_templates: Arc<SyncTemplates>,
    /// Usage counts for the account page.
    pub messages: Arc<dyn MessageStore>,
    /// The organization's rate card: a message page's estimated cost, as `GET /api/v1/messages/{id}` gives it.
    pub rate_cards: RateCards,
    /// The account page's cost of this month by category, as `GET /api/v1/usage` gives it.
    pub usage: Usage,
    pub clock: Arc<dyn Clock>,
    /// Signs the session and login cookies.
    pub cookie_key: Key,
    pub login_limits: LoginLimits,
    /// Whose `X-Forwarded-For` names the client the login limit counts (`HERALD_TRUSTED_PROXIES`).
    pub trusted_proxies: herald_domain::client_address::TrustedProxies,
}
