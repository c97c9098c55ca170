//! Configuration: defaults compiled in, then `herald.toml`, then `HERALD_*` environment variables.

use figment::Figment;
use figment::providers::{Env, Format, Serialized, Toml};
use secrecy::SecretString;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Which messaging network messages go to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NetworkMode {
    /// The in-process stand-in for the Cloud API (the default: nothing to sign up for).
    Simulator,
    /// Meta's WhatsApp Cloud API.
    Cloud,
}

/// How log lines look.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    Text,
    Json,
}

/// Every setting, with its default. The environment name of `foo_bar` is `HERALD_FOO_BAR`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Settings {
    /// `sqlite://data/herald.db` (embedded) or `postgres://user@host/db`.
    pub database_url: String,
    /// Address the HTTP server binds; port 0 picks a free port.
    pub listen: String,
    /// Most pooled store connections.
    pub max_connections: u32,
    /// Run pending migrations when `herald serve` starts.
    pub migrate_on_start: bool,
    /// HTTP worker threads; 0 = one per core.
    pub http_workers: usize,
    /// Seconds to let in-flight requests finish on shutdown.
    pub shutdown_timeout_seconds: u64,
    pub network: NetworkMode,
    pub cloud_api_base_url: String,
    pub graph_api_version: String,
    /// Signs the network's callbacks (`X-Hub-Signature-256`).
    #[serde(serialize_with = "redact")]
    pub app_secret: Option<SecretString>,
    /// Answers the network's webhook verification handshake.
    #[serde(serialize_with = "redact")]
    pub verify_token: Option<SecretString>,
    /// Key that encrypts secrets at rest (base64 of 32 bytes).
    #[serde(serialize_with = "redact")]
    pub encryption_key: Option<SecretString>,
    /// The access token the simulator accepts.
    #[serde(serialize_with = "redact")]
    pub simulator_token: Option<SecretString>,
    pub allow_private_webhook_targets: bool,
    pub allow_insecure_webhooks: bool,
    pub log_format: LogFormat,
}

fn redact<S: serde::Serializer>(value: &Option<SecretString>, serializer: S) -> Result<S::Ok, S::Error> {
    match value {
        Some(_) => serializer.serialize_some("[redacted]"),
        None => serializer.serialize_none(),
    }
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            database_url: "sqlite://data/herald.db".into(),
            listen: "127.0.0.1:8080".into(),
            max_connections: 16,
            migrate_on_start: true,
            http_workers: 0,
            shutdown_timeout_seconds: 10,
            network: NetworkMode::Simulator,
            cloud_api_base_url: "https://graph.facebook.com".into(),
            graph_api_version: "v23.0".into(),
            app_secret: None,
            verify_token: None,
            encryption_key: None,
            simulator_token: None,
            allow_private_webhook_targets: false,
            allow_insecure_webhooks: false,
            log_format: LogFormat::Text,
        }
    }
}

impl Settings {
    /// Loads defaults, then the TOML file (when it exists), then `HERALD_*` variables.
    ///
    /// # Errors
    /// When a value has the wrong type or an unknown key is set.
    pub fn load(config_file: Option<&Path>) -> anyhow::Result<Self> {
        let mut figment = Figment::from(Serialized::defaults(Settings::default()));
        let file = config_file.unwrap_or(Path::new("herald.toml"));
        if file.exists() {
            figment = figment.merge(Toml::file(file));
        } else if config_file.is_some() {
            anyhow::bail!("configuration file {} does not exist", file.display());
        }
        let settings: Settings = figment.merge(Env::prefixed("HERALD_")).extract()?;
        settings.validate()?;
        Ok(settings)
    }

    /// # Errors
    /// When a setting is out of range or inconsistent.
    pub fn validate(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.database_url.starts_with("postgres://")
                || self.database_url.starts_with("postgresql://")
                || self.database_url.starts_with("sqlite:"),
            "database_url must start with postgres:// or sqlite:"
        );
        anyhow::ensure!(self.max_connections >= 1, "max_connections must be at least 1");
        Ok(())
    }

    /// The configuration as JSON with every secret replaced by `[redacted]`, for the start-up log.
    pub fn redacted(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{}".into())
    }
}

#[cfg(test)]
#[allow(
    clippy::result_large_err,
    reason = "figment's Jail API returns its own large error"
)]
mod tests {
    use super::*;

    #[test]
    fn defaults_file_then_env() {
        figment::Jail::expect_with(|jail| {
            jail.create_file("herald.toml", "listen = \"0.0.0.0:9000\"\nmax_connections = 4\n")?;
            jail.set_env("HERALD_MAX_CONNECTIONS", "7");
            jail.set_env("HERALD_APP_SECRET", "s3cret");
            let settings = Settings::load(None).map_err(|e| e.to_string())?;
            assert_eq!(settings.listen, "0.0.0.0:9000");
            assert_eq!(settings.max_connections, 7);
            assert_eq!(settings.database_url, "sqlite://data/herald.db");
            assert!(settings.app_secret.is_some());
            assert!(!settings.redacted().contains("s3cret"));
            assert!(settings.redacted().contains("[redacted]"));
            Ok(())
        });
    }

    #[test]
    fn bad_values_are_refused() {
        figment::Jail::expect_with(|jail| {
            jail.set_env("HERALD_DATABASE_URL", "mysql://x");
            assert!(Settings::load(None).is_err());
            jail.set_env("HERALD_DATABASE_URL", "sqlite://x.db");
            jail.set_env("HERALD_NETWORK", "carrier-pigeon");
            assert!(Settings::load(None).is_err());
            Ok(())
        });
    }
}
