//! SQLite: `SyncConnectionWrapper<SqliteConnection>` pooled by bb8.
//!
//! SQLite has one writer at a time. Every write goes through a pool of exactly one connection and opens
//! its transaction with `BEGIN IMMEDIATE`, so writers queue in the pool instead of meeting as deferred
//! transactions that deadlock when both try to upgrade their lock. Reads use a separate pool and, in WAL
//! mode, never wait for the writer.

pub(crate) mod schema;

use crate::backend::{Admin, Backend, CustomerEventRecord, Keepalive, SqliteTarget, StoreOptions, pooled};
use crate::error::{TxError, from_pool};
use crate::group_commit::PreparedAccept;
use crate::notify::WorkNotifier;
use crate::rows::{ClaimedRow, DELIVERY_PENDING, JOB_IN_FLIGHT, JOB_PENDING};
use anyhow::Context;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::SqliteConnection;
use diesel::prelude::*;
use diesel::result::{ConnectionError, ConnectionResult};
use diesel_async::pooled_connection::bb8::{Pool, PooledConnection};
use diesel_async::pooled_connection::{AsyncDieselConnectionManager, ManagerConfig};
use diesel_async::sync_connection_wrapper::SyncConnectionWrapper;
use diesel_async::{AsyncConnection, RunQueryDsl, SimpleAsyncConnection};
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};
use herald_domain::dispatch::sender_claim_cap;
use herald_domain::ids::OrganizationId;
use herald_domain::ports::StoreError;
use std::future::Future;
use std::pin::Pin;

pub(crate) const MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/sqlite");

type Conn = SyncConnectionWrapper<SqliteConnection, crate::inline::Inline>;

/// Set on every new connection: these are per-connection settings in SQLite. `busy_timeout` comes first
/// so that switching to WAL waits for a busy file instead of failing.
const PRAGMAS: &str = "PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON; \
                       PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;";

type SetupFuture<'a> = Pin<Box<dyn Future<Output = ConnectionResult<Conn>> + Send + 'a>>;

fn setup(url: &str) -> SetupFuture<'_> {
    let url = url.to_owned();
    Box::pin(async move {
        let mut conn = Conn::establish(&url).await?;
        conn.batch_execute(PRAGMAS)
            .await
            .map_err(ConnectionError::CouldntSetupConfiguration)?;
        Ok(conn)
    })
}

fn manager(url: &str) -> AsyncDieselConnectionManager<Conn> {
    let mut config = ManagerConfig::default();
    config.custom_setup = Box::new(setup);
    AsyncDieselConnectionManager::new_with_config(url, config)
}

/// The SQLite store.
pub(crate) struct Db {
    /// Exactly one connection: SQLite's single writer.
    writer: Pool<Conn>,
    /// The same pool as `writer` for an in-memory database, which exists only inside its one connection.
    reader: Pool<Conn>,
    /// One process owns a SQLite file, so in-process wake-ups reach every dispatch worker.
    notifier: WorkNotifier,
    /// The same, for webhook delivery loops.
    webhook_notifier: WorkNotifier,
    _keepalive: Keepalive,
    /// Accepts waiting to be committed together (see `crate::group_commit`).
    accepts: crate::group_commit::GroupCommit<crate::group_commit::PreparedAccept>,
    /// Status callbacks waiting to be stored and applied together (see `crate::group_commit`).
    callbacks: crate::group_commit::GroupCommit<
        crate::group_commit::PreparedCallback,
        Option<herald_domain::status::StatusApplied>,
    >,
    /// The store's own handle, set once it is shared, so a batch can be written on a spawned task.
    pub(crate) this: std::sync::OnceLock<std::sync::Weak<Db>>,
}

