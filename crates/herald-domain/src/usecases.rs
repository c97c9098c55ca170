//! The use cases: one struct per operation, holding the ports it needs, with one error enum each.

mod admin;
mod authenticate;
mod callbacks;
mod dispatch;
mod media;
mod owner;
mod queries;
mod send;
mod templates;
#[cfg(test)]
mod tests;
mod webhooks;

pub use admin::{Admin, AdminError, NewSender};
pub use authenticate::{AuthError, Authenticate, Authenticated};
pub use callbacks::{CallbackReport, ProcessCallbacks};
pub use dispatch::{DispatchMessages, DispatchPorts, DispatchReport, DispatchSettings};
pub use media::{Media, MediaBody, MediaContent, MediaContentError, MediaPorts, UploadMediaError};
pub use owner::{
    AccountOverview, LoginError, MAX_PASSWORD_CHARS, MIN_PASSWORD_CHARS, NewSession, OwnerAccess, OwnerError,
    OwnerScope, SessionError, SessionSettings,
};
pub use queries::{
    GetMessage, ListMessages, MessageEvents, MessagePage, QueryError, WindowStatus, WindowView,
};
pub use send::{SendCommand, SendDraft, SendError, SendMessage, SendOutcome, SendPorts, SendSettings};
pub use templates::{ListTemplates, SyncError, SyncReport, SyncTemplates};
pub use webhooks::{
    DeliverWebhooks, DeliveryReport, DeliverySettings, EndpointPatch, ManageWebhooks, WebhookError,
};

use crate::ports::IdGenerator;

/// Typed id constructors over the [`IdGenerator`] port.
pub(crate) fn new_id<T>(ids: &dyn IdGenerator, make: fn(ulid::Ulid) -> T) -> T {
    make(ids.next_ulid())
}
