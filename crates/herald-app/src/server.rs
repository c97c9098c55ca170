use crate::adapters::{
    EncryptionKey, KEY_FILE_NAME, MonotonicUlids, OsSecrets, SystemClock, XChaChaSealer,
    load_or_create_key_file,
};
use crate::cli::Role;
use crate::config::{NetworkMode, RateLimiterKind, Settings};
use crate::network::{AppSecretAuthenticator, CloudApiDecoder, SenderPacer};
use crate::webhooks::{WebhookDestinations, WebhookSender};
use crate::workers::{WorkerSettings, Workers};
use anyhow::Context;
use herald_cloudapi::{CloudApiClient, CloudApiConfig};
use herald_domain::ports::MessagingNetwork;
use herald_domain::ports::{Clock, IdGenerator, RateLimiter, SecretSealer, SecretSource};
use herald_domain::time::{Duration, bounded_milliseconds, bounded_seconds};
use herald_domain::usecases::{
    Admin, Authenticate, DeliverWebhooks, DeliverySettings, DispatchMessages, DispatchPorts,
    DispatchSettings, GetMessage, ListMessages, ListTemplates, ManageWebhooks, Media, MediaPorts,
    MessageEvents, OwnerAccess, ProcessCallbacks, SendMessage, SendPorts, SendSettings, SessionSettings,
    SyncTemplates, WindowStatus,
};
use herald_http::network::NetworkWebhook;
use herald_http::{ApiContext, Readiness};
use herald_media::FsMediaStore;
use herald_simulator::{Simulator, SimulatorConfig};
use herald_store::{Store, StoreOptions};
use secrecy::{ExposeSecret, SecretString};
use std::net::TcpListener;
use std::sync::Arc;

/// The adapters every part of Herald is built from.
#[derive(Clone)]
pub struct Services {
    pub store: Store,
    pub clock: Arc<dyn Clock>,
    pub ids: Arc<dyn IdGenerator>,
    pub secrets: Arc<dyn SecretSource>,
    pub limiter: Arc<dyn RateLimiter>,
    /// Seals and opens the senders' stored access tokens; `None` with PostgreSQL and no configured key,
    /// where storing a token and serving are refused.
    pub sealer: Option<Arc<dyn SecretSealer>>,
    /// The bytes of uploaded files.
    pub files: Arc<FsMediaStore>,
    /// Keeps a process-private media directory (in-memory SQLite, tests) alive as long as the services.
    pub media_scratch: Option<Arc<tempfile::TempDir>>,
}

impl Services {
    /// Connects the configured store (without migrating it) and finds the encryption key (see
    /// [`encryption_key`]).
    ///
    /// # Errors
    /// When the store cannot be reached, or the key file cannot be read or created.
    pub async fn connect(settings: &Settings) -> anyhow::Result<Self> {
        let options = StoreOptions {
            max_connections: settings.max_connections,
            group_commit: settings.accept_group_commit,
            read_cache: (settings.read_cache_ms > 0)
                .then(|| std::time::Duration::from_millis(settings.read_cache_ms)),
            ..StoreOptions::default()
        };
        let store = Store::connect(&settings.database_url, &options)
            .await
            .with_context(|| {
                format!(
                    "connecting to the store at {}",
                    redact_url(&settings.database_url)
                )
            })?;
        let sealer =
            encryption_key(settings)?.map(|key| Arc::new(XChaChaSealer::new(&key)) as Arc<dyn SecretSealer>);
        let limiter: Arc<dyn RateLimiter> = match settings.rate_limiter {
            RateLimiterKind::Memory => Arc::new(herald_ratelimit::InProcessRateLimiter::new()),
            RateLimiterKind::Redis => Arc::new(
                herald_ratelimit::RedisRateLimiter::connect(&settings.redis_url)
                    .await
                    .context("connecting to Redis for the shared rate limiter")?,
            ),
        };
        let (files, scratch) = open_media_store(settings).await?;
        Ok(Self {
            sealer,
            limiter,
            files,
            media_scratch: scratch,
            ..Self::with_store(store)
        })
    }

