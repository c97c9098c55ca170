//! The settings table of `docs/operations.md` is what users configure Herald by: every name it lists must
//! be taken, as a `HERALD_*` variable, as a flat `herald.toml` key and under the `herald.toml` section the
//! table gives it, and must land in the field it describes.
#![allow(
    clippy::result_large_err,
    reason = "figment's Jail API returns its own large error"
)]

use super::*;
use secrecy::ExposeSecret;

/// A valid value other than the default, as a TOML literal.
type Literal = &'static str;
/// Reads the field a name must land in, as text to compare with the literal.
type Reader = fn(&Settings) -> String;

const KEY_32_BYTES: &str = "\"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\"";

fn secret(value: Option<&SecretString>) -> String {
    value.map(|s| s.expose_secret().to_owned()).unwrap_or_default()
}

fn text(value: Option<&String>) -> String {
    value.cloned().unwrap_or_default()
}

/// For each flat name, a value to set and where it must land. Written out field by field rather than
/// derived from the loader's own table, so a name put in the wrong place is caught too.
#[rustfmt::skip]
fn probe(name: &str) -> Option<(Literal, Reader)> {
    let probe: (Literal, Reader) = match name {
        "database_url" => ("\"sqlite://probe.db\"", |s| s.store.database_url.clone()),
        "listen" => ("\"0.0.0.0:9000\"", |s| s.server.listen.clone()),
        "max_connections" => ("7", |s| s.store.max_connections.to_string()),
        "migrate_on_start" => ("false", |s| s.store.migrate_on_start.to_string()),
        "http_workers" => ("3", |s| s.server.http_workers.to_string()),
        "read_cache_ms" => ("250", |s| s.store.read_cache_ms.to_string()),
        "accept_group_commit" => ("false", |s| s.store.accept_group_commit.to_string()),
        "callback_writers" => ("3", |s| s.store.callback_writers.to_string()),
        "accept_writers" => ("2", |s| s.store.accept_writers.to_string()),
        "shutdown_timeout_seconds" => ("20", |s| s.server.shutdown_timeout_seconds.to_string()),
        "http_keep_alive_seconds" => ("75", |s| s.server.http_keep_alive_seconds.to_string()),
        "network" => ("\"cloud\"", |s| format!("{:?}", s.network.mode).to_lowercase()),
        "cloud_api_base_url" => ("\"https://graph.example\"", |s| s.network.cloud_api_base_url.clone()),
        "graph_api_version" => ("\"v24.0\"", |s| s.network.graph_api_version.clone()),
        "cloud_api_app_id" => ("\"app-7\"", |s| text(s.network.cloud_api_app_id.as_ref())),
        "app_secret" => ("\"app-secret\"", |s| secret(s.network.app_secret.as_ref())),
        "verify_token" => ("\"verify-me\"", |s| secret(s.network.verify_token.as_ref())),
        "cloud_access_token" => ("\"cloud-token\"", |s| secret(s.network.cloud_access_token.as_ref())),
        "template_sync_interval_seconds" => ("900", |s| s.network.template_sync_interval_seconds.to_string()),
        "encryption_key" => (KEY_32_BYTES, |s| secret(s.store.encryption_key.as_ref())),
        "simulator_token" => ("\"sim-token\"", |s| secret(s.simulator.token.as_ref())),
        "simulator_public" => ("true", |s| s.simulator.public.to_string()),
        "simulator_url" => ("\"http://sim.example/simulator\"", |s| text(s.simulator.url.as_ref())),
        "simulator_throughput_per_sender" => ("80", |s| s.simulator.throughput_per_sender.to_string()),
        "simulator_callback_delay_min_ms" => ("30", |s| s.simulator.callback_delay_min_ms.to_string()),
        "simulator_callback_delay_max_ms" => ("300", |s| s.simulator.callback_delay_max_ms.to_string()),
        "simulator_duplicate_callbacks" => ("true", |s| s.simulator.duplicate_callbacks.to_string()),
        "simulator_extra_senders" => ("3", |s| s.simulator.extra_senders.to_string()),
        "simulator_template_review_ms" => ("300", |s| s.simulator.template_review_ms.to_string()),
        "allow_private_webhook_targets" => ("true", |s| s.webhooks.allow_private_targets.to_string()),
        "allow_insecure_webhooks" => ("true", |s| s.webhooks.allow_insecure.to_string()),
        "webhook_pending_tests" => ("7", |s| s.webhooks.pending_tests.to_string()),
        "webhook_loops" => ("3", |s| s.webhooks.loops.to_string()),
        "webhook_per_endpoint_inflight" => ("5", |s| s.webhooks.per_endpoint_inflight.to_string()),
        "webhook_timeout_seconds" => ("10", |s| s.webhooks.timeout_seconds.to_string()),
        "webhook_retry_scale" => ("0.5", |s| s.webhooks.retry_scale.to_string()),
        "log_format" => ("\"json\"", |s| format!("{:?}", s.telemetry.log_format).to_lowercase()),
        "otlp_endpoint" => ("\"http://127.0.0.1:4318\"", |s| text(s.telemetry.otlp_endpoint.as_ref())),
        "metrics_listen" => ("\"127.0.0.1:9464\"", |s| text(s.telemetry.metrics_listen.as_ref())),
        "metrics_organization_labels" => ("true", |s| s.telemetry.metrics_organization_labels.to_string()),
        "dispatch_loops" => ("3", |s| s.dispatch.loops.to_string()),
        "dispatch_batch_size" => ("50", |s| s.dispatch.batch_size.to_string()),
        "dispatch_poll_ms" => ("100", |s| s.dispatch.poll_ms.to_string()),
        "dispatch_lease_seconds" => ("90", |s| s.dispatch.lease_seconds.to_string()),
        "dispatch_base_backoff_ms" => ("500", |s| s.dispatch.base_backoff_ms.to_string()),
        "dispatch_deadline_hours" => ("12", |s| s.dispatch.deadline_hours.to_string()),
        "dispatch_hold_seconds" => ("45", |s| s.dispatch.hold_seconds.to_string()),
        "callback_wait_seconds" => ("120", |s| s.dispatch.callback_wait_seconds.to_string()),
        "schedule_min_lead_seconds" => ("5", |s| s.dispatch.schedule_min_lead_seconds.to_string()),
        "rate_limiter" => ("\"redis\"", |s| format!("{:?}", s.limits.rate_limiter).to_lowercase()),
        "redis_url" => ("\"redis://cache.example:6380\"", |s| s.limits.redis_url.clone()),
        "read_rate_per_second" => ("60", |s| s.limits.read_rate_per_second.to_string()),
        "read_burst" => ("120", |s| s.limits.read_burst.to_string()),
        "write_rate_per_second" => ("6", |s| s.limits.write_rate_per_second.to_string()),
        "write_burst" => ("25", |s| s.limits.write_burst.to_string()),
        "trusted_proxies" => ("\"10.0.0.7\"", |s| s.limits.trusted_proxies.clone()),
        "api_auth_failures_per_minute" => ("31", |s| s.limits.api_auth_failures_per_minute.to_string()),
        "media_dir" => ("\"/srv/herald-media\"", |s| text(s.media.dir.as_ref())),
        "media_cleanup_interval_seconds" => ("1800", |s| s.media.cleanup_interval_seconds.to_string()),
        "retention_interval_seconds" => ("7200", |s| s.retention.interval_seconds.to_string()),
        "retention_batch" => ("500", |s| s.retention.batch.to_string()),
        "retention_pause_ms" => ("100", |s| s.retention.pause_ms.to_string()),
        "retention_busy_percent" => ("30", |s| s.retention.busy_percent.to_string()),
        "dashboard_cookie_key" => (KEY_32_BYTES, |s| secret(s.dashboard.cookie_key.as_ref())),
        "dashboard_session_idle_minutes" => ("15", |s| s.dashboard.session_idle_minutes.to_string()),
        "dashboard_session_absolute_hours" => ("24", |s| s.dashboard.session_absolute_hours.to_string()),
        "dashboard_login_attempts_per_account" => ("6", |s| s.dashboard.login_attempts_per_account.to_string()),
        "dashboard_login_attempts_per_address" => ("21", |s| s.dashboard.login_attempts_per_address.to_string()),
        _ => return None,
    };
    Some(probe)
}

