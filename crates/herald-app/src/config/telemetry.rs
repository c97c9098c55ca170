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
            traces_url(endpoint)?;
        }
        Ok(())
    }
}

/// Where spans are posted: `otlp_endpoint` with `/v1/traces` added to its path (unless the path already ends
/// so), its query kept as it is (`http://collector:4318/base?tenant=x` → `…/base/v1/traces?tenant=x`).
///
/// # Errors
/// When `endpoint` is not an absolute URL, or its scheme is not `http` or `https` (the OTLP/HTTP exporter
/// speaks nothing else: any other scheme would fail at every export, silently, for the process's life).
pub fn traces_url(endpoint: &str) -> anyhow::Result<url::Url> {
    let mut url = url::Url::parse(endpoint)
        .map_err(|error| anyhow::anyhow!("otlp_endpoint must be an absolute http(s) URL: {error}"))?;
    anyhow::ensure!(
        matches!(url.scheme(), "http" | "https"),
        "otlp_endpoint must be an http:// or https:// URL (OTLP/HTTP), not {}://",
        url.scheme()
    );
    let path = url.path().trim_end_matches('/');
    let joined = if path.ends_with("/v1/traces") {
        path.to_owned()
    } else {
        format!("{path}/v1/traces")
    };
    url.set_path(&joined);
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_traces_path_is_joined_to_the_endpoints_path_and_its_query_kept() {
        for (endpoint, url) in [
            ("http://127.0.0.1:4318", "http://127.0.0.1:4318/v1/traces"),
            ("http://127.0.0.1:4318/", "http://127.0.0.1:4318/v1/traces"),
            (
                "http://127.0.0.1:4318/collector?tenant=x",
                "http://127.0.0.1:4318/collector/v1/traces?tenant=x",
            ),
            (
                "https://otel.example/base/?tenant=x&k=1",
                "https://otel.example/base/v1/traces?tenant=x&k=1",
            ),
            ("https://otel.example/v1/traces", "https://otel.example/v1/traces"),
            (
                "https://otel.example/v1/traces/?a=b",
                "https://otel.example/v1/traces?a=b",
            ),
        ] {
            assert_eq!(
                traces_url(endpoint).map(|u| u.to_string()).ok().as_deref(),
                Some(url),
                "{endpoint}"
            );
        }
    }

    #[test]
    fn an_endpoint_of_another_scheme_or_no_url_is_refused_naming_the_setting() {
        for endpoint in [
            "ftp://collector:4318",
            "file:///tmp/spans",
            "collector:4318",
            "127.0.0.1:4318",
            "",
        ] {
            let error = traces_url(endpoint).map(|u| u.to_string());
            let message = format!("{:#}", error.err().unwrap_or_else(|| anyhow::anyhow!("accepted")));
            assert!(message.contains("otlp_endpoint"), "{endpoint}: {message}");
        }
    }
}
