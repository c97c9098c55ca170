//! Herald's storage adapters: the store ports of `herald-domain` on PostgreSQL and on SQLite.
//!
//! Both backends are always compiled in; [`Store::connect`] picks one from the URL and hands the app
//! `Arc<dyn Port>`s. The queries are written once ([`ports`]) and expanded per backend, because
//! diesel-async has no connection type that chooses its backend at run time. Migrations are embedded in
//! the binary, one set per backend (`migrations/postgres`, `migrations/sqlite`).

mod backend;
mod cached;
mod dto;
mod error;
mod event_body;
mod group_commit;
mod inline;
mod notify;
mod pg;
mod ports;
mod read_cache;
mod rows;
mod sqlite;
mod tables;
#[cfg(feature = "test-support")]
pub mod testing;

use herald_domain::ids::OrganizationId;
use herald_domain::ports::MediaCatalog;
use herald_domain::ports::WebhookStore;
use herald_domain::ports::{
    AccountStore, BroadcastStore, ContactStore, InboundStore, MessageStore, OutboxStore, OwnerStore,
    PricingStore, RetentionStore, ScheduleStore, StoreError, TemplateStore, TrackingStore, WindowStore,
};
use std::fmt;
use std::sync::Arc;

use backend::{Admin, Keepalive, SqliteTarget};
pub use backend::{Backend, CustomerEventRecord, StoreOptions};
pub use notify::WorkNotifier;

/// The store the app uses: one backend behind every store port.
#[derive(Clone)]
pub struct Store {
    admin: Arc<dyn Admin>,
    accounts: Arc<dyn AccountStore>,
    messages: Arc<dyn MessageStore>,
    templates: Arc<dyn TemplateStore>,
    windows: Arc<dyn WindowStore>,
    contacts: Arc<dyn ContactStore>,
    outbox: Arc<dyn OutboxStore>,
    tracking: Arc<dyn TrackingStore>,
    inbound: Arc<dyn InboundStore>,
    webhooks: Arc<dyn WebhookStore>,
    media: Arc<dyn MediaCatalog>,
    owners: Arc<dyn OwnerStore>,
    retention: Arc<dyn RetentionStore>,
    pricing: Arc<dyn PricingStore>,
    schedule: Arc<dyn ScheduleStore>,
    broadcasts: Arc<dyn BroadcastStore>,
    erasure: Arc<dyn herald_domain::ports::ErasureStore>,
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store")
            .field("backend", &self.admin.backend())
            .finish_non_exhaustive()
    }
}

/// The database a URL names.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    Postgres,
    Sqlite(SqliteTarget),
}

/// Reads a database URL: `postgres://…`/`postgresql://…`, or `sqlite://path`, `sqlite:path`,
/// `sqlite::memory:`, `sqlite://:memory:`.
fn parse_url(url: &str) -> anyhow::Result<Target> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        return Ok(Target::Postgres);
    }
    let rest = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))
        .ok_or_else(|| anyhow::anyhow!("unsupported database URL: expected postgres://… or sqlite://…"))?;
    let path = rest.split(['?', '#']).next().unwrap_or_default();
    Ok(Target::Sqlite(if path.is_empty() || path == ":memory:" {
        SqliteTarget::Memory
    } else {
        SqliteTarget::File(path.into())
    }))
}

/// The directory of a SQLite URL's database file (`.` for a bare file name): where other files of the
/// same installation belong. `None` for PostgreSQL, in-memory SQLite and URLs that are not understood.
pub fn sqlite_data_dir(url: &str) -> Option<std::path::PathBuf> {
    match parse_url(url).ok()? {
        Target::Sqlite(SqliteTarget::File(path)) => Some(
            path.parent()
                .filter(|dir| !dir.as_os_str().is_empty())
                .map_or_else(|| std::path::PathBuf::from("."), std::path::Path::to_path_buf),
        ),
        Target::Sqlite(SqliteTarget::Memory) | Target::Postgres => None,
    }
}

impl Store {
    /// Opens the store at `url`: `postgres://…` for PostgreSQL; `sqlite://path` (the file's directory is
    /// created if missing) or `sqlite::memory:` for SQLite. Checks that one connection can be opened and
    /// runs nothing else (no migrations).
    ///
    /// # Errors
    /// An unsupported URL, or a database that cannot be reached.
    pub async fn connect(url: &str, options: &StoreOptions) -> anyhow::Result<Store> {
        Self::connect_keeping(url, options, None).await
    }