    /// For `serve --role all` on PostgreSQL with no `encryption_key`: the one process of a first start (the
    /// newcomer's `HERALD_DATABASE_URL=… herald serve`) makes `data/encryption.key`, as SQLite does next to
    /// its database, and warns that several processes need the key set. Split roles (`api`, `worker`) mean
    /// several processes, so they are still refused without a key they can share.
    ///
    /// # Errors
    /// When the key file cannot be created.
    pub fn key_file_for_one_process(&mut self, settings: &Settings) -> anyhow::Result<()> {
        if self.sealer.is_some() || settings.database_url.starts_with("sqlite:") {
            return Ok(());
        }
        let dir = std::path::Path::new(LOCAL_DATA_DIR);
        let (key, _) = load_or_create_key_file(dir)?;
        tracing::warn!(
            path = %dir.join(KEY_FILE_NAME).display(),
            "HERALD_ENCRYPTION_KEY is unset: generated a key file for this single process; a deployment of \
             several Herald processes on this database must set HERALD_ENCRYPTION_KEY to the same key (this \
             file's content) in every one of them, and back it up"
        );
        self.sealer = Some(Arc::new(XChaChaSealer::new(&key)));
        Ok(())
    }

    /// Wraps an already connected store with the production clock, ids and randomness, and a sealer whose
    /// key is made now and lives only in this process (tokens it seals cannot be opened by another process).
    ///
    /// Its uploaded files go to a directory of its own, removed when the last clone is dropped; when that
    /// directory cannot be made the services still work, and every upload answers `503`.
    pub fn with_store(store: Store) -> Self {
        let sealer = EncryptionKey::generate()
            .ok()
            .map(|key| Arc::new(XChaChaSealer::new(&key)) as Arc<dyn SecretSealer>);
        let scratch = tempfile::Builder::new().prefix("herald-media-").tempdir().ok();
        let root = scratch.as_ref().map_or_else(
            || std::env::temp_dir().join("herald-media"),
            |dir| dir.path().to_path_buf(),
        );
        Self {
            files: Arc::new(FsMediaStore::at(root)),
            media_scratch: scratch.map(Arc::new),
            store,
            clock: Arc::new(SystemClock),
            ids: Arc::new(MonotonicUlids::default()),
            secrets: Arc::new(OsSecrets),
            limiter: Arc::new(herald_ratelimit::InProcessRateLimiter::new()),
            sealer,
        }
    }

    pub fn admin(&self) -> Admin {
        Admin::new(
            self.store.accounts(),
            self.clock.clone(),
            self.ids.clone(),
            self.secrets.clone(),
            self.sealer.clone(),
        )
    }

    /// Uploads, reading media back, and the expiry of old uploads.
    pub fn media(&self, network: Arc<dyn MessagingNetwork>) -> Media {
        Media::new(MediaPorts {
            catalog: self.store.media(),
            files: self.files.clone(),
            accounts: self.store.accounts(),
            network,
            clock: self.clock.clone(),
            ids: self.ids.clone(),
        })
    }

    fn sync_templates(&self, network: Arc<dyn MessagingNetwork>) -> SyncTemplates {
        SyncTemplates::new(
            self.store.accounts(),
            self.store.templates(),
            network,
            self.clock.clone(),
            self.ids.clone(),
        )
    }

    /// The network's callbacks: processing, the backlog sweep, and the parked ones.
    pub fn process_callbacks(&self) -> ProcessCallbacks {
        ProcessCallbacks::new(
            self.store.accounts(),
            self.store.tracking(),
            Arc::new(CloudApiDecoder),
            self.clock.clone(),
            self.ids.clone(),
        )
        .with_trace_links(crate::telemetry::trace_links())
    }

    /// Endpoint management, checking URLs with the configured destination rules.
    pub fn manage_webhooks(&self, settings: &Settings, sealer: Arc<dyn SecretSealer>) -> ManageWebhooks {
        ManageWebhooks::new(
            self.store.webhooks(),
            Arc::new(WebhookDestinations::new(webhook_policy(settings))),
            sealer,
            self.secrets.clone(),
            self.clock.clone(),
            self.ids.clone(),
        )
        .with_max_pending_tests(settings.webhook_pending_tests)
    }

    /// The webhook dispatcher over the real HTTP client.
    ///
    /// # Errors
    /// When the HTTP client cannot be built.
    pub fn deliver_webhooks(
        &self,
        settings: &Settings,
        sealer: Arc<dyn SecretSealer>,
    ) -> anyhow::Result<DeliverWebhooks> {
        let timeout = std::time::Duration::from_secs(settings.webhook_timeout_seconds);
        let transport = WebhookSender::new(webhook_policy(settings), timeout, settings.webhook_retry_scale)?;
        let timeout_seconds = i64::try_from(settings.webhook_timeout_seconds).unwrap_or(15);
        Ok(DeliverWebhooks::new(
            self.store.webhooks(),
            Arc::new(transport),
            sealer,
            self.clock.clone(),
            self.ids.clone(),
            DeliverySettings {
                per_endpoint_cap: settings.webhook_per_endpoint_inflight,
                // Past the attempt timeout with margin, so a live attempt's claim never lapses under it.
                lease: bounded_seconds(timeout_seconds.saturating_mul(2).saturating_add(5)),
                disable_after: scaled(
                    DeliverySettings::default().disable_after,
                    settings.webhook_retry_scale,
                ),
                ..DeliverySettings::default()
            },
        )
        .with_trace_links(crate::telemetry::trace_links()))
    }

