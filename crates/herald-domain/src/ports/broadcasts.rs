//! Broadcasts: accepting one with all its messages, reading them, and the pacer's releases.

use super::error::StoreError;
use super::messages::QuotaCharge;
use super::outbox::OutboxJob;
use crate::broadcast::{
    Broadcast, BroadcastEvent, BroadcastState, BroadcastView, PauseReason, ReleaseOutcome, ReleasePolicy,
};
use crate::ids::{BroadcastId, MessageId, OrganizationId};
use crate::message::{Message, MessageError, StatusEvent};
use crate::time::Timestamp;
use crate::values::{IdempotencyKey, RequestFingerprint};
use async_trait::async_trait;

/// One message of a broadcast as it is accepted: the message, its first status event, and its job,
/// held (due at [`crate::broadcast::held_until`]) until the pacer releases it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BroadcastMessage {
    pub message: Message,
    pub event: StatusEvent,
    pub job: OutboxJob,
}

/// Everything written when a broadcast is accepted, in ONE transaction (its rows in bounded statements).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BroadcastAccept {
    pub broadcast: Broadcast,
    pub messages: Vec<BroadcastMessage>,
    /// The whole broadcast is counted at once: it fits, or nothing is written.
    pub quota: QuotaCharge,
    pub idempotency: Option<(IdempotencyKey, RequestFingerprint)>,
}

/// The outcome of [`BroadcastStore::accept`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BroadcastAcceptOutcome {
    Accepted,
    /// The quota has room for `remaining` messages only (fewer than the broadcast's): nothing was written.
    QuotaExceeded {
        remaining: u64,
    },
    /// Another request with this `Idempotency-Key` was accepted first: nothing was written.
    KeyTaken,
}

/// A broadcast found by its `Idempotency-Key`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyedBroadcast {
    pub id: BroadcastId,
    pub fingerprint: RequestFingerprint,
}

/// Filters and position of a broadcast list, newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BroadcastQuery {
    pub state: Option<BroadcastState>,
    /// Only broadcasts whose id sorts before this one (the cursor).
    pub before: Option<BroadcastId>,
    pub limit: u32,
}

/// An active broadcast whose time has come, with what the pacer needs of its sender.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DueBroadcast {
    pub broadcast: Broadcast,
    pub throughput_per_second: u32,
    /// The sender's messaging limit tier as the network last reported it (`TIER_1K`, …).
    pub messaging_limit: Option<String>,
    /// When its last progress event was recorded.
    pub progress_at: Option<Timestamp>,
    /// The failure time of the last failed message the pacer looked at (its cursor for pauses).
    pub failures_seen: Option<Timestamp>,
}

/// One failed message of a broadcast.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BroadcastFailure {
    pub message_id: MessageId,
    pub error: MessageError,
    pub failed_at: Timestamp,
}

/// A state change of a broadcast, made only from one of `from`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BroadcastTransition {
    pub from: Vec<BroadcastState>,
    pub to: BroadcastState,
    /// Set with `Paused`, cleared otherwise.
    pub pause: Option<PauseReason>,
    pub at: Timestamp,
    /// Recorded in the same transaction, with its webhook deliveries.
    pub event: Option<BroadcastEvent>,
}

/// Broadcasts and their messages.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait BroadcastStore: Send + Sync + 'static {
    /// Writes the broadcast, its messages, their first events and held jobs, and the quota count, in ONE
    /// transaction, or nothing at all.
    async fn accept(&self, request: &BroadcastAccept) -> Result<BroadcastAcceptOutcome, StoreError>;

    /// The broadcast an `Idempotency-Key` of the organization was accepted with.
    async fn keyed(
        &self,
        organization: &OrganizationId,
        key: &IdempotencyKey,
    ) -> Result<Option<KeyedBroadcast>, StoreError>;

    /// The broadcast with its messages counted by status.
    async fn broadcast(
        &self,
        organization: &OrganizationId,
        id: &BroadcastId,
    ) -> Result<Option<BroadcastView>, StoreError>;

    /// The organization's broadcasts, newest first, each with its messages counted by status (as
    /// `broadcast` reads it).
    async fn broadcasts(
        &self,
        organization: &OrganizationId,
        query: &BroadcastQuery,
    ) -> Result<Vec<BroadcastView>, StoreError>;

    /// Up to `limit` broadcasts of every organization that are scheduled or running and whose `send_at`
    /// (if any) has come.
    async fn due(&self, now: Timestamp, limit: u32) -> Result<Vec<DueBroadcast>, StoreError>;

    /// Releases held jobs of the broadcast, oldest first, as many as `policy` allows given what the outbox
    /// holds of it and the recipients its sender reached in the tier's window, all counted inside the
    /// transaction that releases them (with the broadcast's row locked, so two workers never release past
    /// the policy together). A scheduled broadcast becomes running. Released jobs become due at
    /// `policy.now` with `policy.deadline`.
    async fn release(
        &self,
        organization: &OrganizationId,
        id: &BroadcastId,
        policy: &ReleasePolicy,
    ) -> Result<ReleaseOutcome, StoreError>;

    /// Failed messages of the broadcast that failed after `since`, in the order they failed, with their
    /// errors and failure times.
    async fn failures(
        &self,
        organization: &OrganizationId,
        id: &BroadcastId,
        since: Option<Timestamp>,
        limit: u32,
    ) -> Result<Vec<BroadcastFailure>, StoreError>;

    /// Moves the pacer's failure cursor forward to `last` (a failure time).
    async fn see_failures(
        &self,
        organization: &OrganizationId,
        id: &BroadcastId,
        last: Timestamp,
    ) -> Result<(), StoreError>;

    /// Applies `change` if the broadcast is in one of its `from` states; `None` when it is not (or does
    /// not exist), and then nothing is written.
    async fn transition(
        &self,
        organization: &OrganizationId,
        id: &BroadcastId,
        change: &BroadcastTransition,
    ) -> Result<Option<Broadcast>, StoreError>;

    /// Records a progress event (with its deliveries) and the time of it.
    async fn record_progress(&self, event: &BroadcastEvent) -> Result<(), StoreError>;

    /// Up to `limit` broadcasts of every organization left `cancelling` since before `before` (unchanged
    /// since then): cancels that stopped half-way, for the pacer to finish. Oldest change first.
    async fn cancelling(&self, before: Timestamp, limit: u32) -> Result<Vec<Broadcast>, StoreError>;

    /// Up to `limit` messages of the broadcast that dispatch has not taken: their jobs pending and never
    /// attempted (held or released).
    async fn untaken(
        &self,
        organization: &OrganizationId,
        id: &BroadcastId,
        limit: u32,
    ) -> Result<Vec<MessageId>, StoreError>;
}