impl Db {
    pub(crate) async fn connect(
        target: SqliteTarget,
        options: &StoreOptions,
        keepalive: Keepalive,
    ) -> anyhow::Result<Self> {
        let (writer, reader) = match target {
            SqliteTarget::Memory => {
                // The database lives and dies with its connection: never let the pool recycle it.
                let pool = Pool::builder()
                    .max_size(1)
                    .min_idle(Some(1))
                    .max_lifetime(None)
                    .idle_timeout(None)
                    .connection_timeout(options.connect_timeout)
                    .build(manager(":memory:"))
                    .await
                    .context("cannot open an in-memory SQLite database")?;
                (pool.clone(), pool)
            }
            SqliteTarget::File(path) => {
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    std::fs::create_dir_all(dir)
                        .with_context(|| format!("cannot create the directory {}", dir.display()))?;
                }
                let url = path
                    .to_str()
                    .with_context(|| format!("the SQLite path {} is not UTF-8", path.display()))?
                    .to_owned();
                let writer = Pool::builder()
                    .max_size(1)
                    .connection_timeout(options.connect_timeout)
                    .build(manager(&url))
                    .await
                    .context("cannot build the SQLite writer pool")?;
                // One connection up front creates the file and switches it to WAL before any reader
                // opens it, and reports an unusable path with SQLite's own message (a pooled `get`
                // would retry until its timeout and say only that).
                writer
                    .dedicated_connection()
                    .await
                    .with_context(|| format!("cannot open the SQLite database {}", path.display()))?;
                let reader = Pool::builder()
                    .max_size(options.max_connections.max(1))
                    .connection_timeout(options.connect_timeout)
                    .build(manager(&url))
                    .await
                    .context("cannot build the SQLite reader pool")?;
                (writer, reader)
            }
        };
        Ok(Self {
            writer,
            reader,
            notifier: WorkNotifier::new(),
            webhook_notifier: WorkNotifier::new(),
            _keepalive: keepalive,
            accepts: crate::group_commit::GroupCommit::default(),
            callbacks: crate::group_commit::GroupCommit::default().of_kind("callback"),
            this: std::sync::OnceLock::new(),
        })
    }

    /// After a committed accept: wake the dispatch workers.
    fn work_committed(&self) {
        self.notifier.wake();
    }

    async fn read(&self) -> Result<PooledConnection<'_, Conn>, StoreError> {
        pooled(&self.reader, "read").await.map_err(from_pool)
    }

    async fn write(&self) -> Result<PooledConnection<'_, Conn>, StoreError> {
        pooled(&self.writer, "write").await.map_err(from_pool)
    }

    /// A connection for an accept batch: the one writer's, as every write.
    async fn batch_write(&self) -> Result<PooledConnection<'_, Conn>, StoreError> {
        self.write().await
    }

    /// Runs `work` on the writer's inner synchronous connection in a blocking thread (diesel's migration
    /// harness is synchronous). Using the writer also makes this work for an in-memory database.
    async fn with_sync_writer<R, F>(&self, work: F) -> anyhow::Result<R>
    where
        R: Send + 'static,
        F: FnOnce(&mut SqliteConnection) -> Result<R, String> + Send + 'static,
    {
        let mut conn = self.write().await?;
        conn.spawn_blocking(move |inner| Ok(work(inner)))
            .await
            .context("the SQLite migration task failed")?
            .map_err(anyhow::Error::msg)
    }
}

/// Runs `body` in one `BEGIN IMMEDIATE` transaction on the single writer connection. When the transaction
/// made deliveries due ([`announce_webhooks`] inside it) and committed, the webhook loops are woken once the
/// writer is back in its pool, as PostgreSQL's `NOTIFY` is delivered at commit.
macro_rules! write_tx {
    ($db:expr, |$conn:ident| $body:expr) => {
        write_tx!(@on $db, $db.write(), |$conn| $body)
    };
    (@on $db:expr, $connection:expr, |$conn:ident| $body:expr) => {
        async {
            let mut pooled = $connection.await?;
            let connection: &mut Conn = &mut pooled;
            let (written, announced) = crate::sqlite::announcing(crate::inline::immediate_transaction::<
                _,
                TxError,
                _,
            >(connection, async |$conn| $body))
            .await;
            drop(pooled);
            if announced && written.is_ok() {
                $db.webhook_notifier.wake();
            }
            written
        }
        .await
    };
}

