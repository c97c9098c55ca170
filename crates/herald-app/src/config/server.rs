//! `[server]`: the HTTP server of an API process.

use serde::{Deserialize, Serialize};

/// How the HTTP server listens, how many threads serve it and how it treats connections.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerSection {
    /// Address the HTTP server binds; port 0 picks a free port.
    pub listen: String,
    /// HTTP worker threads; 0 = one per core.
    pub http_workers: usize,
    /// Seconds to let in-flight requests finish on shutdown.
    pub shutdown_timeout_seconds: u64,
    /// Seconds an idle keep-alive connection stays open. Longer than the 90 s idle timeout of common HTTP
    /// client pools (reqwest, Go's net/http), so the client closes first: a server that closes first races
    /// the client's next request on that connection, which then fails without an answer.
    pub http_keep_alive_seconds: u64,
}

/// The flat names of this section's settings (`herald.toml` keys outside a section, `HERALD_<NAME>`), each
/// with its field.
pub(super) const FLAT_NAMES: &[(&str, &str)] = &[
    ("listen", "listen"),
    ("http_workers", "http_workers"),
    ("shutdown_timeout_seconds", "shutdown_timeout_seconds"),
    ("http_keep_alive_seconds", "http_keep_alive_seconds"),
];

impl Default for ServerSection {
    fn default() -> Self {
        Self {
            listen: "127.0.0.1:8080".into(),
            http_workers: 0,
            shutdown_timeout_seconds: 10,
            http_keep_alive_seconds: 120,
        }
    }
}

impl ServerSection {
    /// # Errors
    /// When the keep-alive is out of range.
    pub(super) fn validate(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            (1..=3_600).contains(&self.http_keep_alive_seconds),
            "http_keep_alive_seconds must be 1 to 3600"
        );
        Ok(())
    }
}
