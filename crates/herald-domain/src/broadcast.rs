//! Broadcasts (docs/api.md §4.10): one template to many recipients, accepted at once and released to
//! dispatch at the pace the sender may send.
//!
//! A broadcast's messages are ordinary messages (each with its own id, status and events). They are
//! accepted together, with their outbox jobs **held** (due at [`HELD_UNTIL`], which no claim reaches); the
//! pacer releases them a few at a time so that the sender's queue never holds more than a couple of
//! seconds of the broadcast, which keeps single sends and other organizations from waiting behind it.

use crate::ids::{BroadcastId, EventId, OrganizationId, SenderId};
use crate::message::{MessageError, MessageStatus};
use crate::template::TemplateRef;
use crate::time::{Duration, Timestamp};
use crate::values::PhoneNumber;
use std::collections::BTreeMap;

/// The most recipients one broadcast takes.
pub const MAX_RECIPIENTS: usize = 10_000;

/// The due time of a held job: far beyond any claim's `now`, so only a release makes it due.
pub fn held_until() -> Timestamp {
    // 9999-01-01T00:00:00Z: representable by PostgreSQL's timestamptz and sorted last as SQLite text.
    Timestamp::from_timestamp(253_370_764_800, 0).unwrap_or(Timestamp::MAX_UTC)
}

/// Where a broadcast stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BroadcastState {
    /// Accepted; waiting for its `send_at`.
    Scheduled,
    /// Releasing its messages to dispatch.
    Running,
    /// Stopped by the network's answer (spam rate, quality, account): nothing more is released until
    /// resumed.
    Paused,
    /// Every message was released and dispatch is done with each of them.
    Completed,
    /// Being cancelled: nothing more is released, and its untaken messages are being cancelled a chunk at
    /// a time. A cancel that stopped half-way (a lost connection, a crash) leaves it here, so a retried
    /// cancel, or the pacer, finishes it.
    Cancelling,
    /// Cancelled: what had not been dispatched is `cancelled`.
    Cancelled,
}

impl BroadcastState {
    pub const ALL: [Self; 6] = [
        Self::Scheduled,
        Self::Running,
        Self::Paused,
        Self::Completed,
        Self::Cancelling,
        Self::Cancelled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Scheduled => "scheduled",
            Self::Running => "running",
            Self::Paused => "paused",
            Self::Completed => "completed",
            Self::Cancelling => "cancelling",
            Self::Cancelled => "cancelled",
        }
    }

    pub fn parse(value: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == value)
    }

    /// No change comes after it.
    pub fn is_final(self) -> bool {
        matches!(self, Self::Completed | Self::Cancelled)
    }

    /// The pacer works on it (a scheduled one once its `send_at` has come).
    pub fn is_active(self) -> bool {
        matches!(self, Self::Scheduled | Self::Running)
    }
}

/// Why a broadcast paused: the network's error that stopped it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PauseReason {
    /// Herald's error code (`spam_rate_limited`, `template_paused`, …).
    pub code: String,
    pub detail: String,
    pub network_code: Option<i64>,
    pub paused_at: Timestamp,
}

impl PauseReason {
    /// The pause a failed message's error calls for, if any. Errors about one recipient (unreachable,
    /// opted out, pair rate) never stop a broadcast; errors about the sender, the template or the account
    /// would fail every message after it, and a spam-rate or quality error gets worse with every send.
    pub fn for_error(error: &MessageError, at: Timestamp) -> Option<Self> {
        const PAUSING: [&str; 9] = [
            "spam_rate_limited",
            "sender_blocked",
            "account_locked",
            "template_paused",
            "template_disabled",
            "payment_problem",
            "credentials_invalid",
            "permission_denied",
            "sender_not_registered",
        ];
        PAUSING.contains(&error.code.as_str()).then(|| Self {
            code: error.code.clone(),
            detail: format!(
                "paused after the network answered {}: {}",
                error.code, error.detail
            ),
            network_code: error.network_code,
            paused_at: at,
        })
    }
}