tokio::task_local! {
    /// Set by [`announce_webhooks`] inside the transaction [`announcing`] runs.
    static WEBHOOKS_ANNOUNCED: std::cell::Cell<bool>;
}

/// Runs a transaction and answers whether it announced deliveries. The flag is the task's own: a
/// transaction runs inline on its caller's task (crate::inline), so nothing else can set or read it.
pub(crate) async fn announcing<T>(transaction: impl Future<Output = T>) -> (T, bool) {
    WEBHOOKS_ANNOUNCED
        .scope(std::cell::Cell::new(false), async {
            let written = transaction.await;
            (written, WEBHOOKS_ANNOUNCED.with(std::cell::Cell::get))
        })
        .await
}

/// SQLite has no row locks: the writer's `BEGIN IMMEDIATE` transaction already serializes every write.
macro_rules! for_update {
    ($query:expr) => {
        $query
    };
}

/// The last customer-event sequence of each of `ids` that has events (the status path's numbering).
async fn last_event_sequences(
    conn: &mut Conn,
    ids: &[String],
) -> Result<std::collections::HashMap<String, i32>, TxError> {
    use diesel::{ExpressionMethods, QueryDsl};
    use schema::events;
    Ok(events::table
        .filter(events::message_id.eq_any(ids.iter().map(|id| Some(id.as_str()))))
        .group_by(events::message_id)
        .select((events::message_id, diesel::dsl::max(events::sequence)))
        .load::<(Option<String>, Option<i32>)>(conn)
        .await?
        .into_iter()
        .filter_map(|(id, last)| Some((id?, last?)))
        .collect())
}

/// A sender id, as the walk over senders with open jobs reads it.
#[derive(diesel::QueryableByName)]
struct SenderIdByName {
    #[diesel(sql_type = diesel::sql_types::Text)]
    sender_id: String,
}