    fn api_context(
        &self,
        settings: &Settings,
        network: Arc<dyn MessagingNetwork>,
        sealer: Arc<dyn SecretSealer>,
    ) -> ApiContext {
        let store = &self.store;
        ApiContext {
            webhooks: self.manage_webhooks(settings, sealer),
            authenticate: Authenticate::new(store.accounts(), self.clock.clone()),
            send: SendMessage::new(
                SendPorts {
                    accounts: store.accounts(),
                    messages: store.messages(),
                    templates: store.templates(),
                    windows: store.windows(),
                    limiter: self.limiter.clone(),
                    catalog: store.media(),
                    files: self.files.clone(),
                    clock: self.clock.clone(),
                    ids: self.ids.clone(),
                },
                SendSettings {
                    dispatch_deadline: bounded_seconds(
                        settings.dispatch_deadline_hours.saturating_mul(3_600),
                    ),
                    ..SendSettings::default()
                },
            )
            .with_trace_links(crate::telemetry::trace_links()),
            get_message: GetMessage::new(store.messages()),
            list_messages: ListMessages::new(store.messages()),
            message_events: MessageEvents::new(store.messages()),
            window_status: WindowStatus::new(store.accounts(), store.windows(), self.clock.clone()),
            templates: ListTemplates::new(store.templates(), store.accounts()),
            sync_templates: Arc::new(self.sync_templates(network.clone())),
            media: self.media(network),
            files: self.files.clone(),
            send_limiter: self.limiter.clone(),
            read_limiter: Arc::new(KeyLimits(herald_ratelimit::KeyLimiter::new(
                settings.read_rate_per_second,
                settings.read_burst,
            ))),
            write_limiter: Arc::new(KeyLimits(herald_ratelimit::KeyLimiter::new(
                settings.write_rate_per_second,
                settings.write_burst,
            ))),
            readiness: Arc::new(StoreReadiness(store.clone())),
            // Validated when the settings are loaded, and `dashboard_context` refuses an invalid list in the
            // same `build`, so this fallback (trust nobody) is never served.
            trusted_proxies: settings.trusted_proxies().unwrap_or_default(),
            auth_failures: Arc::new(AuthFailures(herald_ratelimit::AuthFailureLimiter::per_minute(
                settings.api_auth_failures_per_minute,
            ))),
            metrics_organization_labels: settings.metrics_organization_labels,
        }
    }

    // ---- The owner's dashboard (issue 7) ----

    /// Owner accounts and dashboard sessions, with Argon2id passwords and the settings' session lifetimes.
    pub fn owner_access(&self, settings: &Settings) -> OwnerAccess {
        OwnerAccess::new(
            self.store.accounts(),
            self.store.owners(),
            Arc::new(herald_dashboard::Argon2Passwords::default()),
            self.clock.clone(),
            self.secrets.clone(),
            SessionSettings {
                idle: bounded_seconds(settings.dashboard_session_idle_minutes.saturating_mul(60)),
                absolute: bounded_seconds(settings.dashboard_session_absolute_hours.saturating_mul(3_600)),
            },
        )
    }

    /// Everything the dashboard's pages use.
    ///
    /// # Errors
    /// When the configured cookie key is invalid.
    fn dashboard_context(
        &self,
        settings: &Settings,
        sealer: Arc<dyn SecretSealer>,
    ) -> anyhow::Result<herald_dashboard::DashboardContext> {
        let cookie_key = match &settings.dashboard_cookie_key {
            Some(key) => dashboard_cookie_key(key.expose_secret())?,
            None => {
                // A key for this process only: sessions end when it restarts.
                let mut bytes = [0_u8; 64];
                self.secrets.fill(&mut bytes);
                actix_web::cookie::Key::try_from(&bytes[..])
                    .map_err(|e| anyhow::anyhow!("making a cookie key: {e}"))?
            }
        };
        let store = &self.store;
        Ok(herald_dashboard::DashboardContext {
            access: self.owner_access(settings),
            admin: self.admin(),
            list_messages: ListMessages::new(store.messages()),
            get_message: GetMessage::new(store.messages()),
            message_events: MessageEvents::new(store.messages()),
            webhooks: self.manage_webhooks(settings, sealer),
            messages: store.messages(),
            clock: self.clock.clone(),
            cookie_key,
            login_limits: herald_dashboard::LoginLimits::new(
                settings.dashboard_login_attempts_per_account,
                settings.dashboard_login_attempts_per_address,
            ),
            trusted_proxies: settings.trusted_proxies()?,
        })
    }