/// A broadcast as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broadcast {
    pub id: BroadcastId,
    pub organization_id: OrganizationId,
    pub sender_id: SenderId,
    pub from: PhoneNumber,
    pub template: TemplateRef,
    pub state: BroadcastState,
    /// Messages accepted.
    pub total: u32,
    /// Messages released to dispatch so far.
    pub released: u32,
    pub send_at: Option<Timestamp>,
    pub pause: Option<PauseReason>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub completed_at: Option<Timestamp>,
    pub cancelled_at: Option<Timestamp>,
}

impl Broadcast {
    /// When the pacer may start on it.
    pub fn starts_at(&self) -> Timestamp {
        self.send_at.unwrap_or(self.created_at)
    }
}

/// A broadcast's messages counted by status.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BroadcastCounts(pub BTreeMap<MessageStatus, u32>);

impl BroadcastCounts {
    pub fn get(&self, status: MessageStatus) -> u32 {
        self.0.get(&status).copied().unwrap_or(0)
    }

    pub fn total(&self) -> u32 {
        self.0.values().sum()
    }

    /// Messages dispatch has not finished with: not yet submitted, failed or cancelled.
    pub fn undispatched(&self) -> u32 {
        self.get(MessageStatus::Scheduled) + self.get(MessageStatus::Accepted)
    }
}

/// A broadcast with its counts: the resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BroadcastView {
    pub broadcast: Broadcast,
    pub counts: BroadcastCounts,
}

/// What the pacer may release of one broadcast now (docs/api.md §4.10, "Pacing").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReleasePolicy {
    pub now: Timestamp,
    /// The released jobs' dispatch deadline.
    pub deadline: Timestamp,
    /// The most jobs of this broadcast that may wait in the outbox at once, released and not yet done.
    pub max_open: u32,
    /// The sender's unique-recipient limit per rolling 24 hours (its messaging limit tier), if known.
    pub tier_limit: Option<u32>,
    /// The start of the tier's window (`now` − 24 h).
    pub tier_since: Timestamp,
}

impl ReleasePolicy {
    /// How much of the sender's throughput a broadcast may keep queued: two seconds of it, so a single
    /// send made meanwhile waits for at most that much of the broadcast.
    pub const QUEUED_SECONDS: u32 = 2;

    pub fn new(
        now: Timestamp,
        dispatch_deadline: Duration,
        throughput_per_second: u32,
        messaging_limit: Option<&str>,
    ) -> Self {
        Self {
            now,
            deadline: now + dispatch_deadline,
            max_open: throughput_per_second.max(1).saturating_mul(Self::QUEUED_SECONDS),
            tier_limit: tier_limit(messaging_limit),
            tier_since: now - Duration::hours(24),
        }
    }

    /// How many to release, given what the outbox holds of the broadcast (`open`), what is still held,
    /// and the recipients the sender reached in the tier's window (`tier_used`).
    pub fn allowance(&self, held: u32, open: u32, tier_used: u32) -> u32 {
        let by_queue = self.max_open.saturating_sub(open);
        let by_tier = self
            .tier_limit
            .map_or(u32::MAX, |limit| limit.saturating_sub(tier_used));
        held.min(by_queue).min(by_tier)
    }
}

/// The unique recipients per rolling 24 hours a messaging limit tier allows (`None`: unlimited or
/// unknown; Herald then paces by throughput alone).
pub fn tier_limit(messaging_limit: Option<&str>) -> Option<u32> {
    match messaging_limit? {
        "TIER_50" => Some(50),
        "TIER_250" => Some(250),
        "TIER_1K" => Some(1_000),
        "TIER_2K" => Some(2_000),
        "TIER_10K" => Some(10_000),
        "TIER_100K" => Some(100_000),
        _ => None,
    }
}

/// What one release did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReleaseOutcome {
    /// `count` jobs released (0 when the queue or the tier had no room); `held` still wait.
    Released {
        count: u32,
        held: u32,
        waiting_for_tier: bool,
    },
    /// The broadcast is not active any more (paused, cancelled, completed by another worker).
    Inactive,
}

/// The kind of a broadcast's customer event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BroadcastEventKind {
    /// Progress: sent at most once per progress interval while counts change, and on every pause.
    Progress,
    /// Dispatch is done with every message (or the broadcast was cancelled): the last event.
    Completed,
}

