//! `[webhooks]`: delivering events to the customers' webhook endpoints.

use serde::{Deserialize, Serialize};

/// The delivery loops, their limits and timeouts, and which destinations are allowed.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebhooksSection {
    /// Concurrent customer-webhook delivery loops per worker process.
    pub loops: usize,
    /// Most deliveries in flight to one customer endpoint at once (across every process), so a slow
    /// endpoint cannot take every delivery slot.
    pub per_endpoint_inflight: u32,
    /// How long one webhook attempt may take before it counts as a timeout, seconds (docs/api.md §9: 15).
    pub timeout_seconds: u64,
    /// Multiplies every wait of the customer-webhook retry schedule and the 5-day disable threshold
    /// (0 < scale ≤ 1). Below 1 only for fault trials and tests: it compresses ~28 hours of retries.
    #[serde(deserialize_with = "super::fraction")]
    pub retry_scale: f64,
    /// How many `webhook.test` events may wait for delivery to one endpoint at once.
    pub pending_tests: u32,
    /// Allow endpoints at loopback, private and other non-public addresses (development and tests).
    pub allow_private_targets: bool,
    /// Allow `http://` endpoints (development and tests).
    pub allow_insecure: bool,
}

/// The flat names of this section's settings (`herald.toml` keys outside a section, `HERALD_<NAME>`), each
/// with its field.
pub(super) const FLAT_NAMES: &[(&str, &str)] = &[
    ("webhook_loops", "loops"),
    ("webhook_per_endpoint_inflight", "per_endpoint_inflight"),
    ("webhook_timeout_seconds", "timeout_seconds"),
    ("webhook_retry_scale", "retry_scale"),
    ("webhook_pending_tests", "pending_tests"),
    ("allow_private_webhook_targets", "allow_private_targets"),
    ("allow_insecure_webhooks", "allow_insecure"),
];

impl Default for WebhooksSection {
    fn default() -> Self {
        Self {
            loops: 2,
            per_endpoint_inflight: 4,
            timeout_seconds: 15,
            retry_scale: 1.0,
            pending_tests: 5,
            allow_private_targets: false,
            allow_insecure: false,
        }
    }
}

impl WebhooksSection {
    /// # Errors
    /// When a loop count, the per-endpoint cap, the timeout or the retry scale is out of range.
    pub(super) fn validate(&self) -> anyhow::Result<()> {
        anyhow::ensure!(self.loops >= 1, "webhook_loops must be at least 1");
        anyhow::ensure!(
            self.per_endpoint_inflight >= 1,
            "webhook_per_endpoint_inflight must be at least 1"
        );
        anyhow::ensure!(
            (1..=15).contains(&self.timeout_seconds),
            "webhook_timeout_seconds must be 1 to 15 (integrators are promised that a 2xx within 15 s succeeds)"
        );
        anyhow::ensure!(
            self.retry_scale > 0.0 && self.retry_scale <= 1.0,
            "webhook_retry_scale must be above 0 and at most 1 (it only compresses the retry schedule)"
        );
        Ok(())
    }
}
