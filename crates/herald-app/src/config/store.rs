//! `[store]`: the database, how a process writes to it, and the key that seals secrets kept in it.

use anyhow::Context;
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};

/// The database and the store's tunables.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoreSection {
    /// `sqlite://data/herald.db` (embedded) or `postgres://user@host/db`.
    #[serde(serialize_with = "super::redact_credentials")]
    pub database_url: String,
    /// Most pooled store connections.
    pub max_connections: u32,
    /// Run pending migrations when `herald serve` starts.
    pub migrate_on_start: bool,
    /// Commit the accepts that arrive together in one transaction (group commit), and the network's
    /// status callbacks likewise; `false` only to measure the difference.
    pub accept_group_commit: bool,
    /// Accept batches in flight at once per process on PostgreSQL; 0 picks one. SQLite always
    /// writes one.
    pub accept_writers: usize,
    /// Status-callback batches in flight at once per process on PostgreSQL; 0 picks four, at
    /// most half of `max_connections`. SQLite always writes one.
    pub callback_writers: usize,
    /// Milliseconds a process may reuse a key's credential, an organization's senders and a template
    /// it read on the send path; 0 turns the cache off. At most 1,000: another process's key disable or
    /// suspension must take effect within a second (docs/api.md §1); this process's own take effect at once.
    pub read_cache_ms: u64,
    /// Key that encrypts secrets at rest (base64 of 32 bytes). Unset with a SQLite file, one is generated
    /// once into `encryption.key` next to the database; unset with PostgreSQL, `serve` refuses to start.
    #[serde(serialize_with = "super::redact")]
    pub encryption_key: Option<SecretString>,
}

/// The flat names of this section's settings (`herald.toml` keys outside a section, `HERALD_<NAME>`), each
/// with its field.
pub(super) const FLAT_NAMES: &[(&str, &str)] = &[
    ("database_url", "database_url"),
    ("max_connections", "max_connections"),
    ("migrate_on_start", "migrate_on_start"),
    ("accept_group_commit", "accept_group_commit"),
    ("accept_writers", "accept_writers"),
    ("callback_writers", "callback_writers"),
    ("read_cache_ms", "read_cache_ms"),
    ("encryption_key", "encryption_key"),
];

impl Default for StoreSection {
    fn default() -> Self {
        Self {
            database_url: "sqlite://data/herald.db".into(),
            max_connections: 16,
            migrate_on_start: true,
            accept_group_commit: true,
            accept_writers: 0,
            callback_writers: 0,
            read_cache_ms: 500,
            encryption_key: None,
        }
    }
}

impl StoreSection {
    /// # Errors
    /// When the URL names another database, the pool is empty, the cache outlives a second or the
    /// encryption key is not base64 of 32 bytes (the key itself is never quoted).
    pub(super) fn validate(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.database_url.starts_with("postgres://")
                || self.database_url.starts_with("postgresql://")
                || self.database_url.starts_with("sqlite:"),
            "database_url must start with postgres:// or sqlite:"
        );
        anyhow::ensure!(self.max_connections >= 1, "max_connections must be at least 1");
        anyhow::ensure!(
            self.read_cache_ms <= 1_000,
            "read_cache_ms must be 0 to 1000 (a key disabled elsewhere must stop working within a second)"
        );
        if let Some(key) = &self.encryption_key {
            herald_system::EncryptionKey::from_base64(key.expose_secret())
                .context("HERALD_ENCRYPTION_KEY (encryption_key)")?;
        }
        Ok(())
    }
}
