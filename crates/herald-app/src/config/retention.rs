//! `[retention]`: removing the rows past their plan's retention.

use serde::{Deserialize, Serialize};

/// How often and how gently the retention sweep runs.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetentionSection {
    /// How often a worker removes rows past their plan's retention, seconds; 0 never.
    pub interval_seconds: u64,
    /// Messages removed (with their rows) per retention transaction.
    pub batch: u32,
    /// The shortest pause between two retention transactions, milliseconds.
    pub pause_ms: u64,
    /// The most of its time a sweep spends inside its transactions, percent: after a transaction that took
    /// `d`, it pauses at least `d × (100 − p) / p`, so a sweep slows down as the database gets busy.
    pub busy_percent: u8,
}

/// The flat names of this section's settings (`herald.toml` keys outside a section, `HERALD_<NAME>`), each
/// with its field.
pub(super) const FLAT_NAMES: &[(&str, &str)] = &[
    ("retention_interval_seconds", "interval_seconds"),
    ("retention_batch", "batch"),
    ("retention_pause_ms", "pause_ms"),
    ("retention_busy_percent", "busy_percent"),
];

impl Default for RetentionSection {
    fn default() -> Self {
        Self {
            interval_seconds: 3_600,
            batch: 1_000,
            pause_ms: 200,
            busy_percent: 20,
        }
    }
}

impl RetentionSection {
    /// # Errors
    /// When the busy share is not 1 to 100 percent.
    pub(super) fn validate(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            (1..=100).contains(&self.busy_percent),
            "retention_busy_percent must be 1 to 100"
        );
        Ok(())
    }
}
