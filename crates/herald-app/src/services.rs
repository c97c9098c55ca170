//! The adapters every part of Herald is built from, and the use cases built on them.

use crate::config::{
    DispatchSection, RateLimiterKind, Settings, StoreSection, WebhooksSection, dashboard_cookie_key,
};
use crate::keys::{LOCAL_DATA_DIR, encryption_key};
use crate::redact::redact_url;
use anyhow::Context;
use herald_cloudapi::CloudApiDecoder;
use herald_domain::ports::{
    Clock, IdGenerator, MessagingNetwork, RateLimiter, SecretSealer, SecretSource, TemplateReview,
};
use herald_domain::time::{Duration, bounded_milliseconds, bounded_seconds};
use herald_domain::usecases::{
    Admin, Authenticate, BroadcastPorts, Broadcasts, CancelMessage, ContactPorts, Contacts, DeliverWebhooks,
    DeliverySettings, DispatchMessages, DispatchPorts, DispatchSettings, ErasePerson, ErasePorts, GetMessage,
    InboundMessages, ListMessages, ListTemplates, ManageTemplates, ManageWebhooks, Media, MediaPorts,
    MessageEvents, OwnerAccess, PaceSettings, ProcessCallbacks, RateCards, RecipientChecks, SendMessage,
    SendPorts, SendSettings, Senders, SessionSettings, SyncTemplates, TemplateReviewPorts, Usage,
    WindowStatus,
};
use herald_http::{ApiContext, Readiness};
use herald_media::FsMediaStore;
use herald_ratelimit::{AuthFailureLimiter, KeyLimiter, SenderPacer};
use herald_store::{Store, StoreOptions};
use herald_system::{
    EncryptionKey, KEY_FILE_NAME, MonotonicUlids, OsSecrets, SystemClock, XChaChaSealer,
    load_or_create_key_file,
};
use herald_webhooks::{WebhookDestinations, WebhookSender};
use secrecy::ExposeSecret;
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
        let options = store_options(&settings.store);
        let store = Store::connect(&settings.store.database_url, &options)
            .await
            .with_context(|| {
                format!(
                    "connecting to the store at {}",
                    redact_url(&settings.store.database_url)
                )
            })?;
        let sealer = encryption_key(&settings.store)?
            .map(|key| Arc::new(XChaChaSealer::new(&key)) as Arc<dyn SecretSealer>);
        let limiter: Arc<dyn RateLimiter> = match settings.limits.rate_limiter {
            RateLimiterKind::Memory => Arc::new(herald_ratelimit::InProcessRateLimiter::new()),
            RateLimiterKind::Redis => Arc::new(
                herald_ratelimit::RedisRateLimiter::connect(&settings.limits.redis_url)
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
        if self.sealer.is_some() || settings.store.database_url.starts_with("sqlite:") {
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

    pub(crate) fn sync_templates(&self, network: Arc<dyn MessagingNetwork>) -> SyncTemplates {
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
        .with_contacts(self.store.contacts())
    }

    /// Endpoint management, checking URLs with the configured destination rules.
    pub fn manage_webhooks(&self, settings: &Settings, sealer: Arc<dyn SecretSealer>) -> ManageWebhooks {
        ManageWebhooks::new(
            self.store.webhooks(),
            Arc::new(WebhookDestinations::new(webhook_policy(&settings.webhooks))),
            sealer,
            self.secrets.clone(),
            self.clock.clone(),
            self.ids.clone(),
        )
        .with_max_pending_tests(settings.webhooks.pending_tests)
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
        let timeout = std::time::Duration::from_secs(settings.webhooks.timeout_seconds);
        let transport = WebhookSender::new(
            webhook_policy(&settings.webhooks),
            timeout,
            settings.webhooks.retry_scale,
        )?;
        let timeout_seconds = i64::try_from(settings.webhooks.timeout_seconds).unwrap_or(15);
        Ok(DeliverWebhooks::new(
            self.store.webhooks(),
            Arc::new(transport),
            sealer,
            self.clock.clone(),
            self.ids.clone(),
            DeliverySettings {
                per_endpoint_cap: settings.webhooks.per_endpoint_inflight,
                // Past the attempt timeout with margin, so a live attempt's claim never lapses under it.
                lease: bounded_seconds(timeout_seconds.saturating_mul(2).saturating_add(5)),
                disable_after: scaled(
                    DeliverySettings::default().disable_after,
                    settings.webhooks.retry_scale,
                ),
                ..DeliverySettings::default()
            },
        )
        .with_trace_links(crate::telemetry::trace_links()))
    }

    /// The send settings every accepting use case shares (the dispatch deadline, the `send_at` range).
    fn send_settings(dispatch: &DispatchSection) -> SendSettings {
        SendSettings {
            dispatch_deadline: bounded_seconds(dispatch.deadline_hours.saturating_mul(3_600)),
            schedule_min_lead: bounded_seconds(dispatch.schedule_min_lead_seconds),
            ..SendSettings::default()
        }
    }

    /// Broadcasts: the API's use case and the workers' pacer are the same one.
    pub fn broadcasts(&self, settings: &Settings) -> Broadcasts {
        let store = &self.store;
        Broadcasts::new(
            BroadcastPorts {
                accounts: store.accounts(),
                broadcasts: store.broadcasts(),
                messages: store.messages(),
                schedule: store.schedule(),
                templates: store.templates(),
                catalog: store.media(),
                limiter: self.limiter.clone(),
                clock: self.clock.clone(),
                ids: self.ids.clone(),
            },
            Self::send_settings(&settings.dispatch),
            PaceSettings::default(),
        )
        .with_recipient_checks(RecipientChecks::new(store.contacts()))
    }

    /// Erasing a person: the API's `DELETE /api/v1/contacts/{recipient}` and the dashboard's privacy page are
    /// the same use case. `sealer` keys the markers, so both must be given the same one.
    pub(crate) fn erase_person(&self, sealer: Arc<dyn SecretSealer>) -> ErasePerson {
        let store = &self.store;
        ErasePerson::new(ErasePorts {
            erasure: store.erasure(),
            schedule: store.schedule(),
            catalog: store.media(),
            files: self.files.clone(),
            sealer,
            clock: self.clock.clone(),
            ids: self.ids.clone(),
        })
    }

    /// Each organization's rate card (estimates, and the operator's `admin rate` commands).
    pub fn rate_cards(&self) -> RateCards {
        RateCards::new(self.store.accounts(), self.store.pricing(), self.clock.clone())
    }

    pub(crate) fn api_context(
        &self,
        settings: &Settings,
        network: Arc<dyn MessagingNetwork>,
        review: Arc<dyn TemplateReview>,
        sealer: Arc<dyn SecretSealer>,
    ) -> ApiContext {
        let store = &self.store;
        let sync_templates = Arc::new(self.sync_templates(network.clone()));
        let erasure_sealer = Arc::clone(&sealer);
        ApiContext {
            webhooks: self.manage_webhooks(settings, sealer),
            authenticate: Authenticate::new(store.accounts(), self.clock.clone()),
            broadcasts: Arc::new(self.broadcasts(settings)),
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
                Self::send_settings(&settings.dispatch),
            )
            .with_trace_links(crate::telemetry::trace_links())
            .with_recipient_checks(RecipientChecks::new(store.contacts())),
            contacts: Contacts::new(ContactPorts {
                accounts: store.accounts(),
                contacts: store.contacts(),
                windows: store.windows(),
                network: network.clone(),
                clock: self.clock.clone(),
                ids: self.ids.clone(),
            }),
            erase: self.erase_person(erasure_sealer),
            get_message: GetMessage::new(store.messages()),
            list_messages: ListMessages::new(store.messages()),
            message_events: MessageEvents::new(store.messages()),
            rate_cards: self.rate_cards(),
            usage: Usage::new(store.pricing(), self.clock.clone()),
            cancel_message: CancelMessage::new(store.schedule(), self.clock.clone(), self.ids.clone()),
            inbound: InboundMessages::new(
                store.inbound(),
                store.accounts(),
                network.clone(),
                self.clock.clone(),
            ),
            window_status: WindowStatus::new(store.accounts(), store.windows(), self.clock.clone()),
            templates: ListTemplates::new(store.templates(), store.accounts()),
            senders: Senders::new(store.accounts()),
            manage_templates: ManageTemplates::new(
                TemplateReviewPorts {
                    accounts: store.accounts(),
                    templates: store.templates(),
                    catalog: store.media(),
                    files: self.files.clone(),
                    review,
                },
                Arc::clone(&sync_templates),
            ),
            sync_templates,
            media: self.media(network),
            files: self.files.clone(),
            send_limiter: self.limiter.clone(),
            dry_run_limiter: self.limiter.apart("dry-runs"),
            broadcast_row_limiter: self.limiter.apart("broadcast-rows"),
            read_limiter: Arc::new(KeyLimiter::new(
                settings.limits.read_rate_per_second,
                settings.limits.read_burst,
            )),
            write_limiter: Arc::new(KeyLimiter::new(
                settings.limits.write_rate_per_second,
                settings.limits.write_burst,
            )),
            readiness: Arc::new(StoreReadiness(store.clone())),
            // Validated when the settings are loaded, and `dashboard_context` refuses an invalid list in the
            // same `build`, so this fallback (trust nobody) is never served.
            trusted_proxies: settings.limits.trusted_proxies().unwrap_or_default(),
            auth_failures: Arc::new(AuthFailureLimiter::per_minute(
                settings.limits.api_auth_failures_per_minute,
            )),
            metrics_organization_labels: settings.telemetry.metrics_organization_labels,
        }
    }

    // ---- The owner's dashboard ----

    /// Owner accounts and dashboard sessions, with Argon2id passwords and the settings' session lifetimes.
    pub fn owner_access(&self, settings: &Settings) -> OwnerAccess {
        OwnerAccess::new(
            self.store.accounts(),
            self.store.owners(),
            Arc::new(herald_dashboard::Argon2Passwords::default()),
            self.clock.clone(),
            self.secrets.clone(),
            SessionSettings {
                idle: bounded_seconds(settings.dashboard.session_idle_minutes.saturating_mul(60)),
                absolute: bounded_seconds(settings.dashboard.session_absolute_hours.saturating_mul(3_600)),
            },
        )
    }

    /// Everything the dashboard's pages use.
    ///
    /// # Errors
    /// When the configured cookie key is invalid.
    pub(crate) fn dashboard_context(
        &self,
        settings: &Settings,
        sealer: Arc<dyn SecretSealer>,
        network: Arc<dyn MessagingNetwork>,
    ) -> anyhow::Result<herald_dashboard::DashboardContext> {
        let cookie_key = match &settings.dashboard.cookie_key {
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
            cancel_message: CancelMessage::new(store.schedule(), self.clock.clone(), self.ids.clone()),
            erase: self.erase_person(Arc::clone(&sealer)),
            broadcasts: Arc::new(self.broadcasts(settings)),
            webhooks: self.manage_webhooks(settings, sealer),
            templates: ListTemplates::new(store.templates(), store.accounts()),
            senders: Senders::new(store.accounts()),
            sync_templates: Arc::new(self.sync_templates(network)),
            messages: store.messages(),
            rate_cards: self.rate_cards(),
            usage: Usage::new(store.pricing(), self.clock.clone()),
            clock: self.clock.clone(),
            cookie_key,
            login_limits: herald_dashboard::LoginLimits::new(
                settings.dashboard.login_attempts_per_account,
                settings.dashboard.login_attempts_per_address,
            ),
            trusted_proxies: settings.limits.trusted_proxies()?,
        })
    }

    pub(crate) fn dispatch(
        &self,
        settings: &Settings,
        network: Arc<dyn MessagingNetwork>,
    ) -> DispatchMessages {
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
            dispatch_settings(&settings.dispatch),
        )
        .with_trace_links(crate::telemetry::trace_links())
    }
}