/// Leases up to `limit` due jobs, a fair share per sender: each sender with due jobs gets at most
/// `max(1, limit / senders with due jobs)` of its oldest (see `claim_jobs` in `ports/outbox.rs`). Walks the
/// senders with open jobs through `outbox_open_by_sender` (one index probe per sender, however long a
/// backlog is), keeps those with a due job, reads each one's share from the same index, keeps the oldest
/// `limit` of them (and no more of a sender than it can send within the lease), then updates the chosen
/// ones. Safe without row locks because the writer's immediate
/// transaction admits no other writer in between.
async fn claim_due(
    conn: &mut Conn,
    token: &str,
    now: DateTime<Utc>,
    lease_until: DateTime<Utc>,
    limit: i64,
) -> Result<Vec<ClaimedRow>, TxError> {
    use schema::outbox;
    // The index's predicate word for word (not bound parameters), so that SQLite may use the index.
    let open_predicate = format!("state IN ('{JOB_PENDING}', '{JOB_IN_FLIGHT}')");
    let open = || diesel::dsl::sql::<diesel::sql_types::Bool>(&open_predicate);
    macro_rules! due {
        () => {
            // Every due job's `available_at` has passed (an in-flight one was claimed once it had), so
            // the bound is redundant but lets the index range stop before the far-off scheduled jobs.
            outbox::table
                .filter(open())
                .filter(outbox::available_at.le(now))
                .filter(
                    outbox::state
                        .eq(JOB_PENDING)
                        .and(outbox::available_at.le(now))
                        .or(outbox::state
                            .eq(JOB_IN_FLIGHT)
                            .and(outbox::lease_until.assume_not_null().lt(now))),
                )
        };
    }
    // The walk names its index: SQLite would rather take `outbox_expired_leases` for the state and sort.
    let walk = format!(
        "SELECT sender_id FROM outbox INDEXED BY outbox_open_by_sender \
         WHERE {open_predicate} AND sender_id > ? ORDER BY sender_id LIMIT 1"
    );
    let mut due_senders: Vec<String> = Vec::new();
    let mut after = String::new();
    while let Some(next) = diesel::sql_query(walk.as_str())
        .bind::<diesel::sql_types::Text, _>(&after)
        .get_result::<SenderIdByName>(conn)
        .await
        .optional()?
    {
        after = next.sender_id;
        let has_due = due!()
            .filter(outbox::sender_id.eq(&after))
            .select(outbox::id)
            .first::<String>(conn)
            .await
            .optional()?
            .is_some();
        if has_due {
            due_senders.push(after.clone());
        }
    }
    let senders = i64::try_from(due_senders.len()).unwrap_or(i64::MAX).max(1);
    let per_sender = (limit / senders).max(1);
    type Due = (
        String,
        String,
        String,
        DateTime<Utc>,
        DateTime<Utc>,
        String,
        i32,
        bool,
    );
    let mut due: Vec<Due> = Vec::new();
    for sender in &due_senders {
        // No more than the sender can send within the lease.
        let throughput = schema::senders::table
            .find(sender)
            .select(schema::senders::throughput_per_second)
            .first::<i32>(conn)
            .await?;
        let cap = sender_claim_cap(u32::try_from(throughput).unwrap_or(1), now, lease_until);
        due.extend(
            due!()
                .filter(outbox::sender_id.eq(sender))
                .order((outbox::available_at, outbox::id))
                .limit(per_sender.min(cap))
                .select((
                    outbox::id,
                    outbox::organization_id,
                    outbox::message_id,
                    outbox::available_at,
                    outbox::deadline,
                    outbox::state,
                    outbox::attempts,
                    outbox::awaiting_callback,
                ))
                .load::<Due>(conn)
                .await?,
        );
    }
    due.sort_by(|a, b| (a.3, &a.0).cmp(&(b.3, &b.0)));
    due.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    if due.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<&str> = due.iter().map(|row| row.0.as_str()).collect();
    diesel::update(outbox::table.filter(outbox::id.eq_any(&ids)))
        .set((
            outbox::state.eq(JOB_IN_FLIGHT),
            outbox::claim_token.eq(Some(token)),
            outbox::lease_until.eq(Some(lease_until)),
            outbox::attempts.eq(outbox::attempts + 1),
            outbox::awaiting_callback.eq(false),
            outbox::updated_at.eq(now),
        ))
        .execute(conn)
        .await?;
    Ok(due
        .into_iter()
        .map(
            |(id, organization_id, message_id, _, deadline, old_state, old_attempts, old_awaiting)| {
                ClaimedRow {
                    id,
                    organization_id,
                    message_id,
                    attempts: old_attempts.saturating_add(1),
                    deadline,
                    old_state,
                    old_attempts,
                    old_awaiting,
                }
            },
        )
        .collect())
}

/// Nothing to do inside the transaction: the wake-up is in-process, after the commit.
async fn announce_work(_conn: &mut Conn) -> Result<(), TxError> {
    Ok(())
}

/// Marks the running transaction ([`announcing`]) as one that made deliveries due: `write_tx!` wakes the
/// webhook loops in-process once it committed. A transaction that made none wakes nobody.
async fn announce_webhooks(_conn: &mut Conn) -> Result<(), TxError> {
    // Outside `announcing` (no transaction of `write_tx!`) there is nobody to tell: a no-op.
    let _outside = WEBHOOKS_ANNOUNCED.try_with(|announced| announced.set(true));
    Ok(())
}

/// Nothing to lock: the writer's immediate transaction already keeps two template syncs apart.
async fn lock_template_sync(_conn: &mut Conn, _organization: &str, _waba_id: &str) -> Result<(), TxError> {
    Ok(())
}