/// The code spans of a table cell (`` `a` / `_b` ``), an abbreviated one (`_max_ms`, `…_MAX_MS`) completed
/// from the first: its last segments replaced by as many segments.
fn cell_names(cell: &str) -> Vec<String> {
    let spans: Vec<&str> = cell.split('`').skip(1).step_by(2).collect();
    let Some(first) = spans.first().map(|s| (*s).to_owned()) else {
        return Vec::new();
    };
    let mut names = vec![first.clone()];
    for span in spans.iter().skip(1) {
        let tail = span.trim_start_matches('…');
        if tail.starts_with('_') {
            let replaced = tail.matches('_').count();
            let kept: Vec<&str> = first.split('_').collect();
            let kept = kept
                .get(..kept.len().saturating_sub(replaced))
                .unwrap_or_default();
            names.push(format!("{}{tail}", kept.join("_")));
        } else {
            names.push((*span).to_owned());
        }
    }
    names
}

/// A documented setting: its flat name, its variable and its place in a section (`webhooks.loops`).
struct Documented {
    name: String,
    variable: String,
    in_section: String,
}

/// Each documented setting, read from the table under `## Configuration`.
fn documented() -> Vec<Documented> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/operations.md");
    let page = std::fs::read_to_string(path).expect("docs/operations.md");
    let section = page
        .split("\n## ")
        .find(|part| part.starts_with("Configuration"))
        .expect("a Configuration section");
    let mut rows = Vec::new();
    for row in section.lines().filter(|line| line.starts_with("| `")) {
        let cells: Vec<&str> = row.split('|').collect();
        let (names, variables, in_sections) =
            (cell_names(cells[1]), cell_names(cells[2]), cell_names(cells[3]));
        assert!(
            names.len() == variables.len() && names.len() == in_sections.len(),
            "{row}"
        );
        for ((name, variable), in_section) in names.into_iter().zip(variables).zip(in_sections) {
            rows.push(Documented {
                name,
                variable,
                in_section,
            });
        }
    }
    rows
}