/// Dispatch's tunables from the settings. Each duration is held to the domain's longest delay, so no setting
/// (validated or not) can make `Duration::seconds` or a time computed from it overflow and panic a worker.
fn dispatch_settings(dispatch: &DispatchSection) -> DispatchSettings {
    DispatchSettings {
        batch_size: dispatch.batch_size,
        callback_window: bounded_seconds(dispatch.callback_wait_seconds),
        lease: bounded_seconds(dispatch.lease_seconds),
        base_backoff: bounded_milliseconds(dispatch.base_backoff_ms),
        hold: bounded_seconds(dispatch.hold_seconds.max(1)),
        ..DispatchSettings::default()
    }
}

/// The media directory of the settings (see [`Settings::media_dir`]), created if missing; for in-memory
/// SQLite a temporary one, returned too so the caller keeps it alive.
async fn open_media_store(
    settings: &Settings,
) -> anyhow::Result<(Arc<FsMediaStore>, Option<Arc<tempfile::TempDir>>)> {
    let (root, scratch) = match (
        &settings.media.dir,
        herald_store::sqlite_data_dir(&settings.store.database_url),
    ) {
        (Some(dir), _) => (std::path::PathBuf::from(dir), None),
        (None, Some(data_dir)) => (data_dir.join("media"), None),
        (None, None) if settings.store.database_url.starts_with("sqlite:") => {
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
pub(crate) fn webhook_policy(webhooks: &WebhooksSection) -> herald_webhooks::DestinationPolicy {
    herald_webhooks::DestinationPolicy {
        allow_insecure: webhooks.allow_insecure,
        allow_private: webhooks.allow_private_targets,
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

/// The store's options, from the settings.
fn store_options(store: &StoreSection) -> StoreOptions {
    StoreOptions {
        max_connections: store.max_connections,
        group_commit: store.accept_group_commit,
        accept_writers: store.accept_writers,
        callback_writers: store.callback_writers,
        read_cache: (store.read_cache_ms > 0).then(|| std::time::Duration::from_millis(store.read_cache_ms)),
        ..StoreOptions::default()
    }
}

#[cfg(test)]
mod tests {
    use super::{dispatch_settings, store_options};
    use crate::config::{DispatchSection, Settings, StoreSection};

    /// The writers settings reach the store: `HERALD_CALLBACK_WRITERS` as read from the environment.
    #[test]
    #[allow(
        clippy::result_large_err,
        reason = "figment's Jail API returns its own large error"
    )]
    fn the_writers_settings_reach_the_store() {
        figment::Jail::expect_with(|jail| {
            jail.set_env("HERALD_CALLBACK_WRITERS", "2");
            jail.set_env("HERALD_ACCEPT_WRITERS", "3");
            let settings = Settings::load(None).map_err(|e| e.to_string())?;
            let options = store_options(&settings.store);
            assert_eq!((options.callback_writers, options.accept_writers), (2, 3));
            let defaults = store_options(&StoreSection::default());
            assert_eq!((defaults.callback_writers, defaults.accept_writers), (0, 0));
            Ok(())
        });
    }

    /// Durations past what a `Duration` holds (which made `Duration::seconds` panic at start-up) are held to
    /// the longest delay; negative ones to zero.
    #[test]
    fn dispatch_durations_from_the_settings_are_bounded() {
        let longest = herald_domain::time::Duration::days(herald_domain::time::LONGEST_DELAY_DAYS);
        let dispatch = dispatch_settings(&DispatchSection {
            callback_wait_seconds: i64::MAX,
            lease_seconds: i64::MAX,
            base_backoff_ms: i64::MIN,
            hold_seconds: 99_999_999_999_999_999,
            ..DispatchSection::default()
        });
        assert_eq!(dispatch.callback_window, longest);
        assert_eq!(dispatch.lease, longest);
        assert_eq!(dispatch.base_backoff, herald_domain::time::Duration::zero());
        assert_eq!(dispatch.hold, longest);
        let defaults = dispatch_settings(&DispatchSection::default());
        assert_eq!(defaults.lease, herald_domain::time::Duration::seconds(60));
        assert_eq!(
            defaults.callback_window,
            herald_domain::time::Duration::seconds(300)
        );
    }
}
