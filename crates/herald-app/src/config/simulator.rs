//! `[simulator]`: the stand-in for the Cloud API that Herald serves itself (`network = simulator`).

use secrecy::SecretString;
use serde::{Deserialize, Serialize};

/// Where the simulator is served and reached, and how it behaves.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimulatorSection {
    /// Serve the in-process simulator (`network = simulator`) on a listen address other than loopback.
    /// Its control API (`/simulator/control/*`) has no authentication and lists every organization's
    /// sends, so `herald serve` refuses such an address unless this is set.
    pub public: bool,
    /// The access token the simulator accepts.
    #[serde(serialize_with = "super::redact")]
    pub token: Option<SecretString>,
    /// Where a process that does not serve the simulator itself reaches it (`http://host:port/simulator`).
    #[serde(serialize_with = "super::redact_credentials_option")]
    pub url: Option<String>,
    /// The simulator's throughput limit per sender number, messages per second.
    pub throughput_per_sender: u32,
    /// The simulator's delay between a message's status reports, milliseconds.
    pub callback_delay_min_ms: u64,
    pub callback_delay_max_ms: u64,
    /// Make the simulator send every status callback twice (to exercise deduplication).
    pub duplicate_callbacks: bool,
    /// Business numbers the in-process simulator serves beside its two seeded ones, for benchmarks
    /// (`herald_simulator::extra_senders`; at most `herald_simulator::MAX_EXTRA_SENDERS`).
    pub extra_senders: u32,
    /// How long a template created through the in-process simulator stays `PENDING`, milliseconds.
    pub template_review_ms: u64,
}

/// The flat names of this section's settings (`herald.toml` keys outside a section, `HERALD_<NAME>`), each
/// with its field.
pub(super) const FLAT_NAMES: &[(&str, &str)] = &[
    ("simulator_public", "public"),
    ("simulator_token", "token"),
    ("simulator_url", "url"),
    ("simulator_throughput_per_sender", "throughput_per_sender"),
    ("simulator_callback_delay_min_ms", "callback_delay_min_ms"),
    ("simulator_callback_delay_max_ms", "callback_delay_max_ms"),
    ("simulator_duplicate_callbacks", "duplicate_callbacks"),
    ("simulator_extra_senders", "extra_senders"),
    ("simulator_template_review_ms", "template_review_ms"),
];

impl Default for SimulatorSection {
    fn default() -> Self {
        Self {
            public: false,
            token: None,
            url: None,
            throughput_per_sender: 1_000,
            callback_delay_min_ms: 20,
            callback_delay_max_ms: 200,
            duplicate_callbacks: false,
            extra_senders: 0,
            template_review_ms: 1_000,
        }
    }
}

impl SimulatorSection {
    /// # Errors
    /// When the callback delays are inverted or too many extra senders are asked for.
    pub(super) fn validate(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.callback_delay_min_ms <= self.callback_delay_max_ms,
            "simulator_callback_delay_min_ms must not exceed simulator_callback_delay_max_ms"
        );
        anyhow::ensure!(
            self.extra_senders <= herald_simulator::MAX_EXTRA_SENDERS,
            "simulator_extra_senders must be at most {}",
            herald_simulator::MAX_EXTRA_SENDERS
        );
        Ok(())
    }
}
