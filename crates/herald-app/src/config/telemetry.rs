//! `[telemetry]`: logs, metrics and traces.

use serde::{Deserialize, Serialize};

/// How log lines look.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    Text,
    Json,
}

/// What a process tells about itself, and where.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TelemetrySection {
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
    #[serde(serialize_with = "super::redact_credentials_option")]
    pub otlp_endpoint: Option<String>,
}

/// The flat names of this section's settings (`herald.toml` keys outside a section, `HERALD_<NAME>`), each
/// with its field.
pub(super) const FLAT_NAMES: &[(&str, &str)] = &[
    ("log_format", "log_format"),
    ("metrics_listen", "metrics_listen"),
    ("metrics_organization_labels", "metrics_organization_labels"),
    ("otlp_endpoint", "otlp_endpoint"),
];

impl Default for TelemetrySection {
    fn default() -> Self {
        Self {
            log_format: LogFormat::Text,
            metrics_listen: None,
            metrics_organization_labels: false,
            otlp_endpoint: None,
        }
    }
}

impl TelemetrySection {
    /// # Errors
    /// When the OTLP endpoint is not an http(s) URL the exporter can post to.
    pub(super) fn validate(&self) -> anyhow::Result<()> {
        if let Some(endpoint) = &self.otlp_endpoint {
            crate::telemetry::traces_url(endpoint)?;
        }
        Ok(())
    }
}