    fn dispatch(&self, settings: &Settings, network: Arc<dyn MessagingNetwork>) -> DispatchMessages {
        DispatchMessages::new(
            DispatchPorts {
                outbox: self.store.outbox(),
                network,
                catalog: self.store.media(),
                files: self.files.clone(),
                pacer: Arc::new(SenderPacer::default()),
                clock: self.clock.clone(),
                ids: self.ids.clone(),
                random: self.secrets.clone(),
            },
            dispatch_settings(settings),
        )
        .with_trace_links(crate::telemetry::trace_links())
    }
}

/// Dispatch's tunables from the settings. Each duration is held to the domain's longest delay, so no setting
/// (validated or not) can make `Duration::seconds` or a time computed from it overflow and panic a worker.
fn dispatch_settings(settings: &Settings) -> DispatchSettings {
    DispatchSettings {
        batch_size: settings.dispatch_batch_size,
        callback_window: bounded_seconds(settings.callback_wait_seconds),
        lease: bounded_seconds(settings.dispatch_lease_seconds),
        base_backoff: bounded_milliseconds(settings.dispatch_base_backoff_ms),
        hold: bounded_seconds(settings.dispatch_hold_seconds.max(1)),
        ..DispatchSettings::default()
    }
}

/// The media directory of the settings (see [`Settings::media_dir`]), created if missing; for in-memory
/// SQLite a temporary one, returned too so the caller keeps it alive.
async fn open_media_store(
    settings: &Settings,
) -> anyhow::Result<(Arc<FsMediaStore>, Option<Arc<tempfile::TempDir>>)> {
    let (root, scratch) = match (
        &settings.media_dir,
        herald_store::sqlite_data_dir(&settings.database_url),
    ) {
        (Some(dir), _) => (std::path::PathBuf::from(dir), None),
        (None, Some(data_dir)) => (data_dir.join("media"), None),
        (None, None) if settings.database_url.starts_with("sqlite:") => {
            let scratch = tempfile::Builder::new()
                .prefix("herald-media-")
                .tempdir()
                .context("creating a media directory for in-memory SQLite")?;
            (scratch.path().to_path_buf(), Some(Arc::new(scratch)))
        }
        (None, None) => (std::path::Path::new(LOCAL_DATA_DIR).join("media"), None),
    };
    let files = FsMediaStore::open(&root)
        .await
        .with_context(|| format!("opening the media directory {}", root.display()))?;
    Ok((Arc::new(files), scratch))
}

/// `duration × scale` (`webhook_retry_scale`), whole milliseconds.
fn scaled(duration: Duration, scale: f64) -> Duration {
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_precision_loss,
        reason = "days in ms fit an f64 exactly enough"
    )]
    let millis = (duration.num_milliseconds() as f64 * scale.clamp(0.0, 1.0)) as i64;
    Duration::milliseconds(millis)
}

/// The destination rules of the settings.
fn webhook_policy(settings: &Settings) -> herald_webhooks::DestinationPolicy {
    herald_webhooks::DestinationPolicy {
        allow_insecure: settings.allow_insecure_webhooks,
        allow_private: settings.allow_private_webhook_targets,
    }
}

/// A per-key limit of `herald-ratelimit` behind the HTTP adapter's port.
struct KeyLimits(herald_ratelimit::KeyLimiter);

impl herald_http::KeyLimit for KeyLimits {
    fn check(&self, key: &str) -> herald_domain::ports::RateDecision {
        self.0.check(key)
    }
}

/// The per-address limit on failed authentications of `herald-ratelimit` behind the HTTP adapter's port.
struct AuthFailures(herald_ratelimit::AuthFailureLimiter);

impl herald_http::AuthFailureLimit for AuthFailures {
    fn check(
        &self,
        address: &herald_domain::client_address::AddressBucket,
    ) -> herald_domain::ports::RateDecision {
        self.0.check(address)
    }

