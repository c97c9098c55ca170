//! Status changes, inbound messages and stored callbacks, driven by the network.

use super::error::StoreError;
use crate::ids::OrganizationId;
use crate::message::Message;
use crate::time::Timestamp;
use async_trait::async_trait;

/// Status changes and inbound messages, driven by the network's callbacks.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait TrackingStore: Send + Sync + 'static {
    /// Applies a status report to the message (locked for the update) with the status machine; records the
    /// report in its history whether applied or not, and writes a customer event when it changed the status.
    /// `None` when the message does not exist for this organization.
    async fn apply_status(
        &self,
        update: &crate::status::StatusUpdate,
    ) -> Result<Option<crate::status::StatusApplied>, StoreError>;

    /// [`Self::apply_status`] for a report that came alone in the stored callback `callback`, which is marked
    /// processed at `at` (without a note) in the same transaction: the usual callback then costs one commit,
    /// not two. `None` when the message does not exist; then nothing is written and the callback stays
    /// unmarked, for the caller to mark with its note.
    async fn apply_callback_status(
        &self,
        update: &crate::status::StatusUpdate,
        callback: &crate::ids::EventId,
        at: Timestamp,
    ) -> Result<Option<crate::status::StatusApplied>, StoreError>;

    /// Stores `callback` and applies `update`, the one status report it holds, in one transaction: the
    /// callback is stored processed at `at` (without a note) when the message exists, and unprocessed when
    /// it does not (`None`: only the callback is written, for the caller to mark with its note). The
    /// network's usual callback then costs one commit from its arrival to its status applied.
    async fn store_callback_applying_status(
        &self,
        callback: &crate::dispatch::StoredCallback,
        update: &crate::status::StatusUpdate,
        at: Timestamp,
    ) -> Result<Option<crate::status::StatusApplied>, StoreError>;

    /// The organization's message with this network id.
    async fn message_by_network_id(
        &self,
        organization: &OrganizationId,
        network_message_id: &str,
    ) -> Result<Option<Message>, StoreError>;

    /// Records an inbound message, opens or refreshes its service window and writes its customer event, in one
    /// transaction. Answers `false` when that network message id was already recorded (a duplicate callback).
    async fn record_inbound_message(
        &self,
        record: &crate::customer_event::InboundRecord,
    ) -> Result<bool, StoreError>;

    /// Records a notice for one organization in one transaction: locks the template copy it names (by
    /// business account, name and language) or its sender, calls [`crate::notice::decide`] on what it
    /// found, writes the new state and the customer event with its fan-out. Answers `false`, writing
    /// nothing, when the organization already has an event of the notice's `dedupe_key` (a redelivered or
    /// reprocessed callback).
    async fn record_notice(&self, record: &crate::notice::NoticeRecord) -> Result<bool, StoreError>;

    /// Stores a raw network callback durably, before it is acknowledged.
    async fn store_callback(&self, callback: &crate::dispatch::StoredCallback) -> Result<(), StoreError>;

    /// At most `limit` stored callbacks not yet processed (and not parked) that were received before
    /// `received_before`, oldest first. A row the store cannot read back (an id that is not an event id: a
    /// hand-edited row) is not listed but counted as `unreadable`: it is parked at `now` with the reason as
    /// its last error, so that it cannot fail every later sweep, and [`Self::parked_callbacks`] shows it.
    async fn unprocessed_callbacks(
        &self,
        received_before: Timestamp,
        limit: u32,
        now: Timestamp,
    ) -> Result<crate::dispatch::CallbackPage, StoreError>;

    /// Marks a stored callback processed, with a note of anything skipped.
    async fn mark_callback_processed(
        &self,
        id: &crate::ids::EventId,
        at: Timestamp,
        note: Option<String>,
    ) -> Result<(), StoreError>;

    /// Records that processing a stored callback failed with `error`. The callback that has now failed
    /// `park_after` times is parked at `at`: [`Self::unprocessed_callbacks`] no longer lists it, and it is
    /// kept with its attempt count and last error. Answers whether it is parked.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] for an unknown callback.
    async fn record_callback_failure(
        &self,
        id: &crate::ids::EventId,
        at: Timestamp,
        error: &str,
        park_after: u32,
    ) -> Result<bool, StoreError>;

    /// Parked callbacks, oldest first.
    async fn parked_callbacks(&self, limit: u32) -> Result<Vec<crate::dispatch::ParkedCallback>, StoreError>;

    /// How many callbacks are parked.
    async fn count_parked_callbacks(&self) -> Result<u64, StoreError>;

    /// Puts every parked callback back into the backlog with a fresh attempt count; answers how many.
    async fn requeue_parked_callbacks(&self) -> Result<u64, StoreError>;
}