    pub(crate) async fn connect_keeping(
        url: &str,
        options: &StoreOptions,
        keepalive: Keepalive,
    ) -> anyhow::Result<Store> {
        match parse_url(url)? {
            Target::Postgres => {
                let db = Arc::new(pg::Db::connect(url, options, keepalive).await?);
                if options.group_commit {
                    let _ = db.this.set(Arc::downgrade(&db));
                }
                Ok(Self::from_backend(db, options))
            }
            Target::Sqlite(target) => {
                let db = Arc::new(sqlite::Db::connect(target, options, keepalive).await?);
                if options.group_commit {
                    let _ = db.this.set(Arc::downgrade(&db));
                }
                Ok(Self::from_backend(db, options))
            }
        }
    }

    fn from_backend<D>(db: Arc<D>, options: &StoreOptions) -> Self
    where
        D: Admin
            + AccountStore
            + MessageStore
            + TemplateStore
            + WindowStore
            + ContactStore
            + OutboxStore
            + TrackingStore
            + InboundStore
            + WebhookStore
            + MediaCatalog
            + OwnerStore
            + RetentionStore
            + PricingStore
            + ScheduleStore
            + BroadcastStore
            + herald_domain::ports::ErasureStore,
    {
        type Cached = (
            Arc<dyn AccountStore>,
            Arc<dyn TemplateStore>,
            Arc<dyn TrackingStore>,
        );
        let (accounts, templates, tracking): Cached = match options.read_cache {
            Some(ttl) if !ttl.is_zero() => {
                let templates = Arc::new(read_cache::CachedTemplates::new(db.clone(), ttl));
                (
                    Arc::new(read_cache::CachedAccounts::new(db.clone(), ttl)),
                    templates.clone(),
                    // Notices change template copies: the cache is evicted as for a sync.
                    Arc::new(read_cache::EvictingTracking::new(db.clone(), templates)),
                )
            }
            _ => (db.clone(), db.clone(), db.clone()),
        };
        Self {
            admin: db.clone(),
            accounts,
            messages: db.clone(),
            templates,
            windows: db.clone(),
            contacts: db.clone(),
            outbox: db.clone(),
            tracking,
            inbound: db.clone(),
            webhooks: db.clone(),
            media: db.clone(),
            owners: db.clone(),
            retention: db.clone(),
            pricing: db.clone(),
            schedule: db.clone(),
            broadcasts: db.clone(),
            erasure: db,
        }
    }

    /// Applies the embedded migrations that have not run yet. Safe to call at every start.
    ///
    /// # Errors
    /// A migration failed or the database cannot be reached.
    pub async fn migrate(&self) -> anyhow::Result<()> {
        self.admin.migrate().await
    }

    /// How many embedded migrations have not run yet (0: the schema is current).
    ///
    /// # Errors
    /// The database cannot be reached.
    pub async fn pending_migrations(&self) -> anyhow::Result<usize> {
        self.admin.pending_migrations().await
    }

    /// Whether the store answers a trivial query.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when it does not.
    pub async fn ping(&self) -> Result<(), StoreError> {
        self.admin.ping().await
    }

    /// Which database this store runs on.
    pub fn backend(&self) -> Backend {
        self.admin.backend()
    }

    /// Plans, organizations, senders and API keys.
    pub fn accounts(&self) -> Arc<dyn AccountStore> {
        self.accounts.clone()
    }

    /// Messages, their history, the outbox, quota counts and idempotency records.
    pub fn messages(&self) -> Arc<dyn MessageStore> {
        self.messages.clone()
    }

    /// Template copies.
    pub fn templates(&self) -> Arc<dyn TemplateStore> {
        self.templates.clone()
    }

    /// Service windows.
    pub fn windows(&self) -> Arc<dyn WindowStore> {
        self.windows.clone()
    }

    /// Contacts: marketing preferences, blocks, user ids and the STOP keyword rule.
    pub fn contacts(&self) -> Arc<dyn ContactStore> {
        self.contacts.clone()
    }

    /// The outbox, as the dispatch workers use it.
    pub fn outbox(&self) -> Arc<dyn OutboxStore> {
        self.outbox.clone()
    }

    /// Status reports, inbound messages and stored network callbacks.
    pub fn tracking(&self) -> Arc<dyn TrackingStore> {
        self.tracking.clone()
    }

    /// Inbound messages as resources: the list, one message, and when it was read.
    pub fn inbound(&self) -> Arc<dyn InboundStore> {
        self.inbound.clone()
    }

    /// Customer webhook endpoints and their deliveries. Deliveries are written by the store itself, in the
    /// transaction of each customer event (the fan-out).
    pub fn webhooks(&self) -> Arc<dyn WebhookStore> {
        self.webhooks.clone()
    }

    /// Uploaded media's metadata, the uploads made to the network per sender, and inbound messages' files.
    pub fn media(&self) -> Arc<dyn MediaCatalog> {
        self.media.clone()
    }

