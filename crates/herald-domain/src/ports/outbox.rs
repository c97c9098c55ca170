//! The outbox: dispatch jobs claimed with a lease, and each attempt's outcome.

use super::error::StoreError;
use crate::ids::{JobId, MessageId, OrganizationId, SenderId};
use crate::time::Timestamp;
use async_trait::async_trait;

/// A dispatch job, written with the message it sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutboxJob {
    pub id: JobId,
    pub organization_id: OrganizationId,
    pub message_id: MessageId,
    pub sender_id: SenderId,
    /// Not to be attempted before this.
    pub available_at: Timestamp,
    /// Retries stop after this; the message fails.
    pub deadline: Timestamp,
    /// The trace of the request that accepted the message, kept with the message for the work after it.
    pub trace: Option<crate::trace::TraceContext>,
}

/// The outbox: claiming due jobs with a lease, and recording each attempt's outcome.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait OutboxStore: Send + Sync + 'static {
    /// Claims up to `limit` jobs that are due at `now`: pending ones whose time has come, and in-flight ones
    /// whose lease expired (those come back as [`crate::dispatch::JobHistory::Reclaimed`]). Each claimed job
    /// is leased to `token` until `lease_until`. Each sender with due jobs gets a fair share of the batch,
    /// its oldest, and never more than [`crate::dispatch::sender_claim_cap`] (what it can send within the
    /// lease). Any number of workers may call this at once; no job is
    /// handed to two live claims.
    async fn claim_jobs(
        &self,
        token: &crate::dispatch::ClaimToken,
        now: Timestamp,
        lease_until: Timestamp,
        limit: u32,
    ) -> Result<Vec<crate::dispatch::ClaimedJob>, StoreError>;

    /// Extends to `lease_until` the lease of each of `jobs` still held by `token` (in flight under that
    /// claim); answers how many were. A worker renews the jobs it is still working on, so a slow sender or
    /// a long transfer never lets its lease lapse and another worker send the message again.
    async fn renew_jobs(
        &self,
        token: &crate::dispatch::ClaimToken,
        jobs: &[JobId],
        lease_until: Timestamp,
    ) -> Result<usize, StoreError>;

    /// Records an outcome, in one transaction with the message's status change it implies. Answers `false`
    /// (and writes nothing) when the job is no longer held by `completion.token`.
    async fn complete_job(&self, completion: &crate::dispatch::JobCompletion) -> Result<bool, StoreError>;

    /// Records the outcomes of one dispatch round together, in ONE transaction: each exactly as
    /// [`Self::complete_job`] would record it alone (with the message's status change it implies, and only
    /// while the job is held by that completion's token). Answers one flag per completion, in order: `false`
    /// when that job is no longer held by its token, and then nothing was written for it; a lost claim does
    /// not keep the others from being recorded.
    ///
    /// # Errors
    /// A store failure; then NOTHING of the batch was written (the transaction rolled back), so the caller
    /// may still record the completions one by one.
    async fn complete_jobs(
        &self,
        completions: &[crate::dispatch::JobCompletion],
    ) -> Result<Vec<bool>, StoreError>;

    /// Every sender with jobs not done yet (pending or in flight), with how many and the due time of its
    /// oldest pending job due at `now`. One aggregated read, for the monitoring gauges; senders with an
    /// empty outbox are not listed.
    async fn backlog(&self, now: Timestamp) -> Result<Vec<crate::dispatch::SenderBacklog>, StoreError>;
}
