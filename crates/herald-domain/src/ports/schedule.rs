//! Scheduled sends: cancelling a message before it is dispatched.

use super::error::StoreError;
use crate::message::Message;
use crate::status::StatusUpdate;
use async_trait::async_trait;

/// The outcome of [`ScheduleStore::cancel`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CancelOutcome {
    /// The outbox job was removed, the message is `cancelled` (its customer event written) and its quota
    /// count given back, all in one transaction.
    Cancelled(Message),
    /// A dispatch worker claimed the job first, or the message is past dispatch: nothing was written.
    NotCancellable(Message),
    /// No such message in the organization (another organization's id included).
    NotFound,
}

/// Cancelling scheduled (or not yet dispatched) messages.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait ScheduleStore: Send + Sync + 'static {
    /// Cancels `update.message_id` (whose report is `cancelled`) if its outbox job was never claimed: in ONE
    /// transaction, deletes the job (only while it is pending and never attempted, so a cancel and a
    /// dispatch claim never both win), applies the report through the status machine, and decrements the
    /// organization's usage count of the period the message was counted in (the period of its `created_at`).
    async fn cancel(&self, update: &StatusUpdate) -> Result<CancelOutcome, StoreError>;

    /// [`ScheduleStore::cancel`] for each of `updates`, in ONE transaction; answers how many were
    /// cancelled (the others were taken by dispatch first, or are unknown, and are left as they are).
    async fn cancel_many(&self, updates: &[StatusUpdate]) -> Result<u32, StoreError>;
}
