//! Types of the dispatch and callback flows that the store ports carry: claimed outbox jobs, their
//! outcomes, status updates, inbound records, stored callbacks and the customer events they produce.

use crate::ids::{EventId, JobId, MessageId, OrganizationId, SenderId};
use crate::message::{Message, MessageError};
use crate::organization::{AccountStatus, SenderNumber};
use crate::time::Timestamp;

use ulid::Ulid;

/// Identifies one claim of outbox jobs; completing a job requires the claim that holds it, so a worker whose
/// lease expired can never complete a job another worker now owns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClaimToken(pub Ulid);

impl ClaimToken {
    pub fn as_string(&self) -> String {
        self.0.to_string()
    }
}

/// The most jobs of one sender a claim takes: what the sender can send within the lease at its throughput
/// (at least one). More would only wait in the sender's pacer, their lease running, while another worker
/// could have sent them; `OutboxStore::claim_jobs` applies it beside the fair share.
pub fn sender_claim_cap(throughput_per_second: u32, now: Timestamp, lease_until: Timestamp) -> i64 {
    let lease_ms = (lease_until - now).num_milliseconds().max(0);
    (i64::from(throughput_per_second).saturating_mul(lease_ms) / 1_000).max(1)
}

/// What happened to a job before this claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobHistory {
    /// Never attempted.
    Fresh,
    /// Attempted before, and the outcome was recorded (a retry).
    Retried,
    /// Its previous claim's lease expired without an outcome: the worker died, maybe after the network
    /// accepted the send. It must not be resent blindly.
    Reclaimed,
    /// It waited for a callback after an unknown outcome, and none came.
    AwaitedCallback,
}

impl JobHistory {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Fresh => "fresh",
            Self::Retried => "retried",
            Self::Reclaimed => "reclaimed",
            Self::AwaitedCallback => "awaited_callback",
        }
    }
}

/// An outbox job claimed for dispatch, with what the dispatcher needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimedJob {
    pub job_id: JobId,
    pub organization_id: OrganizationId,
    /// Attempts including this one.
    pub attempts: u32,
    pub history: JobHistory,
    pub deadline: Timestamp,
    pub message: Message,
    pub sender: SenderNumber,
    pub account_status: AccountStatus,
    /// The trace of the request that accepted the message.
    pub trace: Option<crate::trace::TraceContext>,
}

/// One sender's outbox jobs that are not done yet, as monitoring samples them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SenderBacklog {
    pub organization_id: OrganizationId,
    pub sender_id: SenderId,
    /// Jobs pending or in flight.
    pub depth: u64,
    /// When the oldest of its pending jobs that are due became due; `None` when none is due.
    pub oldest_due: Option<Timestamp>,
}

/// The outcome of one dispatch attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobOutcome {
    /// The network accepted the message: the job is done and the message becomes `submitted`.
    Submitted {
        network_message_id: String,
        /// The path it went out on.
        route: crate::marketing::NetworkRoute,
    },
    /// Try again at `at`.
    Retry { at: Timestamp, error: String },
    /// The message fails with `error`; the job is done.
    Failed { error: MessageError },
    /// The outcome is unknown: wait until `until` for a callback carrying the message id, then retry.
    AwaitCallback { until: Timestamp, detail: String },
    /// The organization is not active: try again at `until` without counting an attempt.
    Hold { until: Timestamp },
    /// The message already moved on (a callback arrived first): nothing to send, the job is done.
    AlreadyDone,
}

/// Completing a claimed job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobCompletion {
    pub job_id: JobId,
    pub organization_id: OrganizationId,
    pub message_id: MessageId,
    pub token: ClaimToken,
    pub outcome: JobOutcome,
    pub at: Timestamp,
    /// Ids for the status-history entry and the customer event the outcome may write.
    pub event_id: EventId,
    pub customer_event_id: EventId,
}

/// A raw network callback, stored before it is acknowledged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredCallback {
    pub id: EventId,
    pub received_at: Timestamp,
    pub body: Vec<u8>,
}

/// A page of the stored-callback backlog ([`crate::ports::TrackingStore::unprocessed_callbacks`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallbackPage {
    /// The callbacks to process, oldest first.
    pub callbacks: Vec<StoredCallback>,
    /// Rows of the page the store could not read back and parked as it read them: with `callbacks`, what the
    /// page held, so a page of `limit` rows says more may be waiting.
    pub unreadable: usize,
}

impl From<Vec<StoredCallback>> for CallbackPage {
    fn from(callbacks: Vec<StoredCallback>) -> Self {
        Self {
            callbacks,
            unreadable: 0,
        }
    }
}

/// A stored callback whose processing failed too often to go on retrying it: kept for an operator to
/// inspect, and out of the backlog so it no longer holds up the callbacks after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParkedCallback {
    /// The stored id: an event id, or what a hand-edited row holds instead (parked because it cannot be
    /// processed by id).
    pub id: String,
    pub received_at: Timestamp,
    /// How many times processing it failed.
    pub attempts: u32,
    pub last_error: Option<String>,
    pub parked_at: Timestamp,
}

#[cfg(test)]
mod claim_cap_tests {
    use super::sender_claim_cap;
    use chrono::{TimeDelta, TimeZone, Utc};

    #[test]
    fn a_claim_takes_what_the_sender_sends_within_the_lease_and_at_least_one() {
        let now = Utc.with_ymd_and_hms(2026, 11, 25, 8, 0, 0).unwrap();
        let lease = |ms| now + TimeDelta::milliseconds(ms);
        assert_eq!(sender_claim_cap(80, now, lease(60_000)), 4_800);
        assert_eq!(sender_claim_cap(1, now, lease(60_000)), 60);
        assert_eq!(sender_claim_cap(100, now, lease(600)), 60);
        assert_eq!(sender_claim_cap(1, now, lease(500)), 1);
        assert_eq!(sender_claim_cap(0, now, lease(60_000)), 1);
        assert_eq!(sender_claim_cap(1, now, lease(-5)), 1);
    }
}
