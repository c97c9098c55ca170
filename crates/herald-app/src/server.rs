//! The running process: the HTTP server and the background workers its role runs, built in
//! [`Application::build`] from the settings and the [`Services`].

use crate::cli::Role;
use crate::config::{Settings, StoreSection};
use crate::keys::NO_KEY_WITH_POSTGRES;
use crate::network::{NetworkParts, callback_secret, connect_network, simulator_exposure};
use crate::services::{Services, webhook_policy};
use crate::workers::{WorkerSettings, Workers};
use anyhow::Context;
use herald_cloudapi::AppSecretAuthenticator;
use herald_domain::ports::{MessagingNetwork, SecretSealer};
use herald_domain::usecases::SyncTemplates;
use herald_http::network::NetworkWebhook;
use herald_simulator::Simulator;
use secrecy::SecretString;
use std::net::TcpListener;
use std::sync::Arc;

/// A bound, ready-to-run Herald: the HTTP server (roles `all`, `api`) and the background workers (roles
/// `all`, `worker`).
pub struct Application {
    port: Option<u16>,
    server: Option<RunningServer>,
    workers: Option<Workers>,
    sync: Arc<SyncTemplates>,
    simulator: Option<Arc<Simulator>>,
    metrics: Option<crate::metrics::MetricsServer>,
    shutdown_grace: std::time::Duration,
}

impl Application {
    /// Binds `[server] listen` (port 0 picks a free one) and builds everything `role` runs on `services`.
    /// With the simulator network (the default) the simulator is served in-process under `/simulator` and
    /// calls back to this server's `/webhooks/whatsapp`.
    ///
    /// # Errors
    /// When the address cannot be bound or the configuration is incomplete (e.g. cloud mode without an app
    /// secret, or PostgreSQL without an encryption key).
    pub fn build(settings: &Settings, services: &Services, role: Role) -> anyhow::Result<Self> {
        // Refused up front rather than at the first send of a sender with a stored token, hours later.
        let Some(sealer) = services.sealer.clone() else {
            anyhow::bail!(NO_KEY_WITH_POSTGRES);
        };
        webhook_policy(&settings.webhooks).warn_if_relaxed();
        let serves_http = role != Role::Worker;
        let listener = bind(settings, serves_http)?;
        let port = listener
            .as_ref()
            .map(TcpListener::local_addr)
            .transpose()?
            .map(|a| a.port());
        let own_base = port.map(|p| format!("http://{}", crate::display_addr(&settings.server.listen, p)));
        let app_secret = callback_secret(settings, services.secrets.as_ref(), serves_http)?;
        let parts = connect_network(settings, services, &app_secret, own_base.as_deref())?;
        let sync = Arc::new(services.sync_templates(parts.network.clone()));
        let server = match listener {
            Some(listener) => Some(serve_http(
                listener, settings, services, &parts, &sealer, app_secret,
            )?),
            None => None,
        };
        let NetworkParts {
            simulator, network, ..
        } = parts;
        let workers = match role {
            Role::Api => None,
            _ => Some(start_workers(settings, services, &network, sealer, &sync)?),
        };
        let metrics = settings
            .telemetry
            .metrics_listen
            .as_deref()
            .map(crate::metrics::MetricsServer::start)
            .transpose()?;
        Ok(Self {
            port,
            server,
            workers,
            sync,
            simulator,
            metrics,
            shutdown_grace: std::time::Duration::from_secs(settings.server.shutdown_timeout_seconds),
        })
    }

    /// The bound HTTP port (`None` for a worker-only process).
    pub fn port(&self) -> Option<u16> {
        self.port
    }

    /// The in-process simulator, when this process serves it.
    pub fn simulator(&self) -> Option<Arc<Simulator>> {
        self.simulator.clone()
    }

    /// Syncs every organization's templates now.
    ///
    /// # Errors
    /// When the organizations cannot be listed.
    pub async fn sync_templates_now(&self) -> anyhow::Result<()> {
        self.sync.sync_all().await?;
        Ok(())
    }

    /// Serves until SIGINT/SIGTERM (or, without HTTP, until Ctrl-C), then lets in-flight requests and the
    /// current worker rounds finish.
    ///
    /// # Errors
    /// When the server fails.
    pub async fn run_until_stopped(self) -> anyhow::Result<()> {
        match self.server {
            Some((_, running)) => running.await??,
            None => tokio::signal::ctrl_c().await?,
        }
        if let Some(workers) = self.workers {
            workers.stop(self.shutdown_grace).await;
        }
        if let Some(metrics) = self.metrics {
            metrics.stop().await;
        }
        Ok(())
    }

