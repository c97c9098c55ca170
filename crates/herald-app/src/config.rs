//! Configuration: defaults compiled in, then `herald.toml`, then `HERALD_*` environment variables.

use anyhow::Context;
use figment::Figment;
use figment::providers::{Env, Format, Serialized, Toml};
use secrecy::{ExposeSecret, SecretString};
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

/// Which send-rate limiter the API uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RateLimiterKind {
    /// In this process only: right for a single API process.
    Memory,
    /// Shared through Redis: right for several API processes.
    Redis,
}

/// How log lines look.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    Text,
    Json,
}

/// How long one media transfer to or from the network may take (see `Settings::media_transfer_timeout`).
const MEDIA_TRANSFER_TIMEOUT_SECONDS: u64 = 300;

/// Every setting, with its default. The environment name of `foo_bar` is `HERALD_FOO_BAR`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Settings {
    /// `sqlite://data/herald.db` (embedded) or `postgres://user@host/db`.
    #[serde(serialize_with = "redact_credentials")]
    pub database_url: String,
    /// Address the HTTP server binds; port 0 picks a free port.
    pub listen: String,
    /// Most pooled store connections.
    pub max_connections: u32,
    /// Run pending migrations when `herald serve` starts.
    pub migrate_on_start: bool,
    /// HTTP worker threads; 0 = one per core.
    pub http_workers: usize,
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
    /// Seconds to let in-flight requests finish on shutdown.
    pub shutdown_timeout_seconds: u64,
    /// Seconds an idle keep-alive connection stays open. Longer than the 90 s idle timeout of common HTTP
    /// client pools (reqwest, Go's net/http), so the client closes first: a server that closes first races
    /// the client's next request on that connection, which then fails without an answer.
    pub http_keep_alive_seconds: u64,
    pub network: NetworkMode,
    /// Serve the in-process simulator (`network = simulator`) on a listen address other than loopback.
    /// Its control API (`/simulator/control/*`) has no authentication and lists every organization's
    /// sends, so `herald serve` refuses such an address unless this is set.
    pub simulator_public: bool,
    #[serde(serialize_with = "redact_credentials")]
    pub cloud_api_base_url: String,
    pub graph_api_version: String,
    /// The Meta app's id, through whose resumable upload template samples reach the network.
    pub cloud_api_app_id: Option<String>,
    /// Signs the network's callbacks (`X-Hub-Signature-256`).
    #[serde(serialize_with = "redact")]
    pub app_secret: Option<SecretString>,
    /// Answers the network's webhook verification handshake.
    #[serde(serialize_with = "redact")]
    pub verify_token: Option<SecretString>,
    /// Key that encrypts secrets at rest (base64 of 32 bytes). Unset with a SQLite file, one is generated
    /// once into `encryption.key` next to the database; unset with PostgreSQL, `serve` refuses to start.
    #[serde(serialize_with = "redact")]
    pub encryption_key: Option<SecretString>,
    /// The access token the simulator accepts.
    #[serde(serialize_with = "redact")]
    pub simulator_token: Option<SecretString>,
    pub allow_private_webhook_targets: bool,
    pub allow_insecure_webhooks: bool,
    pub log_format: LogFormat,
    /// Where `GET /metrics` (Prometheus text format) is served, e.g. `127.0.0.1:9464`; unset, no metrics
    /// listener. A listener of its own, apart from the API, so the figures are never public by accident.
    pub metrics_listen: Option<String>,
    /// Adds an `organization` label (the organization id) to the send, dispatch and outbox series, and a
    /// `sender` label (Herald's sender id) to the outbox ones. Off, no organization appears in a label: one
    /// series per organization is many series, and an id tells who the customers are.
    pub metrics_organization_labels: bool,
    /// An OpenTelemetry collector's OTLP/HTTP base URL (e.g. `http://127.0.0.1:4318`): every span is exported
    /// to `<otlp_endpoint>/v1/traces` (the path joined, a query kept after it). Only `http://` and
    /// `https://` are taken. Unset, no spans leave the process.
    #[serde(serialize_with = "redact_credentials_option")]
    pub otlp_endpoint: Option<String>,
    /// `memory` (one API process) or `redis` (several API processes share the organizations' send rates).
    pub rate_limiter: RateLimiterKind,
    /// Redis for the shared limiter.
    #[serde(serialize_with = "redact_credentials")]
    pub redis_url: String,
    /// Per-key limit on read requests: sustained rate and burst.
    pub read_rate_per_second: u32,
    pub read_burst: u32,
    /// Per-key limit on writes that are not sends (uploads, webhook changes and tests, template syncs):
    /// sustained rate and burst. Sends have the organization's send rate instead.
    pub write_rate_per_second: u32,
    pub write_burst: u32,
    /// How many `webhook.test` events may wait for delivery to one endpoint at once.
    pub webhook_pending_tests: u32,
    /// The access token for senders added without `--access-token-env` (cloud mode).
    #[serde(serialize_with = "redact")]
    pub cloud_access_token: Option<SecretString>,
    /// Where a process that does not serve the simulator itself reaches it (`http://host:port/simulator`).
    #[serde(serialize_with = "redact_credentials_option")]
    pub simulator_url: Option<String>,
    /// The simulator's throughput limit per sender number, messages per second.
    pub simulator_throughput_per_sender: u32,
    /// The simulator's delay between a message's status reports, milliseconds.
    pub simulator_callback_delay_min_ms: u64,
    pub simulator_callback_delay_max_ms: u64,
    /// Concurrent dispatch loops per worker process.
    pub dispatch_loops: usize,
    /// Jobs claimed per dispatch round.
    pub dispatch_batch_size: u32,
    /// Longest wait between dispatch rounds when nothing wakes the loop, milliseconds (at most 1,000).
    pub dispatch_poll_ms: u64,
    /// How long dispatch keeps retrying a message before it fails, hours.
    pub dispatch_deadline_hours: i64,
    /// After an unknown outcome, how long to wait for the network's callback before resending, seconds.
    pub callback_wait_seconds: i64,
    /// How far ahead a `send_at` must be at least, seconds: the contract's minute by default; tests and
    /// operators may shorten it (1 to 60).
    pub schedule_min_lead_seconds: i64,
    /// How long a dispatch claim holds its jobs, seconds; longer than a network call can take.
    pub dispatch_lease_seconds: i64,
    /// First retry delay after a transient network error, milliseconds (doubles per attempt).
    pub dispatch_base_backoff_ms: i64,
    /// Make the simulator send every status callback twice (to exercise deduplication).
    pub simulator_duplicate_callbacks: bool,
    /// Business numbers the in-process simulator serves beside its two seeded ones, for benchmarks
    /// (`herald_simulator::extra_senders`; at most `herald_simulator::MAX_EXTRA_SENDERS`).
    pub simulator_extra_senders: u32,
    /// How long a template created through the in-process simulator stays `PENDING`, milliseconds.
    pub simulator_template_review_ms: u64,
    /// How long a queued message of a suspended organization waits before it is looked at again, seconds.
    pub dispatch_hold_seconds: i64,
    /// How often templates are synced from the network, seconds.
    pub template_sync_interval_seconds: u64,
    /// Concurrent customer-webhook delivery loops per worker process.
    pub webhook_loops: usize,
    /// Most deliveries in flight to one customer endpoint at once (across every process), so a slow
    /// endpoint cannot take every delivery slot.
    pub webhook_per_endpoint_inflight: u32,
    /// How long one webhook attempt may take before it counts as a timeout, seconds (docs/api.md §9: 15).
    pub webhook_timeout_seconds: u64,
    /// Where uploaded files are kept (content-addressed). Unset: `media/` next to a SQLite file, a
    /// directory of this process's own for in-memory SQLite, `data/media` with PostgreSQL. Several
    /// processes on several machines must share it (a network filesystem).
    pub media_dir: Option<String>,
    /// How often expired uploads (30 days) are deleted, seconds.
    pub media_cleanup_interval_seconds: u64,
    /// How often a worker removes rows past their plan's retention, seconds; 0 never.
    pub retention_interval_seconds: u64,
    /// Messages removed (with their rows) per retention transaction.
    pub retention_batch: u32,
    /// The shortest pause between two retention transactions, milliseconds.
    pub retention_pause_ms: u64,
    /// The most of its time a sweep spends inside its transactions, percent: after a transaction that took
    /// `d`, it pauses at least `d × (100 − p) / p`, so a sweep slows down as the database gets busy.
    pub retention_busy_percent: u8,

    // ---- The owner's dashboard ----
    /// Signs the dashboard's cookies: base64 of at least 32 random bytes, the same in every API process.
    /// Unset, each process makes its own at start (sessions then end when it restarts).
    #[serde(serialize_with = "redact")]
    pub dashboard_cookie_key: Option<SecretString>,
    /// A dashboard session unused this long ends, minutes.
    pub dashboard_session_idle_minutes: i64,
    /// No dashboard session lives longer than this, however active, hours.
    pub dashboard_session_absolute_hours: i64,
    /// Login attempts allowed per minute for one account (email).
    pub dashboard_login_attempts_per_account: u32,
    /// Login attempts allowed per minute from one client address.
    pub dashboard_login_attempts_per_address: u32,
    /// Multiplies every wait of the customer-webhook retry schedule and the 5-day disable threshold
    /// (0 < scale ≤ 1). Below 1 only for fault trials and tests: it compresses ~28 hours of retries.
    pub webhook_retry_scale: f64,

    // ---- Client addresses behind proxies ----
    /// The reverse proxies whose `X-Forwarded-For` is believed: comma-separated IP addresses and CIDR
    /// networks. Empty (the default): the client is the TCP peer and the header is ignored.
    pub trusted_proxies: String,
    /// Failed API authentications (unknown or malformed keys) allowed per minute from one client address
    /// (IPv6: one /64); beyond it the address is answered `429` without its key being looked up.
    pub api_auth_failures_per_minute: u32,
}

