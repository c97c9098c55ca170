//! PostgreSQL: `AsyncPgConnection` pooled by bb8.

pub(crate) mod schema;

use crate::error::from_pool;
use crate::{Admin, Backend, Keepalive, StoreOptions};
use anyhow::Context;
use async_trait::async_trait;
use diesel::Connection;
use diesel_async::AsyncPgConnection;
use diesel_async::async_connection_wrapper::AsyncConnectionWrapper;
use diesel_async::pooled_connection::AsyncDieselConnectionManager;
use diesel_async::pooled_connection::bb8::{Pool, PooledConnection};
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};
use herald_domain::ports::StoreError;

pub(crate) const MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/postgres");

/// Serializes concurrent `herald migrate` runs against one database (any constant, shared by all
/// Herald processes).
const MIGRATION_LOCK: i64 = 0x4865_7261_6c64_4d31;

type Conn = AsyncPgConnection;

/// The PostgreSQL store. One pool serves reads and writes; PostgreSQL handles concurrent writers.
pub(crate) struct Db {
    pool: Pool<Conn>,
    url: String,
    _keepalive: Keepalive,
}

impl Db {
    pub(crate) async fn connect(
        url: &str,
        options: &StoreOptions,
        keepalive: Keepalive,
    ) -> anyhow::Result<Self> {
        let manager = AsyncDieselConnectionManager::<Conn>::new(url);
        let pool = Pool::builder()
            .max_size(options.max_connections.max(1))
            .connection_timeout(options.connect_timeout)
            .build(manager)
            .await
            .context("cannot build the PostgreSQL pool")?;
        // One real connection up front, so a wrong URL fails at start with the server's own message
        // instead of as pool timeouts later. The URL may hold a password: it is not in the message.
        pool.dedicated_connection()
            .await
            .context("cannot connect to PostgreSQL")?;
        Ok(Self {
            pool,
            url: url.to_owned(),
            _keepalive: keepalive,
        })
    }

    async fn read(&self) -> Result<PooledConnection<'_, Conn>, StoreError> {
        self.pool.get().await.map_err(from_pool)
    }

    async fn write(&self) -> Result<PooledConnection<'_, Conn>, StoreError> {
        self.pool.get().await.map_err(from_pool)
    }

    /// Runs `work` on a dedicated synchronous connection in a blocking thread: diesel's migration
    /// harness is synchronous, and `block_in_place` would fail on actix's single-threaded runtimes.
    async fn with_migration_connection<R, F>(&self, work: F) -> anyhow::Result<R>
    where
        R: Send + 'static,
        F: FnOnce(&mut AsyncConnectionWrapper<Conn>) -> anyhow::Result<R> + Send + 'static,
    {
        let url = self.url.clone();
        tokio::task::spawn_blocking(move || {
            let mut conn =
                AsyncConnectionWrapper::<Conn>::establish(&url).context("cannot connect to PostgreSQL")?;
            work(&mut conn)
        })
        .await
        .context("the migration task did not finish")?
    }
}

/// Runs `body` in one PostgreSQL transaction (`BEGIN … COMMIT`, rolled back on `Err`).
macro_rules! write_tx {
    ($db:expr, |$conn:ident| $body:expr) => {
        async {
            let mut pooled = $db.write().await?;
            let connection: &mut Conn = &mut pooled;
            diesel_async::AsyncConnection::transaction::<_, TxError, _>(connection, async |$conn| $body).await
        }
        .await
    };
}

crate::queries::port_impls!();

#[async_trait]
impl Admin for Db {
    fn backend(&self) -> Backend {
        Backend::Postgres
    }

    async fn migrate(&self) -> anyhow::Result<()> {
        self.with_migration_connection(|conn| {
            use diesel::connection::SimpleConnection;
            conn.batch_execute(&format!("SELECT pg_advisory_lock({MIGRATION_LOCK})"))?;
            let outcome = conn
                .run_pending_migrations(MIGRATIONS)
                .map(|applied| applied.len())
                .map_err(|e| anyhow::anyhow!("migration failed: {e}"));
            conn.batch_execute(&format!("SELECT pg_advisory_unlock({MIGRATION_LOCK})"))?;
            let applied = outcome?;
            tracing::info!(applied, "PostgreSQL migrations applied");
            Ok(())
        })
        .await
    }

    async fn pending_migrations(&self) -> anyhow::Result<usize> {
        self.with_migration_connection(|conn| {
            conn.pending_migrations(MIGRATIONS)
                .map(|pending| pending.len())
                .map_err(|e| anyhow::anyhow!("cannot read the applied migrations: {e}"))
        })
        .await
    }

    async fn ping(&self) -> Result<(), StoreError> {
        self.ping_query().await
    }
}
