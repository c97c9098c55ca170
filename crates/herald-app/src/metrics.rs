//! The Prometheus side of Herald: one recorder per process for the `metrics` facade, and the listener of
//! `metrics_listen` that serves `GET /metrics` in the Prometheus text format. What is measured is listed
//! in `docs/operations.md` ("Metrics"); the series are recorded where the work happens (the HTTP
//! middleware, the workers).

use anyhow::Context;
use herald_domain::Timestamp;
use herald_domain::dispatch::SenderBacklog;
use herald_domain::usecases::{DeliveryReport, DispatchRound};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use std::collections::HashSet;
use std::sync::{Arc, Mutex};

/// Latency buckets, seconds: from a cached read (a millisecond) to a slow network call (ten seconds).
const SECONDS_BUCKETS: [f64; 14] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// Buckets of the waits measured in a message's life (queueing, the network's delivery, a webhook's backlog):
/// from a tenth of a second to a day.
const WAIT_BUCKETS: [f64; 16] = [
    0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1_800.0, 3_600.0, 21_600.0,
    86_400.0,
];

/// The histograms measured in [`WAIT_BUCKETS`].
const WAIT_HISTOGRAMS: [&str; 3] = [
    "herald_accept_to_submitted_seconds",
    "herald_submitted_to_delivered_seconds",
    "herald_webhook_first_attempt_lag_seconds",
];

/// Buckets of counts (items per group-commit batch, at most 256): powers of two. The seconds' buckets put every
/// batch over 10 items into `+Inf` and had six buckets below one item.
const SIZE_BUCKETS: [f64; 9] = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0];

/// The histograms measured in [`SIZE_BUCKETS`].
const SIZE_HISTOGRAMS: [&str; 1] = ["herald_group_commit_batch_size"];

/// How often histograms are folded so that a rarely scraped process does not hold every sample.
const UPKEEP: std::time::Duration = std::time::Duration::from_secs(5);

static RECORDER: Mutex<Option<PrometheusHandle>> = Mutex::new(None);

/// The process's recorder, installed on first use. The `metrics` facade has one global recorder, so every
/// [`Application`](crate::Application) of a process (tests build several) shares it.
///
/// # Errors
/// When another recorder was installed by something else.
pub fn recorder() -> anyhow::Result<PrometheusHandle> {
    let mut slot = RECORDER
        .lock()
        .map_err(|_| anyhow::anyhow!("the metrics recorder lock is poisoned"))?;
    if let Some(handle) = slot.as_ref() {
        return Ok(handle.clone());
    }
    let handle = builder()?
        .install_recorder()
        .context("installing the metrics recorder")?;
    metrics_process::Collector::default().describe();
    herald_http::metrics::start_recording();
    *slot = Some(handle.clone());
    Ok(handle)
}

/// The exporter with each histogram's buckets: seconds by default, the message's waits and the batch sizes apart.
fn builder() -> anyhow::Result<PrometheusBuilder> {
    let mut builder = PrometheusBuilder::new()
        .set_buckets(&SECONDS_BUCKETS)
        .context("metric buckets")?;
    for (names, buckets) in [
        (&WAIT_HISTOGRAMS[..], &WAIT_BUCKETS[..]),
        (&SIZE_HISTOGRAMS[..], &SIZE_BUCKETS[..]),
    ] {
        for name in names {
            builder = builder
                .set_buckets_for_metric(Matcher::Full((*name).to_owned()), buckets)
                .context("histogram buckets")?;
        }
    }
    Ok(builder)
}

/// A running metrics listener.
pub struct MetricsServer {
    port: u16,
    handle: actix_web::dev::ServerHandle,
    running: tokio::task::JoinHandle<std::io::Result<()>>,
    upkeep: tokio::task::JoinHandle<()>,
}

impl MetricsServer {
    /// Binds `listen` (port 0 picks a free one) and serves `GET /metrics` there.
    ///
    /// # Errors
    /// When the recorder cannot be installed or the address cannot be bound.
    pub fn start(listen: &str) -> anyhow::Result<Self> {
        let recorder = recorder()?;
        let listener = std::net::TcpListener::bind(listen)
            .with_context(|| format!("binding metrics_listen {listen}"))?;
        let address = listener.local_addr()?;
        let port = address.port();
        if !address.ip().is_loopback() {
            // The figures name routes, volumes and (with `metrics_organization_labels`) customers, and the
            // listener has no authentication: beyond loopback, only a firewall keeps them private.
            tracing::warn!(
                %address,
                "metrics_listen is not a loopback address: GET /metrics answers anyone who can reach it, \
                 without authentication; bind 127.0.0.1 or keep the port behind a firewall"
            );
        }
        let state = actix_web::web::Data::new(Scrape {
            recorder: recorder.clone(),
            process: Arc::new(metrics_process::Collector::default()),
        });
        let server = actix_web::HttpServer::new(move || {
            actix_web::App::new()
                .app_data(state.clone())
                .route("/metrics", actix_web::web::get().to(scrape))
        })
        .workers(1)
        .disable_signals()
        .listen(listener)?
        .run();
        let handle = server.handle();
        let upkeep = tokio::spawn(async move {
            let mut every = tokio::time::interval(UPKEEP);
            loop {
                every.tick().await;
                recorder.run_upkeep();
            }
        });
        tracing::info!(port, "serving metrics at /metrics");
        Ok(Self {
            port,
            handle,
            running: tokio::spawn(server),
            upkeep,
        })
    }

