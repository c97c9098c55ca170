use crate::adapters::{MonotonicUlids, OsSecrets, SystemClock};
use crate::config::Settings;
use anyhow::Context;
use herald_domain::ports::{Clock, IdGenerator, NoRateLimit, RateLimiter, SecretSource};
use herald_domain::usecases::{
    Admin, Authenticate, GetMessage, ListMessages, MessageEvents, SendMessage, SendPorts, SendSettings,
    WindowStatus,
};
use herald_http::{ApiContext, Readiness};
use herald_store::{Store, StoreOptions};
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
}

impl Services {
    /// Connects the configured store (without migrating it).
    ///
    /// # Errors
    /// When the store cannot be reached.
    pub async fn connect(settings: &Settings) -> anyhow::Result<Self> {
        let options = StoreOptions {
            max_connections: settings.max_connections,
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
        Ok(Self::with_store(store))
    }

    /// Wraps an already connected store with the production clock, ids and randomness.
    pub fn with_store(store: Store) -> Self {
        Self {
            store,
            clock: Arc::new(SystemClock),
            ids: Arc::new(MonotonicUlids::default()),
            secrets: Arc::new(OsSecrets),
            limiter: Arc::new(NoRateLimit),
        }
    }

    pub fn admin(&self) -> Admin {
        Admin::new(
            self.store.accounts(),
            self.clock.clone(),
            self.ids.clone(),
            self.secrets.clone(),
        )
    }

    fn api_context(&self) -> ApiContext {
        let store = &self.store;
        ApiContext {
            authenticate: Authenticate::new(store.accounts(), self.clock.clone()),
            send: SendMessage::new(
                SendPorts {
                    accounts: store.accounts(),
                    messages: store.messages(),
                    templates: store.templates(),
                    windows: store.windows(),
                    limiter: self.limiter.clone(),
                    clock: self.clock.clone(),
                    ids: self.ids.clone(),
                },
                SendSettings::default(),
            ),
            get_message: GetMessage::new(store.messages()),
            list_messages: ListMessages::new(store.messages()),
            message_events: MessageEvents::new(store.messages()),
            window_status: WindowStatus::new(store.accounts(), store.windows(), self.clock.clone()),
            readiness: Arc::new(StoreReadiness(store.clone())),
        }
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

/// A bound, ready-to-run server.
pub struct Application {
    port: u16,
    server: actix_web::dev::Server,
}

impl Application {
    /// Binds `settings.listen` (port 0 picks a free one) and builds the server on `services`.
    ///
    /// # Errors
    /// When the address cannot be bound.
    pub fn build(settings: &Settings, services: &Services) -> anyhow::Result<Self> {
        let listener =
            TcpListener::bind(&settings.listen).with_context(|| format!("binding {}", settings.listen))?;
        let port = listener.local_addr()?.port();
        let context = actix_web::web::Data::new(services.api_context());
        let mut server = actix_web::HttpServer::new(move || herald_http::app(context.clone()))
            .shutdown_timeout(settings.shutdown_timeout_seconds)
            .listen(listener)?;
        if settings.http_workers > 0 {
            server = server.workers(settings.http_workers);
        }
        Ok(Self {
            port,
            server: server.run(),
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Serves until SIGINT/SIGTERM, then lets in-flight requests finish (graceful shutdown).
    ///
    /// # Errors
    /// When the server fails.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        self.server.await
    }

    /// A handle to stop the server from elsewhere (tests).
    pub fn handle(&self) -> actix_web::dev::ServerHandle {
        self.server.handle()
    }
}

/// Hides the password of a database URL for logs.
pub(crate) fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let Some((credentials, host)) = rest.rsplit_once('@') else {
        return url.to_owned();
    };
    match credentials.split_once(':') {
        Some((user, _)) => format!("{scheme}://{user}:[redacted]@{host}"),
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::redact_url;

    #[test]
    fn database_passwords_are_redacted() {
        assert_eq!(redact_url("postgres://u:pw@h/db"), "postgres://u:[redacted]@h/db");
        assert_eq!(redact_url("postgres://u@h/db"), "postgres://u@h/db");
        assert_eq!(redact_url("sqlite://data/x.db"), "sqlite://data/x.db");
    }
}