    /// The port of the metrics listener, when `metrics_listen` is set.
    pub fn metrics_port(&self) -> Option<u16> {
        self.metrics.as_ref().map(crate::metrics::MetricsServer::port)
    }

    /// Stops everything now: the HTTP server gracefully, then the workers after their current round.
    pub async fn stop(self) {
        if let Some((handle, running)) = self.server {
            handle.stop(true).await;
            let _ = running.await;
        }
        if let Some(workers) = self.workers {
            workers.stop(self.shutdown_grace).await;
        }
        if let Some(metrics) = self.metrics {
            metrics.stop().await;
        }
    }

    /// A handle to stop the HTTP server from elsewhere (tests).
    pub fn handle(&self) -> Option<actix_web::dev::ServerHandle> {
        self.server.as_ref().map(|(handle, _)| handle.clone())
    }
}

/// The HTTP server once running: its handle and its task.
type RunningServer = (
    actix_web::dev::ServerHandle,
    tokio::task::JoinHandle<std::io::Result<()>>,
);

/// How many network callbacks are processed at once after their answer, and how many are applied as they
/// arrive. Processing holds a store connection each, so half the pool at most: the API's own requests keep
/// the rest. Group-committed (the default), a callback waiting to be applied on arrival holds no connection,
/// only its body and its request, so a burst is applied inline well past the pool. Past that bound the excess
/// is stored alone and applied after its answer, two transactions each instead of a share of one, and that
/// dearer path takes capacity from the inline one, so an overflow feeds itself: in P3 on 2 cores (about 1,500
/// callbacks/s offered), a bound of 256 sent 70 % of the callbacks that way, 1,024 65 %, 2,048 51 %, 4,096 13
/// %, which drained them 1.3× faster than 1,024 with 0.7× the database's CPU per message
/// (docs/benchmarks-history.md, "Callbacks group-committed, with a bound of their own"). At that machine's
/// drain rate the last of 4,096 waits about 3 s for its `200`; the network's timeout is reported as 3 to 20 s
/// (docs/cloud-api.md), and a callback it retries is applied once (the status machine records a repeat only).
/// Without group commit an inline callback holds a connection too, so the two bounds share half the pool.
fn callback_bounds(store: &StoreSection) -> (usize, usize) {
    const QUEUED_AT_MOST: usize = 4096;
    let half_pool = (store.max_connections as usize / 2).max(1);
    if store.accept_group_commit {
        (half_pool, QUEUED_AT_MOST)
    } else {
        let quarter = (half_pool / 2).max(1);
        (quarter, quarter)
    }
}

/// Binds `[server] listen` for a role that serves HTTP, and refuses a simulator reachable beyond this machine.
fn bind(settings: &Settings, serves_http: bool) -> anyhow::Result<Option<TcpListener>> {
    if !serves_http {
        return Ok(None);
    }
    let listener = TcpListener::bind(&settings.server.listen)
        .with_context(|| format!("binding {}", settings.server.listen))?;
    simulator_exposure(settings, listener.local_addr()?)?;
    Ok(Some(listener))
}

/// Serves the API, the network's callbacks, the dashboard and the in-process simulator (if any) on
/// `listener`.
fn serve_http(
    listener: TcpListener,
    settings: &Settings,
    services: &Services,
    parts: &NetworkParts,
    sealer: &Arc<dyn SecretSealer>,
    app_secret: SecretString,
) -> anyhow::Result<RunningServer> {
    let context = actix_web::web::Data::new(services.api_context(
        settings,
        parts.network.clone(),
        parts.review.clone(),
        sealer.clone(),
    ));
    let (processing, inline) = callback_bounds(&settings.store);
    let webhook = actix_web::web::Data::new(
        NetworkWebhook::new(
            Arc::new(services.process_callbacks()),
            Arc::new(AppSecretAuthenticator {
                app_secret,
                verify_token: settings.network.verify_token.clone(),
            }),
            processing,
        )
        .applying_inline(inline),
    );
    let dashboard = actix_web::web::Data::new(services.dashboard_context(
        settings,
        sealer.clone(),
        parts.network.clone(),
    )?);
    let mounted = parts.simulator.clone();
    let mut server = actix_web::HttpServer::new(move || {
        let webhook = webhook.clone();
        let mounted = mounted.clone();
        let dashboard = dashboard.clone();
        herald_http::app(context.clone())
            .configure(move |config| herald_http::network::configure(config, webhook))
            .configure(move |config| herald_dashboard::configure(config, dashboard))
            .configure(move |config| {
                if let Some(simulator) = mounted {
                    herald_simulator::configure(config, simulator);
                }
            })
    })
    .shutdown_timeout(settings.server.shutdown_timeout_seconds)
    .keep_alive(std::time::Duration::from_secs(
        settings.server.http_keep_alive_seconds,
    ))
    .listen(listener)?;
    if settings.server.http_workers > 0 {
        server = server.workers(settings.server.http_workers);
    }
    // Spawned now, not when awaited: an actix server accepts nothing until its future runs, and the
    // workers (template sync, the in-process simulator's callbacks) need it from the start.
    let server = server.run();
    Ok((server.handle(), tokio::spawn(server)))
}