    /// The bound port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Stops the listener.
    pub async fn stop(self) {
        self.upkeep.abort();
        self.handle.stop(true).await;
        let _ = self.running.await;
    }
}

struct Scrape {
    recorder: PrometheusHandle,
    process: Arc<metrics_process::Collector>,
}

async fn scrape(state: actix_web::web::Data<Scrape>) -> actix_web::HttpResponse {
    // Process figures (CPU seconds, memory, open files) are read when asked for, not on a timer.
    state.process.collect();
    actix_web::HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(state.recorder.render())
}

/// Counts one dispatch round's outcomes (`herald_dispatch_total{outcome}`, with `organization` when
/// `organization_labels`) and how long each submitted message waited for it
/// (`herald_accept_to_submitted_seconds`).
pub fn record_dispatch(round: &DispatchRound, organization_labels: bool) {
    let report = &round.report;
    if organization_labels {
        for job in &round.jobs {
            metrics::counter!(
                "herald_dispatch_total",
                "outcome" => job.outcome.as_str(), "organization" => job.organization_id.to_string()
            )
            .increment(1);
        }
    } else {
        for (outcome, count) in [
            ("submitted", report.submitted),
            ("retried", report.retried),
            ("failed", report.failed),
            ("awaiting_callback", report.awaiting_callback),
            ("held", report.held),
            ("already_done", report.already_done),
            ("claim_lost", report.claims_lost),
        ] {
            if count > 0 {
                metrics::counter!("herald_dispatch_total", "outcome" => outcome).increment(count as u64);
            }
        }
    }
    for wait in round.jobs.iter().filter_map(|job| job.accept_to_submitted) {
        metrics::histogram!("herald_accept_to_submitted_seconds").record(seconds(wait));
    }
}

/// Publishes the outbox backlog (`herald_outbox_depth`, `herald_outbox_oldest_due_age_seconds`): totals
/// (the depth summed, the oldest wait of all) by default, one series per organization and sender with
/// `organization_labels`. `published` holds the label pairs published last time: a sender whose outbox
/// emptied since is set to zero rather than left at its last value.
pub fn record_outbox(
    backlog: &[SenderBacklog],
    now: Timestamp,
    organization_labels: bool,
    published: &mut HashSet<(String, String)>,
) {
    let age = |line: &SenderBacklog| line.oldest_due.map_or(0.0, |due| seconds(now - due));
    if !organization_labels {
        let depth: u64 = backlog.iter().map(|line| line.depth).sum();
        metrics::gauge!("herald_outbox_depth").set(count(depth));
        metrics::gauge!("herald_outbox_oldest_due_age_seconds")
            .set(backlog.iter().map(age).fold(0.0, f64::max));
        return;
    }
    let mut now_published = HashSet::with_capacity(backlog.len());
    for line in backlog {
        let labels = (line.organization_id.to_string(), line.sender_id.to_string());
        metrics::gauge!(
            "herald_outbox_depth",
            "organization" => labels.0.clone(), "sender" => labels.1.clone()
        )
        .set(count(line.depth));
        metrics::gauge!(
            "herald_outbox_oldest_due_age_seconds",
            "organization" => labels.0.clone(), "sender" => labels.1.clone()
        )
        .set(age(line));
        now_published.insert(labels);
    }
    for (organization, sender) in published.difference(&now_published) {
        metrics::gauge!(
            "herald_outbox_depth",
            "organization" => organization.clone(), "sender" => sender.clone()
        )
        .set(0.0);
        metrics::gauge!(
            "herald_outbox_oldest_due_age_seconds",
            "organization" => organization.clone(), "sender" => sender.clone()
        )
        .set(0.0);
    }
    // Keeps every pair ever seen zeroed rather than forgetting it: a forgotten pair would keep its last value.
    published.extend(now_published);
}

/// Publishes how many customer webhook deliveries are pending (`herald_webhook_pending`).
pub fn record_webhook_pending(pending: u64) {
    metrics::gauge!("herald_webhook_pending").set(count(pending));
}

#[allow(clippy::cast_precision_loss, reason = "a count far below 2^52")]
fn count(n: u64) -> f64 {
    n as f64
}

fn seconds(duration: herald_domain::time::Duration) -> f64 {
    duration.to_std().unwrap_or_default().as_secs_f64()
}

