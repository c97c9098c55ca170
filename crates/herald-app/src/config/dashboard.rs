//! `[dashboard]`: the owner's dashboard: its cookie key, session lifetimes and login limits.

use anyhow::Context;
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};

/// The dashboard's sessions and logins.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DashboardSection {
    /// Signs the dashboard's cookies: base64 of at least 32 random bytes, the same in every API process.
    /// Unset, each process makes its own at start (sessions then end when it restarts).
    #[serde(serialize_with = "super::redact")]
    pub cookie_key: Option<SecretString>,
    /// A dashboard session unused this long ends, minutes.
    pub session_idle_minutes: i64,
    /// No dashboard session lives longer than this, however active, hours.
    pub session_absolute_hours: i64,
    /// Login attempts allowed per minute for one account (email).
    pub login_attempts_per_account: u32,
    /// Login attempts allowed per minute from one client address.
    pub login_attempts_per_address: u32,
}

/// The flat names of this section's settings (`herald.toml` keys outside a section, `HERALD_<NAME>`), each
/// with its field.
pub(super) const FLAT_NAMES: &[(&str, &str)] = &[
    ("dashboard_cookie_key", "cookie_key"),
    ("dashboard_session_idle_minutes", "session_idle_minutes"),
    ("dashboard_session_absolute_hours", "session_absolute_hours"),
    (
        "dashboard_login_attempts_per_account",
        "login_attempts_per_account",
    ),
    (
        "dashboard_login_attempts_per_address",
        "login_attempts_per_address",
    ),
];

impl Default for DashboardSection {
    fn default() -> Self {
        Self {
            cookie_key: None,
            session_idle_minutes: 30,
            session_absolute_hours: 12,
            login_attempts_per_account: 5,
            login_attempts_per_address: 20,
        }
    }
}

impl DashboardSection {
    /// # Errors
    /// When a lifetime or a login limit is out of range, or the cookie key is too short.
    pub(super) fn validate(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.session_idle_minutes >= 1,
            "dashboard_session_idle_minutes must be at least 1"
        );
        anyhow::ensure!(
            (1..=24 * 30).contains(&self.session_absolute_hours),
            "dashboard_session_absolute_hours must be 1 to 720"
        );
        anyhow::ensure!(
            self.login_attempts_per_account >= 1 && self.login_attempts_per_address >= 1,
            "dashboard_login_attempts_per_account and _per_address must be at least 1"
        );
        if let Some(key) = &self.cookie_key {
            dashboard_cookie_key(key.expose_secret())
                .context("HERALD_DASHBOARD_COOKIE_KEY (dashboard_cookie_key)")?;
        }
        Ok(())
    }
}

/// The dashboard's cookie key from its configured form: base64 of at least 32 bytes, stretched with HKDF
/// into the signing key.
///
/// # Errors
/// When the text is not base64 or holds fewer than 32 bytes.
pub(crate) fn dashboard_cookie_key(configured: &str) -> anyhow::Result<actix_web::cookie::Key> {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(configured.trim())
        .context("not base64")?;
    anyhow::ensure!(
        bytes.len() >= 32,
        "must be base64 of at least 32 random bytes (e.g. `openssl rand -base64 32`)"
    );
    Ok(actix_web::cookie::Key::derive_from(&bytes))
}