    fn record_failure(
        &self,
        address: &herald_domain::client_address::AddressBucket,
    ) -> herald_domain::ports::RateDecision {
        self.0.record_failure(address)
    }
}

/// `/readyz`: the store answers and no migration is pending.
struct StoreReadiness(Store);

#[async_trait::async_trait]
impl Readiness for StoreReadiness {
    async fn check(&self) -> Result<(), String> {
        self.0
            .ping()
            .await
            .map_err(|e| format!("store unreachable: {e}"))?;
        match self.0.pending_migrations().await {
            Ok(0) => Ok(()),
            Ok(n) => Err(format!("{n} migrations pending")),
            Err(e) => Err(format!("cannot read migrations: {e}")),
        }
    }
}

/// A bound, ready-to-run Herald: the HTTP server (roles `all`, `api`) and the background workers (roles
/// `all`, `worker`).
pub struct Application {
    port: Option<u16>,
    server: Option<(
        actix_web::dev::ServerHandle,
        tokio::task::JoinHandle<std::io::Result<()>>,
    )>,
    workers: Option<Workers>,
    sync: Arc<SyncTemplates>,
    simulator: Option<Arc<Simulator>>,
    metrics: Option<crate::metrics::MetricsServer>,
    shutdown_grace: std::time::Duration,
}

impl Application {
    /// Binds `settings.listen` (port 0 picks a free one) and builds everything `role` runs on `services`.
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
        webhook_policy(settings).warn_if_relaxed();
        let serves_http = role != Role::Worker;
        let listener = if serves_http {
            Some(
                TcpListener::bind(&settings.listen)
                    .with_context(|| format!("binding {}", settings.listen))?,
            )
        } else {
            None
        };
        let bound = listener.as_ref().map(TcpListener::local_addr).transpose()?;
        if let Some(address) = bound {
            simulator_exposure(settings, address)?;
        }
        let port = bound.map(|a| a.port());
        let own_base = port.map(|p| format!("http://{}", crate::display_addr(&settings.listen, p)));

        let app_secret = match (&settings.app_secret, settings.network) {
            (Some(secret), _) => secret.clone(),
            // The in-process simulator and the verifier share the process, so a fresh secret is enough.
            (None, NetworkMode::Simulator) => SecretString::from(random_secret(services.secrets.as_ref())),
            (None, NetworkMode::Cloud) if serves_http => {
                anyhow::bail!(
                    "HERALD_APP_SECRET is required with HERALD_NETWORK=cloud: it verifies the network's callbacks"
                )
            }
            (None, NetworkMode::Cloud) => SecretString::from(String::new()),
        };
        let simulator_token = settings
            .simulator_token
            .clone()
            .unwrap_or_else(|| SecretString::from(herald_simulator::DEFAULT_ACCESS_TOKEN.to_owned()));

        let (simulator, network_base, default_token) = match settings.network {
            NetworkMode::Simulator => {
                let simulator = own_base.as_ref().map(|base| {
                    Simulator::new(SimulatorConfig {
                        access_token: simulator_token.expose_secret().to_owned(),
                        app_secret: app_secret.expose_secret().to_owned(),
                        callback_url: Some(format!("{base}/webhooks/whatsapp")),
                        throughput_per_sender: settings.simulator_throughput_per_sender,
                        callback_delay_ms: (
                            settings.simulator_callback_delay_min_ms,
                            settings.simulator_callback_delay_max_ms,
                        ),
                        duplicate_callbacks: settings.simulator_duplicate_callbacks,
                        extra_senders: settings.simulator_extra_senders,
                        ..SimulatorConfig::default()
                    })
                });
                let base = match (&settings.simulator_url, &own_base) {
                    (Some(url), _) => url.clone(),
                    (None, Some(base)) => format!("{base}/simulator"),
                    (None, None) => anyhow::bail!(
                        "a worker-only process with the simulator network needs HERALD_SIMULATOR_URL (an API process's /simulator)"
                    ),
                };
                (simulator, base, Some(simulator_token))
            }
            NetworkMode::Cloud => (
                None,
                settings.cloud_api_base_url.clone(),
                settings.cloud_access_token.clone(),
            ),
        };
        let mut network_config = CloudApiConfig::new(network_base, settings.graph_api_version.clone());
        network_config.default_access_token = default_token;
        network_config.media_timeout = settings.media_transfer_timeout();
        let network: Arc<dyn MessagingNetwork> =
            Arc::new(CloudApiClient::new(network_config)?.with_sealer(services.sealer.clone()));
        let sync = Arc::new(services.sync_templates(network.clone()));

