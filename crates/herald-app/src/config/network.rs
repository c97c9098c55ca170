//! `[network]`: which messaging network messages go to, and how Herald reaches Meta's Cloud API.

use secrecy::SecretString;
use serde::{Deserialize, Serialize};

/// Which messaging network messages go to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NetworkMode {
    /// The in-process stand-in for the Cloud API (the default: nothing to sign up for).
    Simulator,
    /// Meta's WhatsApp Cloud API.
    Cloud,
}

/// The network, the Cloud API's address and version, and the secrets shared with Meta.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkSection {
    /// The network messages go to (flat name `network`).
    pub mode: NetworkMode,
    #[serde(serialize_with = "super::redact_credentials")]
    pub cloud_api_base_url: String,
    pub graph_api_version: String,
    /// The Meta app's id, through whose resumable upload template samples reach the network.
    pub cloud_api_app_id: Option<String>,
    /// Signs the network's callbacks (`X-Hub-Signature-256`).
    #[serde(serialize_with = "super::redact")]
    pub app_secret: Option<SecretString>,
    /// Answers the network's webhook verification handshake.
    #[serde(serialize_with = "super::redact")]
    pub verify_token: Option<SecretString>,
    /// The access token for senders added without `--access-token-env` (cloud mode).
    #[serde(serialize_with = "super::redact")]
    pub cloud_access_token: Option<SecretString>,
    /// How often templates are synced from the network, seconds.
    pub template_sync_interval_seconds: u64,
}

/// The flat names of this section's settings (`herald.toml` keys outside a section, `HERALD_<NAME>`), each
/// with its field.
pub(super) const FLAT_NAMES: &[(&str, &str)] = &[
    ("network", "mode"),
    ("cloud_api_base_url", "cloud_api_base_url"),
    ("graph_api_version", "graph_api_version"),
    ("cloud_api_app_id", "cloud_api_app_id"),
    ("app_secret", "app_secret"),
    ("verify_token", "verify_token"),
    ("cloud_access_token", "cloud_access_token"),
    ("template_sync_interval_seconds", "template_sync_interval_seconds"),
];

impl Default for NetworkSection {
    fn default() -> Self {
        Self {
            mode: NetworkMode::Simulator,
            cloud_api_base_url: "https://graph.facebook.com".into(),
            graph_api_version: "v23.0".into(),
            cloud_api_app_id: None,
            app_secret: None,
            verify_token: None,
            cloud_access_token: None,
            template_sync_interval_seconds: 600,
        }
    }
}