#[test]
fn the_documented_table_is_read_whole() {
    let rows = documented();
    assert!(rows.len() >= 68, "{} rows read", rows.len());
    let row = |name: &str| {
        rows.iter()
            .find(|row| row.name == name)
            .map(|row| (row.variable.as_str(), row.in_section.as_str()))
    };
    assert_eq!(
        row("simulator_callback_delay_max_ms"),
        Some((
            "HERALD_SIMULATOR_CALLBACK_DELAY_MAX_MS",
            "simulator.callback_delay_max_ms"
        ))
    );
    assert_eq!(
        row("read_burst"),
        Some(("HERALD_READ_BURST", "limits.read_burst"))
    );
}

/// Every setting the loader knows is documented, and every documented one is known.
#[test]
fn every_setting_is_documented_once() {
    let documented: Vec<String> = documented().into_iter().map(|row| row.name).collect();
    for name in flat_names() {
        assert_eq!(
            documented.iter().filter(|d| *d == name).count(),
            1,
            "{name} in docs/operations.md"
        );
    }
    for name in &documented {
        assert!(
            section_field(name).is_some(),
            "{name} is documented but no setting"
        );
    }
}

/// Every documented name is taken as its variable, as a flat file key and under its documented file section,
/// and lands in the field it names.
#[test]
fn every_documented_name_lands_in_its_field() {
    let defaults = Settings::default();
    for Documented {
        name,
        variable,
        in_section,
    } in documented()
    {
        assert_eq!(
            variable,
            format!("HERALD_{}", name.to_ascii_uppercase()),
            "the documented variable"
        );
        let (literal, read) = probe(&name).unwrap_or_else(|| panic!("no probe for {name}"));
        let expected = literal.trim_matches('"');
        assert_ne!(
            read(&defaults),
            expected,
            "{name}: the probe must differ from the default"
        );
        let (section, field) = in_section
            .split_once('.')
            .unwrap_or_else(|| panic!("{name}: {in_section}"));
        let ways = [
            ("variable", None),
            ("flat key", Some(format!("{name} = {literal}\n"))),
            ("section", Some(format!("[{section}]\n{field} = {literal}\n"))),
        ];
        for (way, file) in ways {
            figment::Jail::expect_with(|jail| {
                jail.clear_env();
                match &file {
                    Some(file) => jail.create_file("herald.toml", file).map(|_| ())?,
                    None => jail.set_env(&variable, expected),
                }
                let settings = Settings::load(None).map_err(|e| format!("{name} as {way}: {e:#}"))?;
                assert_eq!(read(&settings), expected, "{name} as {way}");
                Ok(())
            });
        }
    }
}
