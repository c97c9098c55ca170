//! Scheduled sends (docs/api.md §4, `send_at`): the range a `send_at` must fall in, and cancelling a
//! message before dispatch (`POST /api/v1/messages/{id}/cancel`).

use super::send::SendSettings;
use super::shared::cancel_update;
use crate::ValidationErrors;
use crate::ids::{MessageId, OrganizationId};
use crate::message::Message;
use crate::ports::{CancelOutcome, Clock, IdGenerator, ScheduleStore, StoreError};
use crate::time::Timestamp;
use std::sync::Arc;

/// `send_at` must lie between `schedule_min_lead` and `schedule_max_lead` from now (`422` on `send_at`).
pub(super) fn check_send_at(
    send_at: Option<Timestamp>,
    now: Timestamp,
    settings: &SendSettings,
) -> Result<(), ValidationErrors> {
    let Some(send_at) = send_at else {
        return Ok(());
    };
    let earliest = now + settings.schedule_min_lead;
    let latest = now + settings.schedule_max_lead;
    if send_at < earliest || send_at > latest {
        return Err(ValidationErrors::single(
            "send_at",
            format!(
                "must be from {} s to {} days ahead (between {} and {})",
                settings.schedule_min_lead.num_seconds(),
                settings.schedule_max_lead.num_days(),
                earliest.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                latest.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            ),
        ));
    }
    Ok(())
}

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