/// Leases up to `limit` due deliveries, at most `cap` live leases per endpoint: reads the live leases per
/// endpoint, then each endpoint's oldest due deliveries that fit beside them, then updates the chosen ones.
/// Safe without row locks because the writer's immediate transaction admits no other claim in between.
/// One query per endpoint with due deliveries, each bounded by the cap, so a dead endpoint's backlog is
/// never read whole.
async fn claim_due_deliveries(
    conn: &mut Conn,
    token: &str,
    now: DateTime<Utc>,
    lease_until: DateTime<Utc>,
    limit: i64,
    cap: i64,
) -> Result<Vec<String>, TxError> {
    use schema::{webhook_deliveries as d, webhook_endpoints as e};
    let live: std::collections::HashMap<String, i64> = d::table
        .filter(d::status.eq(DELIVERY_PENDING))
        .filter(d::claim_token.is_not_null())
        .filter(d::lease_until.assume_not_null().ge(now))
        .group_by(d::endpoint_id)
        .select((d::endpoint_id, diesel::dsl::count_star()))
        .load::<(String, i64)>(conn)
        .await?
        .into_iter()
        .collect();
    macro_rules! due {
        () => {
            d::table
                .inner_join(e::table)
                .filter(d::status.eq(DELIVERY_PENDING))
                .filter(d::next_attempt_at.assume_not_null().le(now))
                .filter(
                    d::claim_token
                        .is_null()
                        .or(d::lease_until.assume_not_null().lt(now)),
                )
                .filter(e::enabled.eq(true))
        };
    }
    let endpoints = due!()
        .select(d::endpoint_id)
        .distinct()
        .load::<String>(conn)
        .await?;
    let mut chosen: Vec<(DateTime<Utc>, String)> = Vec::new();
    for endpoint in endpoints {
        let room = cap.saturating_sub(live.get(&endpoint).copied().unwrap_or(0));
        if room <= 0 {
            continue;
        }
        let due = due!()
            .filter(d::endpoint_id.eq(&endpoint))
            .order((d::next_attempt_at, d::id))
            .limit(room.min(limit))
            .select((d::next_attempt_at.assume_not_null(), d::id))
            .load::<(DateTime<Utc>, String)>(conn)
            .await?;
        chosen.extend(due);
    }
    chosen.sort();
    chosen.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    let ids: Vec<String> = chosen.into_iter().map(|(_, id)| id).collect();
    if !ids.is_empty() {
        diesel::update(d::table.filter(d::id.eq_any(&ids)))
            .set((
                d::claim_token.eq(Some(token)),
                d::lease_until.eq(Some(lease_until)),
                d::updated_at.eq(now),
            ))
            .execute(conn)
            .await?;
    }
    Ok(ids)
}

/// SQLite runs in this process: a statement per completion costs no round trip, so a round's attempts are
/// recorded one by one (`None`; the PostgreSQL store records them with one statement per table).
#[allow(clippy::unused_async, reason = "the same signature as the PostgreSQL store's")]
async fn record_attempts_together(
    _conn: &mut Conn,
    _completions: &[herald_domain::webhook::DeliveryCompletion],
) -> Result<Option<Vec<Option<String>>>, TxError> {
    Ok(None)
}

/// SQLite records a round's attempts in its one writer's transaction, without round trips: nothing for one
/// statement to save (`None`: the transaction path; the PostgreSQL store records successes at once).
#[allow(clippy::unused_async, reason = "the same signature as the PostgreSQL store's")]
async fn record_successes_at_once(
    _db: &Db,
    _completions: &[herald_domain::webhook::DeliveryCompletion],
) -> Result<Option<Vec<bool>>, StoreError> {
    Ok(None)
}