/// A broadcast's customer event (`broadcast.progress`, `broadcast.completed`), ready to be recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BroadcastEvent {
    pub id: EventId,
    pub kind: BroadcastEventKind,
    pub view: BroadcastView,
    pub recorded_at: Timestamp,
}

impl BroadcastEvent {
    pub fn event_type(&self) -> crate::customer_event::CustomerEventType {
        match self.kind {
            BroadcastEventKind::Progress => crate::customer_event::CustomerEventType::BroadcastProgress,
            BroadcastEventKind::Completed => crate::customer_event::CustomerEventType::BroadcastCompleted,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seconds: i64) -> Timestamp {
        Timestamp::from_timestamp(1_800_000_000 + seconds, 0).unwrap_or_default()
    }

    #[test]
    fn held_jobs_are_due_after_any_real_time() {
        assert!(held_until() > at(0) + Duration::days(365 * 3000));
        assert_eq!(held_until().to_rfc3339(), "9999-01-01T00:00:00+00:00");
    }

    #[test]
    fn the_queue_holds_two_seconds_of_the_senders_throughput() {
        let policy = ReleasePolicy::new(at(0), Duration::hours(24), 80, None);
        assert_eq!(policy.max_open, 160);
        assert_eq!(policy.allowance(10_000, 0, 0), 160);
        assert_eq!(policy.allowance(10_000, 150, 0), 10);
        assert_eq!(policy.allowance(5, 0, 0), 5);
        assert_eq!(policy.allowance(10_000, 200, 0), 0);
    }

    #[test]
    fn the_tier_caps_unique_recipients_in_the_last_day() {
        let policy = ReleasePolicy::new(at(0), Duration::hours(24), 80, Some("TIER_250"));
        assert_eq!(policy.tier_limit, Some(250));
        assert_eq!(policy.tier_since, at(0) - Duration::hours(24));
        assert_eq!(policy.allowance(10_000, 0, 200), 50);
        assert_eq!(policy.allowance(10_000, 0, 250), 0);
        assert_eq!(policy.allowance(10_000, 0, 900), 0);
    }

    #[test]
    fn unknown_and_unlimited_tiers_pace_by_throughput_alone() {
        assert_eq!(tier_limit(None), None);
        assert_eq!(tier_limit(Some("TIER_UNLIMITED")), None);
        assert_eq!(tier_limit(Some("TIER_1K")), Some(1_000));
        assert_eq!(tier_limit(Some("TIER_100K")), Some(100_000));
    }

    fn error(code: &str) -> MessageError {
        MessageError {
            code: code.to_owned(),
            title: "t".to_owned(),
            detail: "d".to_owned(),
            network_code: Some(131_048),
        }
    }

    #[test]
    fn sender_and_quality_errors_pause_and_recipient_errors_do_not() {
        let pause = PauseReason::for_error(&error("spam_rate_limited"), at(5));
        let pause = pause.as_ref();
        assert_eq!(pause.map(|p| p.code.as_str()), Some("spam_rate_limited"));
        assert_eq!(pause.and_then(|p| p.network_code), Some(131_048));
        assert_eq!(pause.map(|p| p.paused_at), Some(at(5)));
        for code in ["template_paused", "account_locked", "sender_blocked"] {
            assert!(PauseReason::for_error(&error(code), at(0)).is_some(), "{code}");
        }
        for code in [
            "recipient_unreachable",
            "recipient_opted_out",
            "pair_rate_limited",
            "marketing_limited",
            "network_error",
        ] {
            assert!(PauseReason::for_error(&error(code), at(0)).is_none(), "{code}");
        }
    }

    #[test]
    fn states_round_trip_and_only_scheduled_and_running_are_paced() {
        for state in BroadcastState::ALL {
            assert_eq!(BroadcastState::parse(state.as_str()), Some(state));
        }
        assert!(BroadcastState::Scheduled.is_active());
        assert!(BroadcastState::Running.is_active());
        assert!(!BroadcastState::Paused.is_active());
        assert!(BroadcastState::Completed.is_final() && BroadcastState::Cancelled.is_final());
        assert!(!BroadcastState::Paused.is_final());
        assert!(!BroadcastState::Cancelling.is_active() && !BroadcastState::Cancelling.is_final());
    }
}