fn redact_credentials<S: serde::Serializer>(value: &str, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&crate::redact::redact_url(value))
}

fn redact_credentials_option<S: serde::Serializer>(
    value: &Option<String>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match value {
        Some(url) => redact_credentials(url, serializer),
        None => serializer.serialize_none(),
    }
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
            accept_group_commit: true,
            accept_writers: 0,
            callback_writers: 0,
            read_cache_ms: 500,
            shutdown_timeout_seconds: 10,
            http_keep_alive_seconds: 120,
            network: NetworkMode::Simulator,
            simulator_public: false,
            cloud_api_base_url: "https://graph.facebook.com".into(),
            graph_api_version: "v23.0".into(),
            cloud_api_app_id: None,
            app_secret: None,
            verify_token: None,
            encryption_key: None,
            simulator_token: None,
            allow_private_webhook_targets: false,
            allow_insecure_webhooks: false,
            log_format: LogFormat::Text,
            metrics_listen: None,
            metrics_organization_labels: false,
            otlp_endpoint: None,
            rate_limiter: RateLimiterKind::Memory,
            redis_url: "redis://127.0.0.1:6379".into(),
            read_rate_per_second: 50,
            read_burst: 100,
            write_rate_per_second: 5,
            write_burst: 20,
            webhook_pending_tests: 5,
            cloud_access_token: None,
            simulator_url: None,
            simulator_throughput_per_sender: 1_000,
            simulator_callback_delay_min_ms: 20,
            simulator_callback_delay_max_ms: 200,
            dispatch_loops: 2,
            dispatch_batch_size: 100,
            dispatch_poll_ms: 500,
            dispatch_deadline_hours: 24,
            callback_wait_seconds: 300,
            schedule_min_lead_seconds: 60,
            dispatch_lease_seconds: 60,
            dispatch_base_backoff_ms: 2_000,
            simulator_duplicate_callbacks: false,
            simulator_extra_senders: 0,
            simulator_template_review_ms: 1_000,
            template_sync_interval_seconds: 600,
            dispatch_hold_seconds: 30,
            webhook_loops: 2,
            webhook_per_endpoint_inflight: 4,
            webhook_timeout_seconds: 15,
            media_dir: None,
            media_cleanup_interval_seconds: 3_600,
            retention_interval_seconds: 3_600,
            retention_batch: 1_000,
            retention_pause_ms: 200,
            retention_busy_percent: 20,
            dashboard_cookie_key: None,
            dashboard_session_idle_minutes: 30,
            dashboard_session_absolute_hours: 12,
            dashboard_login_attempts_per_account: 5,
            dashboard_login_attempts_per_address: 20,
            webhook_retry_scale: 1.0,
            trusted_proxies: String::new(),
            api_auth_failures_per_minute: 30,
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

    /// How long one media upload or download to the network may take: 5 minutes, whatever the dispatch
    /// lease, since dispatch renews the lease of a job while its transfer runs (a slow link needs no longer
    /// lease).
    pub fn media_transfer_timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs(MEDIA_TRANSFER_TIMEOUT_SECONDS)
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
        anyhow::ensure!(
            (1..=3_600).contains(&self.http_keep_alive_seconds),
            "http_keep_alive_seconds must be 1 to 3600"
        );
        anyhow::ensure!(
            self.read_cache_ms <= 1_000,
            "read_cache_ms must be 0 to 1000 (a key disabled elsewhere must stop working within a second)"
        );
        anyhow::ensure!(
            (1..=1_000).contains(&self.dispatch_poll_ms),
            "dispatch_poll_ms must be 1 to 1000 (a queued message never waits longer than that to be seen)"
        );
        anyhow::ensure!(
            self.dispatch_batch_size >= 1,
            "dispatch_batch_size must be at least 1"
        );
        anyhow::ensure!(
            self.dispatch_lease_seconds >= 20,
            "dispatch_lease_seconds must be at least 20 (longer than the 15 s network timeout)"
        );
        anyhow::ensure!(
            self.simulator_callback_delay_min_ms <= self.simulator_callback_delay_max_ms,
            "simulator_callback_delay_min_ms must not exceed simulator_callback_delay_max_ms"
        );
        anyhow::ensure!(
            self.simulator_extra_senders <= herald_simulator::MAX_EXTRA_SENDERS,
            "simulator_extra_senders must be at most {}",
            herald_simulator::MAX_EXTRA_SENDERS
        );
        anyhow::ensure!(
            (1..=60).contains(&self.schedule_min_lead_seconds),
            "schedule_min_lead_seconds must be 1 to 60 (the contract's minimum is a minute; shorter is for tests)"
        );
        anyhow::ensure!(
            (1..=100).contains(&self.retention_busy_percent),
            "retention_busy_percent must be 1 to 100"
        );
        anyhow::ensure!(self.webhook_loops >= 1, "webhook_loops must be at least 1");
        anyhow::ensure!(
            self.webhook_per_endpoint_inflight >= 1,
            "webhook_per_endpoint_inflight must be at least 1"
        );
        anyhow::ensure!(
            (1..=15).contains(&self.webhook_timeout_seconds),
            "webhook_timeout_seconds must be 1 to 15 (integrators are promised that a 2xx within 15 s succeeds)"
        );
        anyhow::ensure!(
            self.webhook_retry_scale > 0.0 && self.webhook_retry_scale <= 1.0,
            "webhook_retry_scale must be above 0 and at most 1 (it only compresses the retry schedule)"
        );
        if let Some(key) = &self.encryption_key {
            herald_system::EncryptionKey::from_base64(key.expose_secret())
                .context("HERALD_ENCRYPTION_KEY (encryption_key)")?;
        }
        if let Some(endpoint) = &self.otlp_endpoint {
            crate::telemetry::traces_url(endpoint)?;
        }
        self.validate_dashboard()?;
        self.validate_client_addresses()?;
        Ok(())
    }

    fn validate_client_addresses(&self) -> anyhow::Result<()> {
        self.trusted_proxies()?;
        anyhow::ensure!(
            self.api_auth_failures_per_minute >= 1,
            "api_auth_failures_per_minute must be at least 1"
        );
        Ok(())
    }

    /// The parsed `trusted_proxies`.
    ///
    /// # Errors
    /// Naming the entry that is neither an IP address nor a CIDR network.
    pub fn trusted_proxies(&self) -> anyhow::Result<herald_domain::client_address::TrustedProxies> {
        herald_domain::client_address::TrustedProxies::parse(&self.trusted_proxies)
            .context("HERALD_TRUSTED_PROXIES (trusted_proxies)")
    }

    fn validate_dashboard(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.dashboard_session_idle_minutes >= 1,
            "dashboard_session_idle_minutes must be at least 1"
        );
        anyhow::ensure!(
            (1..=24 * 30).contains(&self.dashboard_session_absolute_hours),
            "dashboard_session_absolute_hours must be 1 to 720"
        );
        anyhow::ensure!(
            self.dashboard_login_attempts_per_account >= 1 && self.dashboard_login_attempts_per_address >= 1,
            "dashboard_login_attempts_per_account and _per_address must be at least 1"
        );
        if let Some(key) = &self.dashboard_cookie_key {
            dashboard_cookie_key(key.expose_secret())
                .context("HERALD_DASHBOARD_COOKIE_KEY (dashboard_cookie_key)")?;
        }
        Ok(())
    }

    /// The configuration as JSON with every secret replaced by `[redacted]`, for the start-up log.
    pub fn redacted(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{}".into())
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
    fn the_encryption_key_must_be_32_bytes_of_base64_and_is_never_quoted() {
        figment::Jail::expect_with(|jail| {
            // 31 bytes.
            jail.set_env(
                "HERALD_ENCRYPTION_KEY",
                "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHg==",
            );
            let error = format!("{:#}", Settings::load(None).unwrap_err());
            assert!(
                error.contains("exactly 32 bytes") && error.contains("31"),
                "{error}"
            );
            assert!(!error.contains("AAECAwQF"), "{error}");
            jail.set_env("HERALD_ENCRYPTION_KEY", "not base64 at all!");
            let error = format!("{:#}", Settings::load(None).unwrap_err());
            assert!(error.contains("HERALD_ENCRYPTION_KEY"), "{error}");
            jail.set_env(
                "HERALD_ENCRYPTION_KEY",
                "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
            );
            let settings = Settings::load(None).map_err(|e| e.to_string())?;
            assert!(!settings.redacted().contains("AAECAwQF"));
            Ok(())
        });
    }

    #[test]
    fn webhook_settings_default_and_are_bounded() {
        figment::Jail::expect_with(|jail| {
            let settings = Settings::load(None).map_err(|e| e.to_string())?;
            assert_eq!(settings.webhook_loops, 2);
            assert_eq!(settings.webhook_per_endpoint_inflight, 4);
            assert_eq!(settings.webhook_timeout_seconds, 15);
            assert!((settings.webhook_retry_scale - 1.0).abs() < f64::EPSILON);
            assert!(!settings.allow_private_webhook_targets && !settings.allow_insecure_webhooks);
            jail.set_env("HERALD_WEBHOOK_TIMEOUT_SECONDS", "2");
            jail.set_env("HERALD_WEBHOOK_LOOPS", "3");
            let settings = Settings::load(None).map_err(|e| e.to_string())?;
            assert_eq!((settings.webhook_timeout_seconds, settings.webhook_loops), (2, 3));
            for (name, value) in [
                ("HERALD_WEBHOOK_TIMEOUT_SECONDS", "16"),
                ("HERALD_WEBHOOK_TIMEOUT_SECONDS", "0"),
                ("HERALD_WEBHOOK_LOOPS", "0"),
                ("HERALD_WEBHOOK_PER_ENDPOINT_INFLIGHT", "0"),
                ("HERALD_WEBHOOK_RETRY_SCALE", "0"),
                ("HERALD_WEBHOOK_RETRY_SCALE", "1.5"),
            ] {
                jail.set_env("HERALD_WEBHOOK_TIMEOUT_SECONDS", "2");
                jail.set_env("HERALD_WEBHOOK_LOOPS", "1");
                jail.set_env("HERALD_WEBHOOK_PER_ENDPOINT_INFLIGHT", "1");
                jail.set_env("HERALD_WEBHOOK_RETRY_SCALE", "0.5");
                jail.set_env(name, value);
                let error = format!("{:#}", Settings::load(None).unwrap_err());
                assert!(error.contains(&name["HERALD_".len()..].to_lowercase()), "{error}");
            }
            Ok(())
        });
    }

    #[test]
    fn the_retention_busy_share_defaults_to_a_fifth_and_is_bounded() {
        figment::Jail::expect_with(|jail| {
            assert_eq!(
                Settings::load(None)
                    .map_err(|e| e.to_string())?
                    .retention_busy_percent,
                20
            );
            jail.set_env("HERALD_RETENTION_BUSY_PERCENT", "100");
            assert_eq!(
                Settings::load(None)
                    .map_err(|e| e.to_string())?
                    .retention_busy_percent,
                100
            );
            for value in ["0", "101"] {
                jail.set_env("HERALD_RETENTION_BUSY_PERCENT", value);
                let error = format!("{:#}", Settings::load(None).unwrap_err());
                assert!(error.contains("retention_busy_percent"), "{value}: {error}");
            }
            Ok(())
        });
    }

    #[test]
    fn media_transfers_do_not_depend_on_the_dispatch_lease() {
        let with_lease = |seconds| Settings {
            dispatch_lease_seconds: seconds,
            ..Settings::default()
        };
        for lease in [20, 60, 3_600] {
            assert_eq!(with_lease(lease).media_transfer_timeout().as_secs(), 300);
        }
    }

    #[test]
    fn bad_values_are_refused() {
        figment::Jail::expect_with(|jail| {
            jail.set_env("HERALD_DATABASE_URL", "mysql://x");
            assert!(Settings::load(None).is_err());
            jail.set_env("HERALD_DATABASE_URL", "sqlite://x.db");
            jail.set_env("HERALD_NETWORK", "carrier-pigeon");
            assert!(Settings::load(None).is_err());
            jail.set_env("HERALD_NETWORK", "simulator");
            jail.set_env("HERALD_HTTP_KEEP_ALIVE_SECONDS", "0");
            assert!(Settings::load(None).is_err());
            jail.set_env("HERALD_HTTP_KEEP_ALIVE_SECONDS", "75");
            assert_eq!(
                Settings::load(None)
                    .map_err(|e| e.to_string())?
                    .http_keep_alive_seconds,
                75
            );
            Ok(())
        });
    }

    #[test]
    fn trusted_proxies_default_to_none_and_invalid_ones_stop_the_start() {
        figment::Jail::expect_with(|jail| {
            let settings = Settings::load(None).map_err(|e| e.to_string())?;
            assert!(settings.trusted_proxies().map_err(|e| e.to_string())?.is_empty());
            assert_eq!(settings.api_auth_failures_per_minute, 30);
            jail.set_env("HERALD_TRUSTED_PROXIES", "10.0.0.7, 172.16.0.0/12,fd00::/8");
            let proxies = Settings::load(None)
                .map_err(|e| e.to_string())?
                .trusted_proxies()
                .map_err(|e| e.to_string())?;
            assert!(proxies.trusts("172.20.1.1".parse().unwrap()));
            assert!(!proxies.trusts("10.0.0.8".parse().unwrap()));
            jail.set_env("HERALD_TRUSTED_PROXIES", "10.0.0.7, proxy.internal");
            let error = format!("{:#}", Settings::load(None).unwrap_err());
            assert!(
                error.contains("HERALD_TRUSTED_PROXIES") && error.contains("`proxy.internal`"),
                "{error}"
            );
            jail.set_env("HERALD_TRUSTED_PROXIES", "10.0.0.0/40");
            assert!(Settings::load(None).is_err());
            jail.set_env("HERALD_TRUSTED_PROXIES", "");
            jail.set_env("HERALD_API_AUTH_FAILURES_PER_MINUTE", "0");
            let error = format!("{:#}", Settings::load(None).unwrap_err());
            assert!(error.contains("api_auth_failures_per_minute"), "{error}");
            Ok(())
        });
    }

    /// An `otlp_endpoint` the exporter cannot post to stops the start, naming the setting; an http(s) one
    /// with a path and a query starts.
    #[test]
    fn an_otlp_endpoint_of_another_scheme_stops_the_start() {
        figment::Jail::expect_with(|jail| {
            jail.set_env("HERALD_OTLP_ENDPOINT", "ftp://collector.example:4318");
            let error = format!("{:#}", Settings::load(None).unwrap_err());
            assert!(
                error.contains("otlp_endpoint") && error.contains("ftp://"),
                "{error}"
            );
            jail.set_env("HERALD_OTLP_ENDPOINT", "http://127.0.0.1:4318/collector?tenant=x");
            assert!(Settings::load(None).is_ok());
            Ok(())
        });
    }

    /// `serve` logs its settings at start: no password or token of any URL setting may show there.
    #[test]
    fn the_logged_settings_hold_no_credential_of_any_url() {
        let settings = Settings {
            database_url: "postgres://herald:DbSecret1@db/herald?sslpassword=DbSecret2".into(),
            redis_url: "redis://:RedisSecret@redis:6379".into(),
            cloud_api_base_url: "https://u:ApiSecret@graph.example".into(),
            simulator_url: Some("http://sim:SimSecret@sim/simulator".into()),
            otlp_endpoint: Some("https://collector.example?token=OtlpSecret".into()),
            ..Settings::default()
        };
        let logged = settings.redacted();
        for secret in [
            "DbSecret1",
            "DbSecret2",
            "RedisSecret",
            "ApiSecret",
            "SimSecret",
            "OtlpSecret",
        ] {
            assert!(!logged.contains(secret), "{secret} in {logged}");
        }
        assert!(
            logged.contains("postgres://herald:[redacted]@db/herald"),
            "{logged}"
        );
    }
}
