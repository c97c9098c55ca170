//! The Prometheus side of Herald: one recorder per process for the `metrics` facade, and the listener of
//! `metrics_listen` that serves `GET /metrics` in the Prometheus text format. What is measured is listed
//! in `docs/operations.md` ("Metrics"); the series are recorded where the work happens (the HTTP
//! middleware, the workers).

use anyhow::Context;
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use std::sync::{Arc, Mutex};

/// Latency buckets, seconds: from a cached read (a millisecond) to a slow network call (ten seconds).
const SECONDS_BUCKETS: [f64; 14] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

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
    let handle = PrometheusBuilder::new()
        .set_buckets(&SECONDS_BUCKETS)
        .context("metric buckets")?
        .install_recorder()
        .context("installing the metrics recorder")?;
    metrics_process::Collector::default().describe();
    *slot = Some(handle.clone());
    Ok(handle)
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
        let port = listener.local_addr()?.port();
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

/// Counts one dispatch round's outcomes (`herald_dispatch_total{outcome}`).
pub fn record_dispatch(report: &herald_domain::usecases::DispatchReport) {
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

/// Counts one webhook round's attempts (`herald_webhook_deliveries_total{outcome}`) and the endpoints it
/// disabled (`herald_webhook_endpoints_disabled_total`).
pub fn record_webhooks(report: &herald_domain::usecases::DeliveryReport) {
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

/// Counts one sweep of the callback backlog (`herald_callbacks_backlog_total{outcome}`).
pub fn record_backlog(report: &herald_domain::usecases::BacklogReport) {
    // `parked` callbacks are among the `failed` ones: counted once, under `parked`.
    for (outcome, count) in [
        ("processed", report.processed),
        ("failed", report.failed.saturating_sub(report.parked)),
        ("parked", report.parked),
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