        let server = match listener {
            None => None,
            Some(listener) => {
                let context = actix_web::web::Data::new(services.api_context(
                    settings,
                    network.clone(),
                    sealer.clone(),
                ));
                let webhook = actix_web::web::Data::new(NetworkWebhook::new(
                    Arc::new(services.process_callbacks()),
                    Arc::new(AppSecretAuthenticator {
                        app_secret: app_secret.clone(),
                        verify_token: settings.verify_token.clone(),
                    }),
                    // Half the pool at most: the API's own requests keep the rest.
                    (settings.max_connections as usize / 2).max(1),
                ));
                let dashboard =
                    actix_web::web::Data::new(services.dashboard_context(settings, sealer.clone())?);
                let mounted = simulator.clone();
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
                .shutdown_timeout(settings.shutdown_timeout_seconds)
                .keep_alive(std::time::Duration::from_secs(settings.http_keep_alive_seconds))
                .listen(listener)?;
                if settings.http_workers > 0 {
                    server = server.workers(settings.http_workers);
                }
                // Spawned now, not when awaited: an actix server accepts nothing until its future runs, and the
                // workers (template sync, the in-process simulator's callbacks) need it from the start.
                let server = server.run();
                Some((server.handle(), tokio::spawn(server)))
            }
        };

        let mut workers = match role {
            Role::Api => None,
            _ => Some(Workers::start(
                Arc::new(services.dispatch(settings, network.clone())),
                Arc::new(services.process_callbacks()),
                sync.clone(),
                Arc::new(services.deliver_webhooks(settings, sealer)?),
                services.store.work_notifier(),
                services.store.webhook_notifier(),
                &WorkerSettings {
                    dispatch_loops: settings.dispatch_loops,
                    poll_interval: std::time::Duration::from_millis(settings.dispatch_poll_ms),
                    backlog_interval: std::time::Duration::from_secs(5),
                    template_sync_interval: std::time::Duration::from_secs(
                        settings.template_sync_interval_seconds.max(1),
                    ),
                    webhook_loops: settings.webhook_loops,
                    webhook_poll_interval: WEBHOOK_POLL,
                    webhook_rounds_per_loop: WEBHOOK_ROUNDS_PER_LOOP,
                    // Without a metrics listener nobody reads the gauges: spare the store the reads.
                    gauge_interval: settings.metrics_listen.is_some().then_some(GAUGE_INTERVAL),
                    organization_labels: settings.metrics_organization_labels,
                },
            )),
        };
        if let Some(workers) = workers.as_mut() {
            workers.spawn_media_cleanup(
                Arc::new(services.media(network.clone())),
                services.files.clone(),
                std::time::Duration::from_secs(settings.media_cleanup_interval_seconds.max(1)),
            );
        }
        let metrics = settings
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
            shutdown_grace: std::time::Duration::from_secs(settings.shutdown_timeout_seconds),
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

/// The in-process simulator's control API has no authentication: it may only be reachable from this
/// machine, unless the operator says otherwise (`simulator_public`), and then the log says so.
fn simulator_exposure(settings: &Settings, address: std::net::SocketAddr) -> anyhow::Result<()> {
    if settings.network != NetworkMode::Simulator || address.ip().is_loopback() {
        return Ok(());
    }
    anyhow::ensure!(
        settings.simulator_public,
        "refusing to serve the network simulator on {address}: its control API (/simulator/control/*) has \
         no authentication and lists every organization's sends. Listen on a loopback address \
         (HERALD_LISTEN=127.0.0.1:8080), use the real network (HERALD_NETWORK=cloud), or set \
         HERALD_SIMULATOR_PUBLIC=true to serve it on {address} anyway"
    );
    tracing::warn!(
        %address,
        "the network simulator and its unauthenticated control API are served beyond this machine \
         (HERALD_SIMULATOR_PUBLIC=true)"
    );
    Ok(())
}

/// The longest a webhook loop sleeps when the store's webhook notifier does not wake it (retries become
/// due by time alone), and how long it waits for a round before starting another beside it.
const WEBHOOK_POLL: std::time::Duration = std::time::Duration::from_millis(200);

/// Rounds one webhook loop keeps in flight; each held-up round is at most `webhook_per_endpoint_inflight`
/// attempts to one slow endpoint, so this bounds how many slow endpoints are waited on at once per loop.
const WEBHOOK_ROUNDS_PER_LOOP: usize = 16;

/// How often a worker samples the outbox backlog and the pending webhook deliveries for their gauges: often
/// enough for an alert on a backlog that lasts minutes, rarely enough that the two grouped reads cost nothing.
const GAUGE_INTERVAL: std::time::Duration = std::time::Duration::from_secs(10);

/// Where a PostgreSQL deployment keeps its local files when no setting names a place: uploaded files
/// (`media_dir` unset) and the key file of a single process (`encryption_key` unset). Relative to the working
/// directory, as `./data` is for SQLite.
const LOCAL_DATA_DIR: &str = "data";

/// The message for a process that must seal or open tokens but has no key.
pub(crate) const NO_KEY_WITH_POSTGRES: &str = "HERALD_ENCRYPTION_KEY is required with PostgreSQL: it \
     encrypts the senders' access tokens at rest. Set it to base64 of 32 random bytes (e.g. `openssl rand \
     -base64 32`), the same in every Herald process of this database, and keep it safe: tokens stored with \
     a lost key must be added again";

/// The key that seals the senders' tokens: `encryption_key` when set; otherwise, for a SQLite file, the
/// key in `encryption.key` next to the database (generated on first use); for in-memory SQLite, a key
/// for this process only (its data dies with it too); for PostgreSQL, the key in `data/encryption.key`
/// when that file exists, else none.
///
/// # Errors
/// When the configured key is invalid, or the key file cannot be read or created.
pub fn encryption_key(settings: &Settings) -> anyhow::Result<Option<EncryptionKey>> {
    if let Some(configured) = &settings.encryption_key {
        return EncryptionKey::from_base64(configured.expose_secret())
            .context("HERALD_ENCRYPTION_KEY (encryption_key)")
            .map(Some);
    }
    if !settings.database_url.starts_with("sqlite:") {
        // A key file made by an earlier `serve` in this folder (see [`Services::key_file_for_one_process`]).
        let path = std::path::Path::new(LOCAL_DATA_DIR).join(KEY_FILE_NAME);
        if !path.exists() {
            return Ok(None);
        }
        let (key, _) = load_or_create_key_file(std::path::Path::new(LOCAL_DATA_DIR))?;
        tracing::info!(path = %path.display(), "using the encryption key file");
        return Ok(Some(key));
    }
    match herald_store::sqlite_data_dir(&settings.database_url) {
        Some(dir) => {
            let (key, created) = load_or_create_key_file(&dir)?;
            let path = dir.join(KEY_FILE_NAME);
            if created {
                tracing::info!(
                    path = %path.display(),
                    "generated an encryption key for stored access tokens; back it up with the database"
                );
            } else {
                tracing::info!(path = %path.display(), "using the encryption key file");
            }
            Ok(Some(key))
        }
        None => EncryptionKey::generate().map(Some),
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

fn random_secret(secrets: &dyn SecretSource) -> String {
    let mut bytes = [0_u8; 32];
    secrets.fill(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A URL as it may be logged: the password of its user-info, and the value of every query parameter whose
/// name speaks of a secret (`password`, `sslpassword`, `token`, `secret`, `key`…), replaced by `[redacted]`.
/// Text that is no URL (`sqlite::memory:`) holds no credentials and is returned as it is.
pub(crate) fn redact_url(url: &str) -> String {
    const REDACTED: &str = "[redacted]";
    let Ok(mut parsed) = url::Url::parse(url) else {
        return url.to_owned();
    };
    if parsed.password().is_some() {
        let _ = parsed.set_password(Some(REDACTED));
    }
    let secret = |name: &str| {
        let name = name.to_ascii_lowercase();
        [
            "password",
            "passwd",
            "pwd",
            "secret",
            "token",
            "key",
            "auth",
            "credential",
        ]
        .iter()
        .any(|word| name.contains(word))
    };
    if parsed.query_pairs().any(|(name, _)| secret(&name)) {
        let pairs: Vec<(String, String)> = parsed
            .query_pairs()
            .map(|(name, value)| {
                let value = if secret(&name) {
                    REDACTED.to_owned()
                } else {
                    value.into_owned()
                };
                (name.into_owned(), value)
            })
            .collect();
        parsed.query_pairs_mut().clear().extend_pairs(pairs);
    }
    // The URL encoder escapes the brackets; the marker reads better as written.
    parsed.to_string().replace("%5Bredacted%5D", REDACTED)
}

#[cfg(test)]
mod tests {
    use super::{XChaChaSealer, dispatch_settings, encryption_key, redact_url};
    use crate::config::Settings;
    use herald_domain::ids::SenderId;
    use herald_domain::ports::{SealContext, SecretSealer};
    use secrecy::SecretString;

    fn with_database(url: String) -> Settings {
        Settings {
            database_url: url,
            ..Settings::default()
        }
    }

    /// Durations past what a `Duration` holds (which made `Duration::seconds` panic at start-up) are held to
    /// the longest delay; negative ones to zero.
    #[test]
    fn dispatch_durations_from_the_settings_are_bounded() {
        let longest = herald_domain::time::Duration::days(herald_domain::time::LONGEST_DELAY_DAYS);
        let dispatch = dispatch_settings(&Settings {
            callback_wait_seconds: i64::MAX,
            dispatch_lease_seconds: i64::MAX,
            dispatch_base_backoff_ms: i64::MIN,
            dispatch_hold_seconds: 99_999_999_999_999_999,
            ..Settings::default()
        });
        assert_eq!(dispatch.callback_window, longest);
        assert_eq!(dispatch.lease, longest);
        assert_eq!(dispatch.base_backoff, herald_domain::time::Duration::zero());
        assert_eq!(dispatch.hold, longest);
        let defaults = dispatch_settings(&Settings::default());
        assert_eq!(defaults.lease, herald_domain::time::Duration::seconds(60));
        assert_eq!(
            defaults.callback_window,
            herald_domain::time::Duration::seconds(300)
        );
    }

    #[test]
    fn the_key_is_configured_else_kept_next_to_a_sqlite_file_else_absent() {
        let dir = tempfile::tempdir().unwrap();
        let file_db = with_database(format!("sqlite://{}/data/herald.db", dir.path().display()));
        let first = encryption_key(&file_db).unwrap().unwrap();
        assert!(dir.path().join("data/encryption.key").exists());
        let again = encryption_key(&file_db).unwrap().unwrap();
        let context = SealContext::sender(&SenderId::from_ulid(ulid::Ulid(1)));
        let sealed = XChaChaSealer::new(&first).seal(&context, "token");
        assert_eq!(
            XChaChaSealer::new(&again).open(&context, &sealed).unwrap().text,
            "token",
            "the same key on a later start"
        );

        let configured = Settings {
            encryption_key: Some(SecretString::from("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=")),
            ..with_database(format!("sqlite://{}/other/herald.db", dir.path().display()))
        };
        let key = encryption_key(&configured).unwrap().unwrap();
        assert!(
            XChaChaSealer::new(&key).open(&context, &sealed).is_err(),
            "the configured key, not the file's"
        );
        assert!(
            !dir.path().join("other").exists(),
            "no key file when a key is configured"
        );

        assert!(
            encryption_key(&with_database("postgres://u@h/db".into()))
                .unwrap()
                .is_none()
        );
        assert!(
            encryption_key(&with_database("sqlite::memory:".into()))
                .unwrap()
                .is_some()
        );

        // A data directory that cannot be created (its parent is a file) is an error, not a missing key.
        std::fs::write(dir.path().join("plain-file"), "x").unwrap();
        let blocked = with_database(format!(
            "sqlite://{}/plain-file/sub/herald.db",
            dir.path().display()
        ));
        assert!(encryption_key(&blocked).is_err());
    }

    #[test]
    fn database_passwords_are_redacted() {
        assert_eq!(redact_url("postgres://u:pw@h/db"), "postgres://u:[redacted]@h/db");
        assert_eq!(redact_url("postgres://u@h/db"), "postgres://u@h/db");
        assert_eq!(redact_url("sqlite://data/x.db"), "sqlite://data/x.db");
        assert_eq!(redact_url("sqlite::memory:"), "sqlite::memory:");
        assert_eq!(
            redact_url("postgres://h/db?user=u&password=pw&sslmode=require"),
            "postgres://h/db?user=u&password=[redacted]&sslmode=require"
        );
        assert_eq!(
            redact_url("postgresql://u:p%40ss@h:5432/db?sslpassword=x&application_name=herald"),
            "postgresql://u:[redacted]@h:5432/db?sslpassword=[redacted]&application_name=herald"
        );
        assert_eq!(
            redact_url("redis://:pw@127.0.0.1:6379/0"),
            "redis://:[redacted]@127.0.0.1:6379/0"
        );
        assert_eq!(
            redact_url("https://collector.example/v1/traces?api_key=abc"),
            "https://collector.example/v1/traces?api_key=[redacted]"
        );
    }
}
