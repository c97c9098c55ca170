//! `[dispatch]`: how accepted messages are scheduled, handed to the network and retried.

use serde::{Deserialize, Serialize};

/// The dispatch loops of a worker process and the times a message's dispatch keeps to.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DispatchSection {
    /// Concurrent dispatch loops per worker process.
    pub loops: usize,
    /// Jobs claimed per dispatch round.
    pub batch_size: u32,
    /// Longest wait between dispatch rounds when nothing wakes the loop, milliseconds (at most 1,000).
    pub poll_ms: u64,
    /// How long dispatch keeps retrying a message before it fails, hours.
    pub deadline_hours: i64,
    /// How long a dispatch claim holds its jobs, seconds; longer than a network call can take.
    pub lease_seconds: i64,
    /// First retry delay after a transient network error, milliseconds (doubles per attempt).
    pub base_backoff_ms: i64,
    /// How long a queued message of a suspended organization waits before it is looked at again, seconds.
    pub hold_seconds: i64,
    /// After an unknown outcome, how long to wait for the network's callback before resending, seconds.
    pub callback_wait_seconds: i64,
    /// How far ahead a `send_at` must be at least, seconds: the contract's minute by default; tests and
    /// operators may shorten it (1 to 60).
    pub schedule_min_lead_seconds: i64,
}

/// The flat names of this section's settings (`herald.toml` keys outside a section, `HERALD_<NAME>`), each
/// with its field.
pub(super) const FLAT_NAMES: &[(&str, &str)] = &[
    ("dispatch_loops", "loops"),
    ("dispatch_batch_size", "batch_size"),
    ("dispatch_poll_ms", "poll_ms"),
    ("dispatch_deadline_hours", "deadline_hours"),
    ("dispatch_lease_seconds", "lease_seconds"),
    ("dispatch_base_backoff_ms", "base_backoff_ms"),
    ("dispatch_hold_seconds", "hold_seconds"),
    ("callback_wait_seconds", "callback_wait_seconds"),
    ("schedule_min_lead_seconds", "schedule_min_lead_seconds"),
];

impl Default for DispatchSection {
    fn default() -> Self {
        Self {
            loops: 2,
            batch_size: 100,
            poll_ms: 500,
            deadline_hours: 24,
            lease_seconds: 60,
            base_backoff_ms: 2_000,
            hold_seconds: 30,
            callback_wait_seconds: 300,
            schedule_min_lead_seconds: 60,
        }
    }
}

impl DispatchSection {
    /// # Errors
    /// When the poll, the batch, the lease or the scheduling lead is out of range.
    pub(super) fn validate(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            (1..=1_000).contains(&self.poll_ms),
            "dispatch_poll_ms must be 1 to 1000 (a queued message never waits longer than that to be seen)"
        );
        anyhow::ensure!(self.batch_size >= 1, "dispatch_batch_size must be at least 1");
        anyhow::ensure!(
            self.lease_seconds >= 20,
            "dispatch_lease_seconds must be at least 20 (longer than the 15 s network timeout)"
        );
        anyhow::ensure!(
            (1..=60).contains(&self.schedule_min_lead_seconds),
            "schedule_min_lead_seconds must be 1 to 60 (the contract's minimum is a minute; shorter is for tests)"
        );
        Ok(())
    }
}