/// Counts recorded webhook attempts (`herald_webhook_deliveries_total{outcome}`) and the endpoints they
/// disabled (`herald_webhook_endpoints_disabled_total`).
pub fn record_webhooks(report: &DeliveryReport) {
    for (outcome, count) in [
        ("succeeded", report.succeeded),
        ("retrying", report.retrying),
        ("failed", report.failed),
        ("claim_lost", report.claims_lost),
    ] {
        if count > 0 {
            metrics::counter!("herald_webhook_deliveries_total", "outcome" => outcome)
                .increment(count as u64);
        }
    }
    if report.endpoints_disabled > 0 {
        metrics::counter!("herald_webhook_endpoints_disabled_total")
            .increment(report.endpoints_disabled as u64);
    }
}

/// How long each delivery attempted for the first time by a claim had waited since its event
/// (`herald_webhook_first_attempt_lag_seconds`).
pub fn record_webhook_lags(lags: &[herald_domain::time::Duration]) {
    for lag in lags {
        metrics::histogram!("herald_webhook_first_attempt_lag_seconds").record(seconds(*lag));
    }
}

/// Counts one sweep of the callback backlog (`herald_callbacks_backlog_total{outcome}`).
pub fn record_backlog(report: &herald_domain::usecases::BacklogReport) {
    // `parked` callbacks are among the `failed` ones: counted once, under `parked`, with the unreadable rows
    // the store parked as it read the page.
    for (outcome, count) in [
        ("processed", report.processed),
        ("failed", report.failed.saturating_sub(report.parked)),
        ("parked", report.parked + report.unreadable),
    ] {
        if count > 0 {
            metrics::counter!("herald_callbacks_backlog_total", "outcome" => outcome).increment(count as u64);
        }
    }
}

/// Publishes how many stored callbacks are parked now (`herald_callbacks_parked`).
pub fn record_parked(parked: u64) {
    #[allow(clippy::cast_precision_loss, reason = "a count far below 2^52")]
    metrics::gauge!("herald_callbacks_parked").set(parked as f64);
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use herald_domain::usecases::BacklogReport;
    use metrics_exporter_prometheus::PrometheusBuilder;

    /// A group commit's batch sizes land in count buckets: a batch of 20 is under `le="32"`, one of 200 under
    /// `le="256"`, and neither in `+Inf` alone as the seconds' buckets had it.
    #[test]
    fn batch_sizes_are_bucketed_as_counts_and_latencies_as_seconds() {
        let recorder = super::builder().unwrap().build_recorder();
        let handle = recorder.handle();
        metrics::with_local_recorder(&recorder, || {
            for size in [1.0, 20.0, 200.0] {
                metrics::histogram!("herald_group_commit_batch_size", "kind" => "accept").record(size);
            }
            metrics::histogram!("herald_store_pool_wait_seconds", "pool" => "main").record(0.003);
        });
        let text = handle.render();
        let bucket = |metric: &str, labels: &str, le: &str| {
            let start = format!("{metric}_bucket{{{labels},le=\"{le}\"}} ");
            text.lines()
                .find_map(|line| line.strip_prefix(start.as_str()))
                .map(|value| value.parse::<u64>().unwrap())
        };
        let batch = |le| bucket("herald_group_commit_batch_size", "kind=\"accept\"", le);
        assert_eq!(batch("1"), Some(1), "{text}");
        assert_eq!(batch("16"), Some(1), "{text}");
        assert_eq!(batch("32"), Some(2), "{text}");
        assert_eq!(batch("128"), Some(2), "{text}");
        assert_eq!(batch("256"), Some(3), "{text}");
        assert_eq!(batch("0.5"), None, "no second's bucket for a count: {text}");
        let wait = |le| bucket("herald_store_pool_wait_seconds", "pool=\"main\"", le);
        assert_eq!(wait("0.0025"), Some(0), "{text}");
        assert_eq!(wait("0.005"), Some(1), "{text}");
    }

    /// A sweep's callbacks counted once each: failures parked now under `parked` (not `failed` too), and the
    /// unreadable rows the store parked as it read the page under `parked` as well.
    #[test]
    fn a_backlog_sweep_counts_each_callback_once_with_unreadable_rows_as_parked() {
        let recorder = PrometheusBuilder::new().build_recorder();
        let handle = recorder.handle();
        metrics::with_local_recorder(&recorder, || {
            super::record_backlog(&BacklogReport {
                processed: 4,
                failed: 3,
                parked: 1,
                unreadable: 2,
                read: 9,
            });
        });
        let text = handle.render();
        let count = |outcome: &str| {
            text.lines()
                .find(|line| {
                    line.starts_with(&format!(
                        "herald_callbacks_backlog_total{{outcome=\"{outcome}\"}}"
                    ))
                })
                .and_then(|line| line.rsplit_once(' '))
                .map(|(_, value)| value.parse::<u64>().unwrap())
        };
        assert_eq!(count("processed"), Some(4), "{text}");
        assert_eq!(count("failed"), Some(2), "{text}");
        assert_eq!(count("parked"), Some(3), "{text}");
    }
}
