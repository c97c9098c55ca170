//! `[media]`: where uploaded files are kept and how long transfers of them may take.

use serde::{Deserialize, Serialize};

/// How long one media transfer to or from the network may take (see [`MediaSection::transfer_timeout`]).
const TRANSFER_TIMEOUT_SECONDS: u64 = 300;

/// The file store of uploads and its cleanup.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MediaSection {
    /// Where uploaded files are kept (content-addressed). Unset: `media/` next to a SQLite file, a
    /// directory of this process's own for in-memory SQLite, `data/media` with PostgreSQL. Several
    /// processes on several machines must share it (a network filesystem).
    pub dir: Option<String>,
    /// How often expired uploads (30 days) are deleted, seconds.
    pub cleanup_interval_seconds: u64,
}

/// The flat names of this section's settings (`herald.toml` keys outside a section, `HERALD_<NAME>`), each
/// with its field.
pub(super) const FLAT_NAMES: &[(&str, &str)] = &[
    ("media_dir", "dir"),
    ("media_cleanup_interval_seconds", "cleanup_interval_seconds"),
];

impl Default for MediaSection {
    fn default() -> Self {
        Self {
            dir: None,
            cleanup_interval_seconds: 3_600,
        }
    }
}

impl MediaSection {
    /// How long one media upload or download to the network may take: 5 minutes, whatever the dispatch
    /// lease, since dispatch renews the lease of a job while its transfer runs (a slow link needs no longer
    /// lease).
    pub fn transfer_timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs(TRANSFER_TIMEOUT_SECONDS)
    }
}