    /// Owner accounts and dashboard sessions (the owner's dashboard).
    pub fn owners(&self) -> Arc<dyn OwnerStore> {
        self.owners.clone()
    }

    /// Removal of rows older than their plan's retention.
    pub fn retention(&self) -> Arc<dyn RetentionStore> {
        self.retention.clone()
    }

    /// Rate cards and usage counts.
    pub fn pricing(&self) -> Arc<dyn PricingStore> {
        self.pricing.clone()
    }

    /// Cancelling messages before dispatch.
    pub fn schedule(&self) -> Arc<dyn ScheduleStore> {
        self.schedule.clone()
    }

    /// Broadcasts and the pacer's releases.
    pub fn broadcasts(&self) -> Arc<dyn BroadcastStore> {
        self.broadcasts.clone()
    }

    /// Erasing a person: their content erased, what billing needs kept under a keyed marker.
    pub fn erasure(&self) -> Arc<dyn herald_domain::ports::ErasureStore> {
        self.erasure.clone()
    }

    /// Wake-ups for webhook delivery loops when deliveries may have become due: a customer event fanned out
    /// to an enabled endpoint, a test event, a redelivery or recovery, an endpoint enabled. On PostgreSQL
    /// the signal is `LISTEN herald_webhooks` on the same listening connection as [`Store::work_notifier`]
    /// (the first call of either starts it, inside a Tokio runtime); on SQLite an in-process signal. A
    /// wake-up is a hint: deliveries also become due by time alone (retries, expired leases), so callers
    /// keep polling with a timeout.
    pub fn webhook_notifier(&self) -> WorkNotifier {
        self.admin.webhook_notifier()
    }

    /// Wake-ups for dispatch workers when jobs may have become due. On PostgreSQL the first call starts
    /// listening on a dedicated connection (reconnecting on errors) and must be made inside a Tokio
    /// runtime; until that connection is up, waiters just time out.
    pub fn work_notifier(&self) -> WorkNotifier {
        self.admin.work_notifier()
    }

    /// The organization's customer events, oldest first. For inspection (tests, operators); the webhook
    /// dispatcher reads them through its own port.
    ///
    /// # Errors
    /// The store cannot be read.
    pub async fn customer_events(
        &self,
        organization: &OrganizationId,
    ) -> Result<Vec<CustomerEventRecord>, StoreError> {
        self.admin.customer_events(organization).await
    }

    /// Applies status reports in order in one transaction, each on the result of those before it, as a batch
    /// of network callbacks is applied (no port applies several reports of one message at once, and a batch
    /// that fails is retried item by item, which would hide a fault of the set-wise path). For the contract
    /// suite.
    ///
    /// # Errors
    /// The store cannot be written.
    #[cfg(feature = "test-support")]
    pub async fn apply_statuses_together(
        &self,
        updates: &[herald_domain::status::StatusUpdate],
    ) -> Result<Vec<Option<herald_domain::status::StatusApplied>>, StoreError> {
        self.admin.apply_statuses_together(updates).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_pick_the_backend() {
        let file = |p: &str| Target::Sqlite(SqliteTarget::File(p.into()));
        assert_eq!(parse_url("postgres://u@h/db").unwrap(), Target::Postgres);
        assert_eq!(parse_url("postgresql://u@h/db").unwrap(), Target::Postgres);
        assert_eq!(
            parse_url("sqlite://data/herald.db").unwrap(),
            file("data/herald.db")
        );
        assert_eq!(
            parse_url("sqlite:///abs/h.db?mode=rwc").unwrap(),
            file("/abs/h.db")
        );
        assert_eq!(parse_url("sqlite:h.db").unwrap(), file("h.db"));
        assert_eq!(
            sqlite_data_dir("sqlite://data/herald.db"),
            Some(std::path::PathBuf::from("data"))
        );
        assert_eq!(
            sqlite_data_dir("sqlite:///var/lib/herald/h.db?mode=rwc"),
            Some(std::path::PathBuf::from("/var/lib/herald"))
        );
        assert_eq!(
            sqlite_data_dir("sqlite:h.db"),
            Some(std::path::PathBuf::from("."))
        );
        assert_eq!(sqlite_data_dir("sqlite::memory:"), None);
        assert_eq!(sqlite_data_dir("postgres://u@h/db"), None);
        let memory = Target::Sqlite(SqliteTarget::Memory);
        assert_eq!(parse_url("sqlite::memory:").unwrap(), memory);
        assert_eq!(parse_url("sqlite://:memory:").unwrap(), memory);
        assert!(parse_url("mysql://x").is_err());
    }
}
