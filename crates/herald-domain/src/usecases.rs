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

use crate::ports::{IdGenerator, StoreError};
use std::future::Future;

/// Typed id constructors over the [`IdGenerator`] port.
pub(crate) fn new_id<T>(ids: &dyn IdGenerator, make: fn(ulid::Ulid) -> T) -> T {
    make(ids.next_ulid())
}

/// Records a worker round's completions with `together` (one transaction for them all, one flag per
/// completion); when that fails, or answers the wrong number of flags, with `alone` for each, so that one
/// completion the store cannot write costs only its own job. That is safe because each completion writes
/// only under its own claim token: one already written answers `false`. Answers per completion, in order.
pub(crate) async fn record_completions<'a, C, Together, Alone>(
    completions: &'a [C],
    together: impl FnOnce(&'a [C]) -> Together,
    alone: impl Fn(&'a C) -> Alone,
) -> Vec<Result<bool, StoreError>>
where
    Together: Future<Output = Result<Vec<bool>, StoreError>>,
    Alone: Future<Output = Result<bool, StoreError>>,
{
    if completions.is_empty() {
        return Vec::new();
    }
    match together(completions).await {
        Ok(held) if held.len() == completions.len() => return held.into_iter().map(Ok).collect(),
        Ok(held) => tracing::warn!(
            completions = completions.len(),
            answers = held.len(),
            "the store answered a round's completions with the wrong number of flags; recording them \
             one by one"
        ),
        Err(error) => tracing::warn!(
            %error,
            "could not record a round's completions together; recording them one by one"
        ),
    }
    futures::future::join_all(completions.iter().map(alone)).await
}
