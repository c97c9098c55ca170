//! `[limits]`: the per-key request limits, the shared limiter behind them, and the per-address limit on
//! failed authentications with the proxies that name the client address.

use anyhow::Context;
use serde::{Deserialize, Serialize};

/// Which send-rate limiter the API uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RateLimiterKind {
    /// In this process only: right for a single API process.
    Memory,
    /// Shared through Redis: right for several API processes.
    Redis,
}

/// Rates, bursts and where the counters live.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsSection {
    /// `memory` (one API process) or `redis` (several API processes share the organizations' send rates).
    pub rate_limiter: RateLimiterKind,
    /// Redis for the shared limiter.
    #[serde(serialize_with = "super::redact_credentials")]
    pub redis_url: String,
    /// Per-key limit on read requests: sustained rate and burst.
    pub read_rate_per_second: u32,
    pub read_burst: u32,
    /// Per-key limit on writes that are not sends (uploads, webhook changes and tests, template syncs):
    /// sustained rate and burst. Sends have the organization's send rate instead.
    pub write_rate_per_second: u32,
    pub write_burst: u32,
    /// The reverse proxies whose `X-Forwarded-For` is believed: comma-separated IP addresses and CIDR
    /// networks. Empty (the default): the client is the TCP peer and the header is ignored.
    pub trusted_proxies: String,
    /// Failed API authentications (unknown or malformed keys) allowed per minute from one client address
    /// (IPv6: one /64); beyond it the address is answered `429` without its key being looked up.
    pub api_auth_failures_per_minute: u32,
}

/// The flat names of this section's settings (`herald.toml` keys outside a section, `HERALD_<NAME>`), each
/// with its field.
pub(super) const FLAT_NAMES: &[(&str, &str)] = &[
    ("rate_limiter", "rate_limiter"),
    ("redis_url", "redis_url"),
    ("read_rate_per_second", "read_rate_per_second"),
    ("read_burst", "read_burst"),
    ("write_rate_per_second", "write_rate_per_second"),
    ("write_burst", "write_burst"),
    ("trusted_proxies", "trusted_proxies"),
    ("api_auth_failures_per_minute", "api_auth_failures_per_minute"),
];

impl Default for LimitsSection {
    fn default() -> Self {
        Self {
            rate_limiter: RateLimiterKind::Memory,
            redis_url: "redis://127.0.0.1:6379".into(),
            read_rate_per_second: 50,
            read_burst: 100,
            write_rate_per_second: 5,
            write_burst: 20,
            trusted_proxies: String::new(),
            api_auth_failures_per_minute: 30,
        }
    }
}

impl LimitsSection {
    /// The parsed `trusted_proxies`.
    ///
    /// # Errors
    /// Naming the entry that is neither an IP address nor a CIDR network.
    pub fn trusted_proxies(&self) -> anyhow::Result<herald_domain::client_address::TrustedProxies> {
        herald_domain::client_address::TrustedProxies::parse(&self.trusted_proxies)
            .context("HERALD_TRUSTED_PROXIES (trusted_proxies)")
    }

    /// # Errors
    /// When a trusted proxy is no address or network, or no failed authentication is allowed.
    pub(super) fn validate(&self) -> anyhow::Result<()> {
        self.trusted_proxies()?;
        anyhow::ensure!(
            self.api_auth_failures_per_minute >= 1,
            "api_auth_failures_per_minute must be at least 1"
        );
        Ok(())
    }
}