/// The background workers, started now.
fn start_workers(
    settings: &Settings,
    services: &Services,
    network: &Arc<dyn MessagingNetwork>,
    sealer: Arc<dyn SecretSealer>,
    sync: &Arc<SyncTemplates>,
) -> anyhow::Result<Workers> {
    let mut workers = Workers::start(
        Arc::new(services.dispatch(settings, network.clone())),
        Arc::new(services.process_callbacks()),
        sync.clone(),
        Arc::new(services.deliver_webhooks(settings, sealer)?),
        services.store.work_notifier(),
        services.store.webhook_notifier(),
        &WorkerSettings {
            dispatch_loops: settings.dispatch.loops,
            poll_interval: std::time::Duration::from_millis(settings.dispatch.poll_ms),
            backlog_interval: std::time::Duration::from_secs(5),
            template_sync_interval: std::time::Duration::from_secs(
                settings.network.template_sync_interval_seconds.max(1),
            ),
            webhook_loops: settings.webhooks.loops,
            webhook_poll_interval: WEBHOOK_POLL,
            webhook_in_flight_per_loop: WEBHOOK_IN_FLIGHT_PER_LOOP,
            // Without a metrics listener nobody reads the gauges: spare the store the reads.
            gauge_interval: settings
                .telemetry
                .metrics_listen
                .is_some()
                .then_some(GAUGE_INTERVAL),
            organization_labels: settings.telemetry.metrics_organization_labels,
        },
    );
    workers.spawn_broadcast_pacer(Arc::new(services.broadcasts(settings)), BROADCAST_PACE);
    workers.spawn_media_cleanup(
        Arc::new(services.media(network.clone())),
        services.files.clone(),
        std::time::Duration::from_secs(settings.media.cleanup_interval_seconds.max(1)),
    );
    if settings.retention.interval_seconds > 0 {
        workers.spawn_retention(
            services.store.retention(),
            services.clock.clone(),
            crate::retention::RetentionSettings::new(&settings.retention),
        );
    }
    Ok(workers)
}

/// How often the broadcast pacer runs: each round keeps up to two seconds of a sender's throughput queued,
/// so one round a second keeps dispatch fed without a gap.
const BROADCAST_PACE: std::time::Duration = std::time::Duration::from_secs(1);

/// The longest a webhook loop waits before claiming again when nothing wakes it (retries become due by time
/// alone).
const WEBHOOK_POLL: std::time::Duration = std::time::Duration::from_millis(200);

/// Attempts one webhook loop keeps in flight at most: with `webhook_per_endpoint_inflight` per endpoint (4
/// by default), a loop waits on up to 400 slow endpoints at once while the others' deliveries go on.
const WEBHOOK_IN_FLIGHT_PER_LOOP: usize = 1_600;

/// How often a worker samples the outbox backlog and the pending webhook deliveries for their gauges: often
/// enough for an alert on a backlog that lasts minutes, rarely enough that the two grouped reads cost nothing.
const GAUGE_INTERVAL: std::time::Duration = std::time::Duration::from_secs(10);

#[cfg(test)]
mod tests {
    use super::callback_bounds;
    use crate::config::StoreSection;

    /// Callbacks that hold a store connection never take more than half the pool together, so the API's own
    /// requests keep the rest; only group-committed callbacks, which hold none while they wait, go past it.
    #[test]
    fn callbacks_holding_connections_share_half_the_pool() {
        let settings = |group_commit| StoreSection {
            max_connections: 16,
            accept_group_commit: group_commit,
            ..StoreSection::default()
        };
        assert_eq!(callback_bounds(&settings(true)), (8, 4096));
        let (processing, inline) = callback_bounds(&settings(false));
        assert!(processing + inline <= 8, "{processing} + {inline}");
        assert!(processing >= 1 && inline >= 1);
    }
}
