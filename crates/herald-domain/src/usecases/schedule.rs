//! Cancelling a message before dispatch (`POST /api/v1/messages/{id}/cancel`), a scheduled one typically
//! (docs/api.md §4, `send_at`; the range a `send_at` must fall in is [`super::send::SendSettings::check_send_at`]).

use super::shared::cancel_update;
use crate::ids::{MessageId, OrganizationId};
use crate::message::Message;
use crate::ports::{CancelOutcome, Clock, IdGenerator, ScheduleStore, StoreError};
use std::sync::Arc;

/// Why a cancel was refused. Nothing changed.
#[derive(Debug, thiserror::Error)]
pub enum CancelError {
    /// No such id for this organization (another organization's id included).
    #[error("not found")]
    NotFound,
    /// Dispatch has it already (claimed, sent or final): `409 not_cancellable`.
    #[error("the message is {}: only a message not dispatched yet can be cancelled", .0.status.as_str())]
    NotCancellable(Box<Message>),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Cancels a message that no dispatch worker has claimed yet (a scheduled one, typically).
pub struct CancelMessage {
    store: Arc<dyn ScheduleStore>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
}

impl CancelMessage {
    pub fn new(store: Arc<dyn ScheduleStore>, clock: Arc<dyn Clock>, ids: Arc<dyn IdGenerator>) -> Self {
        Self { store, clock, ids }
    }

    /// # Errors
    /// See [`CancelError`].
    #[tracing::instrument(name = "cancel_message", skip_all, fields(org = %organization, message_id = %id))]
    pub async fn execute(
        &self,
        organization: &OrganizationId,
        id: &MessageId,
    ) -> Result<Message, CancelError> {
        let now = self.clock.now();
        let update = cancel_update(self.ids.as_ref(), organization, id, now);
        match self.store.cancel(&update).await? {
            CancelOutcome::Cancelled(message) => Ok(message),
            CancelOutcome::NotCancellable(message) => Err(CancelError::NotCancellable(Box::new(message))),
            CancelOutcome::NotFound => Err(CancelError::NotFound),
        }
    }
}