/// SQLite writes a batch of accepts in its one writer's transaction, without round trips: nothing for
/// pipelining to save (`None`: the statement-by-statement path; the PostgreSQL store pipelines).
#[allow(clippy::unused_async, reason = "the same signature as the PostgreSQL store's")]
async fn accept_batch_pipelined(
    _db: &Db,
    _items: &[&PreparedAccept],
) -> Option<Result<Vec<herald_domain::ports::AcceptOutcome>, TxError>> {
    None
}

crate::ports::port_impls!();

#[async_trait]
impl Admin for Db {
    fn backend(&self) -> Backend {
        Backend::Sqlite
    }

    async fn migrate(&self) -> anyhow::Result<()> {
        let applied = self
            .with_sync_writer(|conn| {
                conn.run_pending_migrations(MIGRATIONS)
                    .map(|applied| applied.len())
                    .map_err(|e| format!("migration failed: {e}"))
            })
            .await?;
        tracing::info!(applied, "SQLite migrations applied");
        Ok(())
    }

    async fn pending_migrations(&self) -> anyhow::Result<usize> {
        self.with_sync_writer(|conn| {
            conn.pending_migrations(MIGRATIONS)
                .map(|pending| pending.len())
                .map_err(|e| format!("cannot read the applied migrations: {e}"))
        })
        .await
    }

    async fn ping(&self) -> Result<(), StoreError> {
        self.ping_query().await
    }

    fn work_notifier(&self) -> WorkNotifier {
        self.notifier.clone()
    }

    fn webhook_notifier(&self) -> WorkNotifier {
        self.webhook_notifier.clone()
    }

    async fn customer_events(
        &self,
        organization: &OrganizationId,
    ) -> Result<Vec<CustomerEventRecord>, StoreError> {
        self.customer_events_query(organization).await
    }

    #[cfg(feature = "test-support")]
    async fn apply_statuses_together(
        &self,
        updates: &[herald_domain::status::StatusUpdate],
    ) -> Result<Vec<Option<herald_domain::status::StatusApplied>>, StoreError> {
        self.apply_statuses_together_query(updates).await
    }
}

/// Writes the rows of a batch's accepted items. Row by row: SQLite's statements run in-process, so there
/// is no round trip to save (and diesel-async has no multi-row insert for it, diesel_async#277).
async fn insert_accepted(conn: &mut Conn, items: &[&PreparedAccept]) -> Result<(), TxError> {
    for item in items {
        ports::messages::insert_accepted_row(conn, item).await?;
    }
    Ok(())
}

// ---- Status reports and customer events, row by row (the PostgreSQL store writes each set with one
// statement; SQLite's statements run in-process, so there is no round trip to save) ----

async fn update_statuses(conn: &mut Conn, columns: &[crate::rows::StatusColumns]) -> Result<(), TxError> {
    for row in columns {
        ports::tracking::update_status_row(conn, row).await?;
    }
    Ok(())
}

async fn insert_status_events(conn: &mut Conn, events: &[&crate::rows::EventRow]) -> Result<(), TxError> {
    for event in events {
        ports::shared::insert_status_event(conn, event).await?;
    }
    Ok(())
}

async fn insert_event_rows(
    conn: &mut Conn,
    events: &[&crate::rows::CustomerEventRow],
) -> Result<(), TxError> {
    for event in events {
        ports::shared::insert_event_row(conn, event).await?;
    }
    Ok(())
}

async fn insert_deliveries(
    conn: &mut Conn,
    deliveries: &[ports::shared::NewDelivery<'_>],
) -> Result<(), TxError> {
    for delivery in deliveries {
        ports::shared::insert_delivery(conn, delivery).await?;
    }
    Ok(())
}

async fn insert_callbacks(
    conn: &mut Conn,
    callbacks: &[(
        &herald_domain::dispatch::StoredCallback,
        Option<herald_domain::time::Timestamp>,
    )],
) -> Result<(), TxError> {
    for (callback, processed_at) in callbacks {
        ports::tracking::insert_callback(conn, callback, *processed_at).await?;
    }
    Ok(())
}
