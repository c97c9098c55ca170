//! What every backend shares with the crate root: its kind and options, the admin face the app uses, the
//! stored customer event, and pooled connections with their metrics. Backends import from here, not from
//! the crate root, so the root can name the backends without an import circle.

use async_trait::async_trait;
use herald_domain::Timestamp;
use herald_domain::content::MessageRef;
use herald_domain::customer_event::CustomerEventType;
use herald_domain::ids::{EventId, OrganizationId};
use herald_domain::ports::StoreError;
use std::any::Any;
use std::sync::Arc;
use std::time::Duration;

use crate::notify::WorkNotifier;

/// Which database a [`Store`] runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// PostgreSQL, the production store.
    Postgres,
    /// SQLite, the embedded default (one file, one writer).
    Sqlite,
}

/// Connection settings shared by both backends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreOptions {
    /// Most connections in the pool (on SQLite: reading connections; writes always use one connection).
    pub max_connections: u32,
    /// How long to wait for a connection, new or pooled, before the store answers `Unavailable`.
    pub connect_timeout: Duration,
    /// Commit concurrent accepts of this process together, in one transaction, and concurrent status
    /// callbacks likewise (see `group_commit`).
    /// Off: one transaction per accept and per callback (kept for the benchmark's before/after comparison).
    pub group_commit: bool,
    /// Group-commit batches in flight at once on PostgreSQL (SQLite writes one); 0 picks one (see
    /// `pg::accept_writers`), at most `max_connections`.
    pub accept_writers: usize,
    /// Status-callback batches in flight at once on PostgreSQL (SQLite writes one); 0 picks the default (see
    /// `pg::callback_writers`), at most half of `max_connections`.
    pub callback_writers: usize,
    /// How long credentials, senders and templates read on the send path may be reused in this process
    /// (`read_cache`); `None` reads the store every time. At most 1 s (docs/api.md §1).
    pub read_cache: Option<Duration>,
}

impl Default for StoreOptions {
    fn default() -> Self {
        Self {
            max_connections: 10,
            connect_timeout: Duration::from_secs(5),
            group_commit: true,
            accept_writers: 0,
            callback_writers: 0,
            read_cache: Some(Duration::from_millis(500)),
        }
    }
}

/// A customer event as stored (docs/api.md §9): what the webhook dispatcher will deliver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomerEventRecord {
    pub id: EventId,
    pub organization_id: OrganizationId,
    pub event_type: CustomerEventType,
    /// The message it is about (an inbound message's own id for `message.inbound`).
    pub message_id: Option<MessageRef>,
    /// 1, 2, 3… per message.
    pub sequence: u32,
    /// The JSON body, exactly as it will be delivered.
    pub payload: String,
    pub occurred_at: Timestamp,
    pub created_at: Timestamp,
}

/// Something kept alive as long as a backend is (a test database that is dropped with it).
pub(crate) type Keepalive = Option<Arc<dyn Any + Send + Sync>>;

/// What the app needs of a backend besides the ports. Migrations and pools differ per backend.
#[async_trait]
pub(crate) trait Admin: Send + Sync + 'static {
    fn backend(&self) -> Backend;
    async fn migrate(&self) -> anyhow::Result<()>;
    async fn pending_migrations(&self) -> anyhow::Result<usize>;
    async fn ping(&self) -> Result<(), StoreError>;
    fn work_notifier(&self) -> WorkNotifier;
    fn webhook_notifier(&self) -> WorkNotifier;
    async fn customer_events(
        &self,
        organization: &OrganizationId,
    ) -> Result<Vec<CustomerEventRecord>, StoreError>;
    /// Applies `updates` in one transaction, as a batch of callbacks does ([`crate::Store::apply_statuses_together`]).
    #[cfg(feature = "test-support")]
    async fn apply_statuses_together(
        &self,
        updates: &[herald_domain::status::StatusUpdate],
    ) -> Result<Vec<Option<herald_domain::status::StatusApplied>>, StoreError>;
}

/// Where a SQLite URL points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SqliteTarget {
    /// A private in-memory database, living as long as the store.
    Memory,
    File(std::path::PathBuf),
}

/// Takes a connection from `pool`, recording how long the wait was (`herald_store_pool_wait_seconds`) and how
/// many of the pool's connections are in use after it (`herald_store_connections_in_use`), by pool: `main`
/// and `accepts` (the accept writer's own) on PostgreSQL, `read` and `write` on SQLite.
pub(crate) async fn pooled<'a, M: bb8::ManageConnection>(
    pool: &'a bb8::Pool<M>,
    name: &'static str,
) -> Result<bb8::PooledConnection<'a, M>, bb8::RunError<M::Error>> {
    let started = std::time::Instant::now();
    let connection = pool.get().await;
    metrics::histogram!("herald_store_pool_wait_seconds", "pool" => name)
        .record(started.elapsed().as_secs_f64());
    let state = pool.state();
    metrics::gauge!("herald_store_connections_in_use", "pool" => name).set(f64::from(
        state.connections.saturating_sub(state.idle_connections),
    ));
    connection
}
