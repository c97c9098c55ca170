//! PostgreSQL: `AsyncPgConnection` pooled by bb8.

mod arrays;
mod language;
mod prepared;
pub(crate) mod schema;

use crate::backend::{Admin, Backend, CustomerEventRecord, Keepalive, StoreOptions, pooled};
use crate::cached::Cached;
use crate::error::{TxError, from_pool};
use crate::group_commit::PreparedAccept;
use crate::notify::WorkNotifier;
use crate::rows::{ClaimedRow, DELIVERY_PENDING, IDEMPOTENCY_COMPLETED, JOB_IN_FLIGHT, JOB_PENDING};
use anyhow::Context;
use arrays::column;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::Connection;
use diesel::sql_types::{BigInt, Bool, Integer, Text, Timestamptz};
use diesel_async::async_connection_wrapper::AsyncConnectionWrapper;
use diesel_async::pooled_connection::bb8::{Pool, PooledConnection};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};
use futures::StreamExt;
use herald_domain::ids::OrganizationId;
use herald_domain::ports::StoreError;
use std::sync::OnceLock;
use std::time::Duration;

pub(crate) const MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/postgres");

/// Serializes concurrent `herald migrate` runs against one database (any constant, shared by all
/// Herald processes).
const MIGRATION_LOCK: i64 = 0x4865_7261_6c64_4d31;

/// The channel `accept` notifies and the work notifier listens on.
const WORK_CHANNEL: &str = "herald_outbox";

/// The channel the webhook fan-out (and re-queuing) notifies and the webhook notifier listens on.
const WEBHOOK_CHANNEL: &str = "herald_webhooks";

/// Serializes webhook claims (any constant, shared by all Herald processes): the per-endpoint cap counts
/// the live leases of other claims, which a concurrent claim's snapshot could not see.
const DELIVERY_CLAIM_LOCK: i64 = 0x4865_7261_6c64_5744;

type Conn = AsyncPgConnection;

/// Accept batches in flight at once per process: as configured, else one. Several overlap commits, but on the
/// 2-core bench machine they measured worse than one (docs/benchmarks-history.md, "Accept batches in
/// flight"): smaller batches each pay the per-organization quota upsert and the commit, and parallel batches
/// of one organization wait on its counter row anyway. Raise it where the database, not the CPU, is the wait.
fn accept_writers(options: &StoreOptions) -> usize {
    match options.accept_writers {
        0 => 1,
        n => n.min(usize::try_from(options.max_connections).unwrap_or(1).max(1)),
    }
}

/// Callback batches in flight at once: as configured, else four. When a callbacks batch applied its statuses
/// one after the other, one batch at a time was bound by round trips: one writer left the machine 22–41 %
/// idle in P3, four drained the callbacks at 1.6× its rate with less CPU per message
/// (docs/benchmarks-history.md, "Callback writers"). At most half the pool, so the API's own requests keep
/// the rest.
fn callback_writers(options: &StoreOptions) -> usize {
    const CALLBACK_WRITERS: usize = 4;
    let wanted = match options.callback_writers {
        0 => CALLBACK_WRITERS,
        n => n,
    };
    wanted.min(usize::try_from(options.max_connections / 2).unwrap_or(1).max(1))
}

/// The thread that writes the accept batches, on a runtime and a pool of its own (docs/benchmarks-history.md,
/// "A batch in one round trip of statements, on a thread of its own"). On the HTTP workers' runtimes a batch
/// waited its turn behind request handling at each of its round trips (the commit's answer, the next batch's
/// checkout), and a batch's cycle is what P1's rate is bound by; here it never waits for a request. Its
/// connections are made on this thread, so their socket tasks run here too.
struct BatchWriter {
    runtime: tokio::runtime::Handle,
    thread: std::thread::ThreadId,
    pool: tokio::sync::OnceCell<Pool<Conn>>,
    connections: u32,
    connect_timeout: Duration,
    /// Dropped with the store: the thread's runtime ends, and with it the pool.
    _stop: tokio::sync::oneshot::Sender<()>,
}

impl BatchWriter {
    fn start(connections: u32, connect_timeout: Duration) -> std::io::Result<Self> {
        let (started, handle) = std::sync::mpsc::channel();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        std::thread::Builder::new()
            .name("herald-accepts".to_owned())
            .spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build();
                let runtime = match runtime {
                    Ok(runtime) => runtime,
                    Err(error) => {
                        let _ = started.send(Err(error));
                        return;
                    }
                };
                let _ = started.send(Ok((runtime.handle().clone(), std::thread::current().id())));
                runtime.block_on(async {
                    let _ = stopped.await;
                });
            })?;
        let (runtime, thread) = handle
            .recv()
            .map_err(|_| std::io::Error::other("the accept writer's thread ended at start"))??;
        Ok(Self {
            runtime,
            thread,
            pool: tokio::sync::OnceCell::new(),
            connections,
            connect_timeout,
            _stop: stop,
        })
    }
}

/// The PostgreSQL store. One pool serves reads and writes (accept batches have their own, [`BatchWriter`]);
/// PostgreSQL handles concurrent writers.
pub(crate) struct Db {
    pool: Pool<Conn>,
    url: String,
    /// How its sessions start (`language`): every pool of the store opens them alike.
    sessions: language::Sessions,
    notifier: WorkNotifier,
    webhook_notifier: WorkNotifier,
    /// The LISTEN task, started by the first `work_notifier()` or `webhook_notifier()` call (`None`: there
    /// was no runtime).
    listener: OnceLock<Option<Listener>>,
    _keepalive: Keepalive,
    /// Accepts waiting to be committed together (see `crate::group_commit`).
    accepts: crate::group_commit::GroupCommit<crate::group_commit::PreparedAccept>,
    /// Where accept batches are written (`None`: on the caller's runtime, with the main pool).
    batch_writer: Option<BatchWriter>,
    /// Status callbacks waiting to be stored and applied together (see `crate::group_commit`).
    callbacks: crate::group_commit::GroupCommit<
        crate::group_commit::PreparedCallback,
        Option<herald_domain::status::StatusApplied>,
    >,
    /// The store's own handle, set once it is shared, so a batch can be written on a spawned task.
    pub(crate) this: std::sync::OnceLock<std::sync::Weak<Db>>,
}

/// The LISTEN task; it stops with the store.
struct Listener(tokio::task::JoinHandle<()>);

impl Drop for Listener {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl Db {
    pub(crate) async fn connect(
        url: &str,
        options: &StoreOptions,
        keepalive: Keepalive,
    ) -> anyhow::Result<Self> {
        // One real connection up front, so a wrong URL fails at start with the server's own message
        // instead of as pool timeouts later. The URL may hold a password: it is not in the message.
        let mut first = tokio::time::timeout(
            options.connect_timeout,
            <Conn as diesel_async::AsyncConnection>::establish(url),
        )
        .await
        .map_err(|_| anyhow::anyhow!("timed out after {:?}", options.connect_timeout))
        .and_then(|connected| connected.map_err(anyhow::Error::new))
        .context("cannot connect to PostgreSQL")?;
        let sessions = language::sessions(&mut first).await;
        let pool = Pool::builder()
            .max_size(options.max_connections.max(1))
            .connection_timeout(options.connect_timeout)
            .build(language::manager(url, sessions))
            .await
            .context("cannot build the PostgreSQL pool")?;
        let batch_writer = if options.group_commit {
            let connections = u32::try_from(accept_writers(options)).unwrap_or(1);
            Some(
                BatchWriter::start(connections, options.connect_timeout)
                    .context("cannot start the accept writer's thread")?,
            )
        } else {
            None
        };
        Ok(Self {
            pool,
            url: url.to_owned(),
            sessions,
            notifier: WorkNotifier::new(),
            webhook_notifier: WorkNotifier::new(),
            listener: OnceLock::new(),
            _keepalive: keepalive,
            accepts: crate::group_commit::GroupCommit::new(accept_writers(options))
                .on_runtime(batch_writer.as_ref().map(|w| w.runtime.clone())),
            batch_writer,
            callbacks: crate::group_commit::GroupCommit::new(callback_writers(options)).of_kind("callback"),
            this: std::sync::OnceLock::new(),
        })
    }

    /// After a committed accept: nothing to do here, the NOTIFY sent in the transaction reaches every
    /// process's listener (this one's included) at commit.
    fn work_committed(&self) {}

    fn start_listener(&self) -> Option<Listener> {
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => Some(Listener(runtime.spawn(listen(
                self.url.clone(),
                Notifiers {
                    work: self.notifier.clone(),
                    webhooks: self.webhook_notifier.clone(),
                },
            )))),
            Err(_) => {
                tracing::warn!("no Tokio runtime: dispatch wake-ups fall back to polling");
                None
            }
        }
    }

    async fn read(&self) -> Result<PooledConnection<'_, Conn>, StoreError> {
        pooled(&self.pool, "main").await.map_err(from_pool)
    }

    async fn write(&self) -> Result<PooledConnection<'_, Conn>, StoreError> {
        pooled(&self.pool, "main").await.map_err(from_pool)
    }

    /// A connection for an accept batch: the batch writer's own when on its thread, else the main pool's.
    async fn batch_write(&self) -> Result<PooledConnection<'_, Conn>, StoreError> {
        let Some(writer) = self
            .batch_writer
            .as_ref()
            .filter(|w| w.thread == std::thread::current().id())
        else {
            return self.write().await;
        };
        let pool = writer
            .pool
            .get_or_try_init(|| {
                Pool::builder()
                    .max_size(writer.connections.max(1))
                    .connection_timeout(writer.connect_timeout)
                    .build(language::manager(&self.url, self.sessions))
            })
            .await
            .map_err(|error| StoreError::Unavailable(format!("the accept writer's pool: {error}")))?;
        pooled(pool, "accepts").await.map_err(from_pool)
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
        write_tx!(@on $db, $db.write(), |$conn| $body)
    };
    // `$db` is unused here: PostgreSQL delivers an announcement (`NOTIFY`) at commit by itself.
    (@on $db:expr, $connection:expr, |$conn:ident| $body:expr) => {
        async {
            let mut pooled = $connection.await?;
            let connection: &mut Conn = &mut pooled;
            diesel_async::AsyncConnection::transaction::<_, TxError, _>(connection, async |$conn| $body).await
        }
        .await
    };
}

/// `query` with `FOR UPDATE`: the row stays locked until the transaction ends.
macro_rules! for_update {
    ($query:expr) => {
        $query.for_update()
    };
}

/// A message's last customer-event sequence, as [`last_event_sequences`] reads it.
#[derive(diesel::QueryableByName)]
struct LastSequence {
    #[diesel(sql_type = Text)]
    message_id: String,
    #[diesel(sql_type = Integer)]
    last: i32,
}

/// The last customer-event sequence of each of `ids` that has events (the status path's numbering).
///
/// Planned on every call (`sql_query` is never cached), unlike the store's other statements: a connection
/// keeps the generic plan PostgreSQL made for a cached statement until the table is next analyzed, and one
/// made while `events` was small scans the whole table. On a young database (a new install, the first minute
/// of a benchmark) that plan scanned a growing `events` table for every status batch: 2–7 ms a call, more
/// than a core of PostgreSQL at 200 messages/s (docs/benchmarks-history.md, "A stale generic plan in the
/// status path"). A fresh plan sees the table's current size and takes `events_by_message`; planning it costs
/// tens of microseconds.
async fn last_event_sequences(
    conn: &mut Conn,
    ids: &[String],
) -> Result<std::collections::HashMap<String, i32>, TxError> {
    let rows = diesel::sql_query(
        "SELECT message_id, max(sequence) AS last FROM events WHERE message_id = ANY($1) \
         GROUP BY message_id",
    )
    .bind::<diesel::sql_types::Array<Text>, _>(ids)
    .load::<LastSequence>(conn)
    .await?;
    Ok(rows.into_iter().map(|row| (row.message_id, row.last)).collect())
}

/// A claimed job with its old values, as the claiming statement returns it.
#[derive(diesel::QueryableByName)]
struct ClaimedByName {
    #[diesel(sql_type = Text)]
    id: String,
    #[diesel(sql_type = Text)]
    organization_id: String,
    #[diesel(sql_type = Text)]
    message_id: String,
    #[diesel(sql_type = Integer)]
    attempts: i32,
    #[diesel(sql_type = Timestamptz)]
    deadline: DateTime<Utc>,
    #[diesel(sql_type = Text)]
    old_state: String,
    #[diesel(sql_type = Integer)]
    old_attempts: i32,
    #[diesel(sql_type = Bool)]
    old_awaiting: bool,
}

/// Leases up to `limit` due jobs in ONE statement, a fair share per sender: each sender with due jobs gets
/// at most `max(1, limit / senders with due jobs)` of its oldest, so one sender's backlog cannot fill the
/// batch while other senders wait (see `claim_jobs` in `ports/outbox.rs`).
///
/// `open_senders` walks the distinct senders with open jobs through `outbox_open_by_sender` (a loose index
/// scan: one index probe per sender, however long a backlog is); `due_senders` keeps those with a due job;
/// `due` takes each one's share, oldest first, through a `LATERAL` subquery on the same index, and keeps the
/// oldest `limit` of them (more than `limit` only when there are more due senders than `limit`); a sender's
/// share is also capped at what it can send within the lease (`sender_claim_cap`, the same formula). `SKIP
/// LOCKED` lets any number of workers claim at once without waiting on each other or taking the same row;
/// a row another claim just took is re-checked on its new version and left out. The CTE keeps each row's
/// old values, which say what happened to the job before (the `RETURNING` list of an `UPDATE` sees only
/// the new ones).
async fn claim_due(
    conn: &mut Conn,
    token: &str,
    now: DateTime<Utc>,
    lease_until: DateTime<Utc>,
    limit: i64,
) -> Result<Vec<ClaimedRow>, TxError> {
    // Repeats the index's predicate, so that the planner may use it.
    let open = format!("state IN ('{JOB_PENDING}', '{JOB_IN_FLIGHT}')");
    // Every due job's `available_at` has passed (an in-flight one was claimed once it had), so the leading
    // bound is redundant but makes it the index range's upper end: a sender's probe stops at its first job
    // not due, however many scheduled jobs wait behind it (docs/internals.md, "Scheduled sends").
    let due = format!(
        "o.available_at <= $1 AND ((o.state = '{JOB_PENDING}' AND o.available_at <= $1) \
          OR (o.state = '{JOB_IN_FLIGHT}' AND o.lease_until < $1))"
    );
    let rows = diesel::sql_query(format!(
        "WITH RECURSIVE open_senders (sender_id) AS ( \
             (SELECT sender_id FROM outbox WHERE {open} ORDER BY sender_id LIMIT 1) \
             UNION ALL \
             SELECT (SELECT o.sender_id FROM outbox o WHERE o.{open} AND o.sender_id > s.sender_id \
                     ORDER BY o.sender_id LIMIT 1) \
             FROM open_senders s WHERE s.sender_id IS NOT NULL \
         ), due_senders AS ( \
             SELECT s.sender_id FROM open_senders s CROSS JOIN LATERAL ( \
                 SELECT 1 FROM outbox o WHERE o.sender_id = s.sender_id AND o.{open} AND {due} LIMIT 1 \
             ) d \
             WHERE s.sender_id IS NOT NULL \
         ), share AS ( \
             SELECT GREATEST(1, $2 / NULLIF(COUNT(*), 0)) AS per_sender FROM due_senders \
         ), due AS ( \
             SELECT c.id, c.old_state, c.old_attempts, c.old_awaiting \
             FROM due_senders s JOIN senders se ON se.id = s.sender_id CROSS JOIN share CROSS JOIN LATERAL ( \
                 SELECT o.id, o.available_at, o.state AS old_state, o.attempts AS old_attempts, \
                     o.awaiting_callback AS old_awaiting \
                 FROM outbox o \
                 WHERE o.sender_id = s.sender_id AND o.{open} AND {due} \
                 ORDER BY o.available_at, o.id \
                 LIMIT LEAST(share.per_sender, GREATEST(1, se.throughput_per_second::bigint * $5 / 1000)) \
                 FOR UPDATE SKIP LOCKED \
             ) c \
             ORDER BY c.available_at, c.id \
             LIMIT $2 \
         ) \
         UPDATE outbox SET state = '{JOB_IN_FLIGHT}', claim_token = $3, lease_until = $4, \
             attempts = outbox.attempts + 1, awaiting_callback = false, updated_at = $1 \
         FROM due WHERE outbox.id = due.id \
         RETURNING outbox.id, outbox.organization_id, outbox.message_id, outbox.attempts, outbox.deadline, \
             due.old_state, due.old_attempts, due.old_awaiting"
    ))
    .bind::<Timestamptz, _>(now)
    .bind::<BigInt, _>(limit)
    .bind::<Text, _>(token)
    .bind::<Timestamptz, _>(lease_until)
    .bind::<BigInt, _>((lease_until - now).num_milliseconds().max(0))
    .load::<ClaimedByName>(conn)
    .await?;
    let mut claimed: Vec<ClaimedRow> = rows
        .into_iter()
        .map(|row| ClaimedRow {
            id: row.id,
            organization_id: row.organization_id,
            message_id: row.message_id,
            attempts: row.attempts,
            deadline: row.deadline,
            old_state: row.old_state,
            old_attempts: row.old_attempts,
            old_awaiting: row.old_awaiting,
        })
        .collect();
    // RETURNING has no order; keep the outbox's (ids are time-ordered).
    claimed.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(claimed)
}

/// Inside `accept`'s transaction: delivered to every listener when (and only if) it commits.
async fn announce_work(conn: &mut Conn) -> Result<(), TxError> {
    work_notice(conn).await?;
    Ok(())
}

/// The statement of [`announce_work`], sent (pipelined) but not awaited.
fn work_notice(mut conn: &Conn) -> Sent<'_> {
    // Constant text, so it stays prepared like the inserts around it.
    prepared::fixed("SELECT pg_notify($1, '')")
        .bind::<Text, _>(WORK_CHANNEL)
        .execute(&mut conn)
}

/// Inside a transaction that made deliveries due: delivered to every listener at commit.
async fn announce_webhooks(conn: &mut Conn) -> Result<(), TxError> {
    Cached(diesel::sql_query(format!(
        "SELECT pg_notify('{WEBHOOK_CHANNEL}', '')"
    )))
    .execute(conn)
    .await?;
    Ok(())
}

/// The class of the advisory locks that serialize template syncs: the first key of the two-key form, which
/// PostgreSQL keeps apart from the one-key locks above (any constant, shared by all Herald processes).
const TEMPLATE_SYNC_LOCK_CLASS: i32 = 0x4854_5379;

/// Inside a template sync's transaction: waits for any other sync of the same organization and business
/// account to commit, so that the second reads the first's rows and replaces them instead of inserting
/// beside them (two syncs started together would otherwise both find no row and collide on the table's
/// unique key). Released at commit or rollback.
async fn lock_template_sync(conn: &mut Conn, organization: &str, waba_id: &str) -> Result<(), TxError> {
    diesel::sql_query("SELECT pg_advisory_xact_lock($1, hashtext($2))")
        .bind::<Integer, _>(TEMPLATE_SYNC_LOCK_CLASS)
        .bind::<Text, _>(format!("{organization}/{waba_id}"))
        .execute(conn)
        .await?;
    Ok(())
}

/// A claimed delivery's id, as the claiming statement returns it.
#[derive(diesel::QueryableByName)]
struct ClaimedDeliveryId {
    #[diesel(sql_type = Text)]
    id: String,
}

/// Leases up to `limit` due deliveries, at most `cap` live leases per endpoint. Each endpoint's due
/// deliveries are read up to the room beside its live leases and locked with `SKIP LOCKED` (a row being
/// completed or redelivered is left for the next round instead of waited for), their due condition re-checked
/// on the locked version. Claims are serialized by a transaction-level advisory lock, so the live-lease count
/// each one reads includes every earlier claim and the cap holds across processes. Both statements stay
/// prepared ([`Cached`]): parsing and planning the claim took about 0.9 ms of the 2 ms each claim held that
/// lock. (Holding it for less, with an asynchronous commit and the read after it, measured 0.97×: the rate is
/// bound by a slot's whole cycle, docs/benchmarks-history.md, "Successes recorded by one statement".)
async fn claim_due_deliveries(
    conn: &mut Conn,
    token: &str,
    now: DateTime<Utc>,
    lease_until: DateTime<Utc>,
    limit: i64,
    cap: i64,
) -> Result<Vec<String>, TxError> {
    Cached(diesel::sql_query(format!(
        "SELECT pg_advisory_xact_lock({DELIVERY_CLAIM_LOCK})"
    )))
    .execute(conn)
    .await?;
    // Per endpoint, not over the whole backlog: walk the endpoints that have pending deliveries (an index
    // skip scan), give each enabled one its room under the cap (its live leases counted from a small
    // partial index), and read that many of its oldest due deliveries from its index; the oldest `limit`
    // of those are claimed, found by primary key (a join with the CTE would be planned as a scan of the
    // table). A claim so costs the endpoints and the cap, however deep the backlog.
    let pending = format!("status = '{DELIVERY_PENDING}'");
    let rows = Cached(
        diesel::sql_query(format!(
            "WITH RECURSIVE pending_endpoints (endpoint_id) AS ( \
             (SELECT endpoint_id FROM webhook_deliveries WHERE {pending} ORDER BY endpoint_id LIMIT 1) \
             UNION ALL \
             SELECT (SELECT d.endpoint_id FROM webhook_deliveries d \
                     WHERE d.{pending} AND d.endpoint_id > p.endpoint_id ORDER BY d.endpoint_id LIMIT 1) \
             FROM pending_endpoints p WHERE p.endpoint_id IS NOT NULL \
         ), room AS ( \
             SELECT p.endpoint_id, $2 - ( \
                 SELECT COUNT(*) FROM webhook_deliveries l \
                 WHERE l.endpoint_id = p.endpoint_id AND l.{pending} AND l.claim_token IS NOT NULL \
                     AND l.lease_until >= $1 \
             ) AS free \
             FROM pending_endpoints p JOIN webhook_endpoints e ON e.id = p.endpoint_id \
             WHERE e.enabled \
         ), chosen AS ( \
             SELECT c.id FROM room r CROSS JOIN LATERAL ( \
                 SELECT d.id, d.next_attempt_at FROM webhook_deliveries d \
                 WHERE d.endpoint_id = r.endpoint_id AND d.{pending} AND d.next_attempt_at <= $1 \
                     AND (d.claim_token IS NULL OR d.lease_until < $1) \
                 ORDER BY d.next_attempt_at, d.id \
                 LIMIT GREATEST(r.free, 0) \
                 FOR UPDATE SKIP LOCKED \
             ) c \
             ORDER BY c.next_attempt_at, c.id \
             LIMIT $3 \
         ) \
         UPDATE webhook_deliveries SET claim_token = $4, lease_until = $5, updated_at = $1 \
         WHERE id = ANY(ARRAY(SELECT id FROM chosen)) \
         RETURNING id"
        ))
        .bind::<Timestamptz, _>(now)
        .bind::<BigInt, _>(cap)
        .bind::<BigInt, _>(limit)
        .bind::<Text, _>(token)
        .bind::<Timestamptz, _>(lease_until),
    )
    .load::<ClaimedDeliveryId>(conn)
    .await?;
    Ok(rows.into_iter().map(|row| row.id).collect())
}

/// A delivery the batched recording found held by its completion's token: its id, that token, its endpoint.
#[derive(diesel::QueryableByName)]
struct RecordedAttempt {
    #[diesel(sql_type = Text)]
    id: String,
    #[diesel(sql_type = Text)]
    token: String,
    #[diesel(sql_type = Text)]
    endpoint_id: String,
}

/// A completion of a batch with its place in the batch and its (delivery, token) key.
type Placed<'a> = (
    usize,
    &'a herald_domain::webhook::DeliveryCompletion,
    (String, String),
);

/// The first completion of each (delivery, token) in `completions`: a repeat can no longer hold its
/// delivery, so it is neither written nor answered `true`.
fn first_of_each(completions: &[herald_domain::webhook::DeliveryCompletion]) -> Vec<Placed<'_>> {
    let mut seen = std::collections::HashSet::new();
    completions
        .iter()
        .enumerate()
        .map(|(place, c)| (place, c, (c.delivery_id.to_string(), c.token.as_string())))
        .filter(|(_, _, key)| seen.insert(key.clone()))
        .collect()
}

/// Per completion, in order, the endpoint of its delivery when the statement found it held by its token
/// (`recorded`), else `None`.
fn answers_in_order(
    count: usize,
    unique: &[Placed<'_>],
    recorded: Vec<RecordedAttempt>,
) -> Vec<Option<String>> {
    let mut held: std::collections::HashMap<(String, String), String> = recorded
        .into_iter()
        .map(|row| ((row.id, row.token), row.endpoint_id))
        .collect();
    let mut answers = vec![None; count];
    for (place, _, key) in unique {
        if let (Some(endpoint), Some(answer)) = (held.remove(key), answers.get_mut(*place)) {
            *answer = Some(endpoint);
        }
    }
    answers
}

/// Records a batch of attempts that all succeeded with ONE statement outside any explicit transaction (one
/// statement is atomic on its own): the deliveries' new state, their attempts, and the end of their
/// endpoints' failing streaks. A recording is what gives a webhook loop's slots back, and as a transaction it
/// took six round trips (the pool's check, `BEGIN`, three statements, `COMMIT`): 2.0 ms per recording of
/// about two attempts while draining, 40 % of a slot's cycle (docs/benchmarks-history.md, "Successes recorded
/// by one statement"). Answers `None`, with nothing written, when an attempt failed or disables its endpoint:
/// those need the endpoint's health decided attempt by attempt, in a transaction (`record_attempts_together`,
/// then the health). The failing endpoints are locked in id order, as the transaction writes them, so
/// concurrent recordings cannot deadlock.
async fn record_successes_at_once(
    db: &Db,
    completions: &[herald_domain::webhook::DeliveryCompletion],
) -> Result<Option<Vec<bool>>, StoreError> {
    use crate::error::{corrupt, from_diesel};
    use crate::rows::to_i32;
    use diesel::sql_types::{Array, Nullable};
    if completions
        .iter()
        .any(|c| c.failing_since.is_some() || c.disable_reason.is_some())
    {
        return Ok(None);
    }
    let unique = first_of_each(completions);
    let attempts: Vec<_> = unique.iter().map(|(_, c, _)| &c.attempt).collect();
    let numbers = attempts
        .iter()
        .map(|a| to_i32("attempt number", a.number))
        .collect::<Result<Vec<_>, _>>()?;
    let durations = attempts
        .iter()
        .map(|a| i64::try_from(a.duration_ms).map_err(|e| corrupt("attempt duration", e)))
        .collect::<Result<Vec<_>, _>>()?;
    let mut conn = db.write().await?;
    let recorded = Cached(
        diesel::sql_query(format!(
            "WITH i AS ( \
                 SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int4[], $5::timestamptz[], \
                     $6::timestamptz[], $7::int4[], $8::text[], $9::text[], $10::int8[]) \
                 AS i (id, token, status, number, next_at, at, status_code, response_prefix, error_kind, \
                     duration_ms) \
             ), held AS ( \
                 UPDATE webhook_deliveries d SET status = i.status, attempts = i.number, \
                     next_attempt_at = i.next_at, claim_token = NULL, lease_until = NULL, updated_at = i.at \
                 FROM i WHERE d.id = i.id AND d.claim_token = i.token AND d.status = '{DELIVERY_PENDING}' \
                 RETURNING d.id, i.token, d.endpoint_id \
             ), written AS ( \
                 INSERT INTO webhook_attempts \
                     (delivery_id, number, at, status_code, response_prefix, error_kind, duration_ms) \
                 SELECT i.id, i.number, i.at, i.status_code, i.response_prefix, i.error_kind, i.duration_ms \
                 FROM i JOIN held h ON h.id = i.id AND h.token = i.token \
             ), recovered AS ( \
                 UPDATE webhook_endpoints e SET failing_since = NULL \
                 WHERE e.id IN ( \
                     SELECT f.id FROM webhook_endpoints f \
                     WHERE f.id IN (SELECT endpoint_id FROM held) AND f.failing_since IS NOT NULL \
                     ORDER BY f.id FOR UPDATE \
                 ) \
             ) \
             SELECT id, token, endpoint_id FROM held"
        ))
        .bind::<Array<Text>, _>(column(&unique, |(_, _, key)| key.0.as_str()))
        .bind::<Array<Text>, _>(column(&unique, |(_, _, key)| key.1.as_str()))
        .bind::<Array<Text>, _>(column(&unique, |(_, c, _)| c.status.as_str()))
        .bind::<Array<Integer>, _>(&numbers)
        .bind::<Array<Nullable<Timestamptz>>, _>(column(&unique, |(_, c, _)| c.next_attempt_at))
        .bind::<Array<Timestamptz>, _>(column(&attempts, |a| a.at))
        .bind::<Array<Nullable<Integer>>, _>(column(&attempts, |a| a.status_code.map(i32::from)))
        .bind::<Array<Text>, _>(column(&attempts, |a| a.response_prefix.as_str()))
        .bind::<Array<Nullable<Text>>, _>(column(&attempts, |a| a.error_kind.as_deref()))
        .bind::<Array<BigInt>, _>(&durations),
    )
    .load::<RecordedAttempt>(&mut *conn)
    .await
    .map_err(from_diesel)?;
    Ok(Some(
        answers_in_order(completions.len(), &unique, recorded)
            .into_iter()
            .map(|endpoint| endpoint.is_some())
            .collect(),
    ))
}

/// Records a round's attempts with one `UPDATE … FROM unnest(…)` and one `INSERT … SELECT unnest(…)`,
/// whatever their number, instead of two statements each: PostgreSQL was waiting on the worker between
/// statements of the open transaction (`ClientRead`) more than on anything but the commit's flush
/// (docs/benchmarks-history.md, "What bounds P4, and the slot handoff"). Answers, per completion in order,
/// the delivery's endpoint when its token held it, exactly as recording them one by one would: a delivery
/// completed twice in the batch under the same token is recorded once, for its first completion.
async fn record_attempts_together(
    conn: &mut Conn,
    completions: &[herald_domain::webhook::DeliveryCompletion],
) -> Result<Option<Vec<Option<String>>>, TxError> {
    use crate::error::corrupt;
    use crate::rows::to_i32;
    use diesel::sql_types::{Array, Nullable};
    let unique = first_of_each(completions);
    let numbers = unique
        .iter()
        .map(|(_, c, _)| to_i32("attempt number", c.attempt.number))
        .collect::<Result<Vec<_>, _>>()?;
    let updated = Cached(
        diesel::sql_query(format!(
            "UPDATE webhook_deliveries d SET status = i.status, attempts = i.number, \
             next_attempt_at = i.next_at, claim_token = NULL, lease_until = NULL, updated_at = i.at \
         FROM unnest($1::text[], $2::text[], $3::text[], $4::int4[], $5::timestamptz[], $6::timestamptz[]) \
             AS i (id, token, status, number, next_at, at) \
         WHERE d.id = i.id AND d.claim_token = i.token AND d.status = '{DELIVERY_PENDING}' \
         RETURNING d.id, i.token, d.endpoint_id"
        ))
        .bind::<Array<Text>, _>(
            unique
                .iter()
                .map(|(_, _, key)| key.0.as_str())
                .collect::<Vec<_>>(),
        )
        .bind::<Array<Text>, _>(
            unique
                .iter()
                .map(|(_, _, key)| key.1.as_str())
                .collect::<Vec<_>>(),
        )
        .bind::<Array<Text>, _>(
            unique
                .iter()
                .map(|(_, c, _)| c.status.as_str())
                .collect::<Vec<_>>(),
        )
        .bind::<Array<Integer>, _>(&numbers)
        .bind::<Array<Nullable<Timestamptz>>, _>(
            unique
                .iter()
                .map(|(_, c, _)| c.next_attempt_at)
                .collect::<Vec<_>>(),
        )
        .bind::<Array<Timestamptz>, _>(unique.iter().map(|(_, c, _)| c.attempt.at).collect::<Vec<_>>()),
    )
    .load::<RecordedAttempt>(conn)
    .await?;
    let answers = answers_in_order(completions.len(), &unique, updated);
    let written: Vec<_> = unique
        .iter()
        .filter(|(place, _, _)| answers.get(*place).is_some_and(Option::is_some))
        .map(|(_, completion, key)| (key.0.as_str(), &completion.attempt))
        .collect();
    if !written.is_empty() {
        let durations = written
            .iter()
            .map(|(_, a)| i64::try_from(a.duration_ms).map_err(|e| corrupt("attempt duration", e)))
            .collect::<Result<Vec<_>, _>>()?;
        let numbers = written
            .iter()
            .map(|(_, a)| to_i32("attempt number", a.number))
            .collect::<Result<Vec<_>, _>>()?;
        Cached(
            diesel::sql_query(
                "INSERT INTO webhook_attempts \
                 (delivery_id, number, at, status_code, response_prefix, error_kind, duration_ms) \
             SELECT * FROM unnest($1::text[], $2::int4[], $3::timestamptz[], $4::int4[], $5::text[], \
                 $6::text[], $7::int8[])",
            )
            .bind::<Array<Text>, _>(written.iter().map(|(id, _)| *id).collect::<Vec<_>>())
            .bind::<Array<Integer>, _>(&numbers)
            .bind::<Array<Timestamptz>, _>(written.iter().map(|(_, a)| a.at).collect::<Vec<_>>())
            .bind::<Array<Nullable<Integer>>, _>(
                written
                    .iter()
                    .map(|(_, a)| a.status_code.map(i32::from))
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<Text>, _>(
                written
                    .iter()
                    .map(|(_, a)| a.response_prefix.as_str())
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<Nullable<Text>>, _>(
                written
                    .iter()
                    .map(|(_, a)| a.error_kind.as_deref())
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<BigInt>, _>(&durations),
        )
        .execute(conn)
        .await?;
    }
    Ok(Some(answers))
}

/// The notifiers the LISTEN connection wakes, one per channel.
struct Notifiers {
    work: WorkNotifier,
    webhooks: WorkNotifier,
}

/// Listens for new work for as long as the store lives, reconnecting after errors with a growing pause.
async fn listen(url: String, notifier: Notifiers) {
    let mut pause = Duration::from_secs(1);
    loop {
        match listen_once(&url, &notifier).await {
            Ok(()) => pause = Duration::from_secs(1),
            Err(error) => {
                tracing::warn!(error = %format!("{error:#}"), "dispatch wake-ups lost their connection; reconnecting");
            }
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(Duration::from_secs(30));
    }
}

/// One listening connection, until it fails. `Ok` when it had been listening (so the next try starts
/// with a short pause), `Err` when it could not even start.
async fn listen_once(url: &str, notifier: &Notifiers) -> anyhow::Result<()> {
    use diesel_async::{AsyncConnection, SimpleAsyncConnection};
    let mut conn = AsyncPgConnection::establish(url)
        .await
        .context("cannot connect to PostgreSQL")?;
    conn.batch_execute(&format!("LISTEN {WORK_CHANNEL}; LISTEN {WEBHOOK_CHANNEL}"))
        .await
        .context("LISTEN failed")?;
    // Work made while no connection listened announced itself to nobody: let the workers look now.
    notifier.work.wake();
    notifier.webhooks.wake();
    let mut notifications = std::pin::pin!(conn.notifications_stream());
    while let Some(notification) = notifications.next().await {
        match notification {
            Ok(notification) if notification.channel == WEBHOOK_CHANNEL => notifier.webhooks.wake(),
            Ok(_) => notifier.work.wake(),
            Err(error) => {
                tracing::warn!(%error, "dispatch wake-up connection failed");
                return Ok(());
            }
        }
    }
    Ok(())
}

crate::ports::port_impls!();

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

    fn work_notifier(&self) -> WorkNotifier {
        self.listener.get_or_init(|| self.start_listener());
        self.notifier.clone()
    }

    fn webhook_notifier(&self) -> WorkNotifier {
        self.listener.get_or_init(|| self.start_listener());
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

// ---- Group commit of accepts (see `crate::group_commit`) ----

/// A statement sent on a connection shared by a pipeline, not yet answered.
type Sent<'a> = futures::future::BoxFuture<'a, diesel::QueryResult<usize>>;

/// Awaits statements made on one connection (`Sent`, each made with `&mut &Conn`): PostgreSQL receives each
/// as soon as it is made, before the first answer comes back, and runs them in the order they were made, so
/// N statements cost one round trip instead of N. Each is awaited, so none is abandoned in flight; the first
/// error is the answer (in a transaction, the statements after a failed one fail too).
async fn pipelined(statements: Vec<Sent<'_>>) -> Result<Vec<usize>, TxError> {
    futures::future::join_all(statements)
        .await
        .into_iter()
        .map(|answer| answer.map_err(TxError::from))
        .collect()
}

/// Writes an ordinary batch of accepts (sorted by organization and period) in ONE transaction whose
/// statements are pipelined: the idempotency claims' check, the recipients' contacts, the rows
/// ([`accepted_rows`]), the dispatchers' notice and the quota of every run, all sent before the first answer
/// is read, so a batch costs three round trips (the pool's check; `BEGIN` and the statements; `COMMIT`)
/// instead of one per statement, about sixteen with eight organizations. The quota is charged
/// by one upsert of every run, last, so the counter rows stay locked only until the commit.
///
/// `BEGIN` goes in the same round trip as the statements, as a statement of the pipeline rather than through
/// diesel's transaction manager (which waits for its answer): made first, it is sent first, and PostgreSQL
/// runs what follows in its transaction. If it failed, everything after it fails too: the only ways it can
/// fail (a lost connection, a transaction already aborted) fail every statement that follows it.
///
/// The batch is ordinary when nothing in it needs deciding item by item; the answers tell whether it was:
/// every claim still held, no recipient refusing its send, every run charged whole. When one is not, the
/// transaction rolls back and `None` hands the batch to the statement-by-statement path (`write_batch`),
/// which answers each item. `None` too, without a transaction, for what that path alone writes: a customer
/// event (a scheduled message's), a run longer than its quota.
async fn accept_batch_pipelined(
    db: &Db,
    items: &[&PreparedAccept],
) -> Option<Result<Vec<herald_domain::ports::AcceptOutcome>, TxError>> {
    use crate::group_commit::{RecipientKeys, recipient_refusals_among, refusing_contacts};
    use crate::rows::ContactRow;
    use diesel::{BoolExpressionMethods, ExpressionMethods, QueryDsl, SelectableHelper};
    use schema::contacts;
    if items.iter().any(|item| item.customer_event.is_some()) {
        return None;
    }
    // Each (organization, period) run: its length and the lowest ceiling of its items.
    let runs: Vec<(&str, &str, i64, i64)> = items
        .chunk_by(|a, b| a.message.organization_id == b.message.organization_id && a.period == b.period)
        .filter_map(|run| {
            let first = run.first()?;
            let ceiling = run.iter().map(|item| item.ceiling).min().unwrap_or(i64::MAX);
            let length = i64::try_from(run.len()).unwrap_or(i64::MAX);
            Some((
                first.message.organization_id.as_str(),
                first.period.as_str(),
                length,
                ceiling,
            ))
        })
        .collect();
    if runs.iter().any(|&(_, _, length, ceiling)| length > ceiling) {
        return None;
    }
    let keyed: Vec<&&PreparedAccept> = items.iter().filter(|i| i.idempotency_key.is_some()).collect();
    let mut pooled = match db.batch_write().await {
        Ok(pooled) => pooled,
        Err(error) => return Some(Err(error.into())),
    };
    pipelined_transaction_open(&mut pooled, true);
    let written = async {
        let mut shared: &Conn = &pooled;
        // `BEGIN` is made first, so it is sent first: every statement after it is in its transaction.
        let begin = prepared::fixed("BEGIN").execute(&mut shared);
        let claims = (!keyed.is_empty()).then(|| held_claims(shared, &keyed));
        let contacts =
            RecipientKeys::of(items).map(|keys| refusing_contacts!(keys).load::<ContactRow>(&mut shared));
        let mut statements = accepted_rows(shared, items);
        statements.push(work_notice(shared));
        statements.push(
            prepared::fixed(
                "WITH r AS (SELECT * FROM UNNEST($1::text[], $2::text[], $3::int8[], $4::int8[]) WITH ORDINALITY \
                 AS r(org, period, run, ceiling, n)) \
                 INSERT INTO usage_counters (organization_id, period, count) \
                 SELECT org, period, run FROM r ORDER BY n \
                 ON CONFLICT (organization_id, period) DO UPDATE SET count = usage_counters.count + excluded.count \
                 WHERE usage_counters.count <= (SELECT r.ceiling - r.run FROM r \
                 WHERE r.org = excluded.organization_id AND r.period = excluded.period)",
            )
            .bind::<diesel::sql_types::Array<Text>, _>(column(&runs, |run| run.0))
            .bind::<diesel::sql_types::Array<Text>, _>(column(&runs, |run| run.1))
            .bind::<diesel::sql_types::Array<BigInt>, _>(column(&runs, |run| run.2))
            .bind::<diesel::sql_types::Array<BigInt>, _>(column(&runs, |run| run.3))
            .execute(&mut shared),
        );
        let (begun, claims, contacts, counts) = futures::join!(
            begin,
            futures::future::OptionFuture::from(claims),
            futures::future::OptionFuture::from(contacts),
            pipelined(statements)
        );
        begun?;
        let claims_held = claims.transpose()?.is_none_or(|held| held == keyed.len());
        let contacts = contacts
            .transpose()?
            .unwrap_or_default()
            .into_iter()
            .map(herald_domain::contact::Contact::try_from)
            .collect::<Result<Vec<_>, StoreError>>()?;
        let counts = counts?;
        let charged = counts.last().copied() == Some(runs.len());
        let refused = recipient_refusals_among(items, &contacts)
            .iter()
            .any(Option::is_some);
        if claims_held && charged && !refused {
            Ok(vec![herald_domain::ports::AcceptOutcome::Accepted; items.len()])
        } else {
            Err(TxError::StepByStep)
        }
    }
    .await;
    let end = if written.is_ok() { "COMMIT" } else { "ROLLBACK" };
    if let Err(error) = prepared::fixed(end).execute(&mut &*pooled).await {
        // The transaction's outcome is unknown, and the connection may still be in it: it stays marked.
        return Some(Err(error.into()));
    }
    pipelined_transaction_open(&mut pooled, false);
    match written {
        Err(TxError::StepByStep) => None,
        written => Some(written),
    }
}

/// Tells diesel's transaction state, which does not see a `BEGIN` sent as a statement, whether the connection
/// is in such a transaction: marked broken while it is open, so a connection dropped with the transaction
/// still open (its batch's task ended between `BEGIN` and `COMMIT`, or the end failed) is closed by the pool
/// instead of being handed out again; valid once it has ended.
fn pipelined_transaction_open(conn: &mut Conn, open: bool) {
    use diesel_async::TransactionManager as _;
    let state = diesel_async::AnsiTransactionManager::transaction_manager_status_mut(conn);
    if open {
        state.set_in_error();
    } else {
        *state = Default::default();
    }
}

/// How many of `keyed`'s idempotency claims are still held by their request (pending, under its token),
/// as the statement-by-statement path's `claim_held` checks one by one.
fn held_claims<'a>(mut conn: &'a Conn, keyed: &[&&PreparedAccept]) -> Sent<'a> {
    use diesel::sql_types::Array;
    prepared::fixed(
        "UPDATE idempotency_keys AS k SET locked_at = k.locked_at \
         FROM UNNEST($1::text[], $2::text[], $3::text[]) AS u(org, key, token) \
         WHERE k.organization_id = u.org AND k.key = u.key AND k.state = $4 AND k.claim_token = u.token",
    )
    .bind::<Array<Text>, _>(column(keyed, |i| i.message.organization_id.as_str()))
    .bind::<Array<Text>, _>(column(keyed, |i| {
        i.idempotency_key.as_deref().unwrap_or_default()
    }))
    .bind::<Array<Text>, _>(column(keyed, |i| {
        i.idempotency_token.as_deref().unwrap_or_default()
    }))
    .bind::<Text, _>(crate::rows::IDEMPOTENCY_PENDING)
    .execute(&mut conn)
}

/// Writes the rows of a batch's accepted items: one statement per table, whatever the batch size (the
/// columns bound as arrays and unnested), all sent together (pipelined), so a batch's rows cost one round
/// trip.
async fn insert_accepted(conn: &mut Conn, items: &[&PreparedAccept]) -> Result<(), TxError> {
    pipelined(accepted_rows(conn, items)).await.map(drop)
}

/// The statements of [`insert_accepted`], sent (pipelined) but not awaited.
fn accepted_rows<'a>(mut conn: &'a Conn, items: &[&PreparedAccept]) -> Vec<Sent<'a>> {
    use diesel::sql_types::{Array, Nullable};
    let mut sent = Vec::with_capacity(4);
    // Borrowed: a statement's binds are serialized when it is made, before this returns.
    let m = |f: fn(&PreparedAccept) -> &str| column(items, |i| f(i));
    let mo = |f: fn(&PreparedAccept) -> Option<&str>| column(items, |i| f(i));
    let ids = |f: fn(&PreparedAccept) -> String| column(items, |i| f(i));
    let mt = |f: fn(&PreparedAccept) -> DateTime<Utc>| column(items, |i| f(i));
    let mto = |f: fn(&PreparedAccept) -> Option<DateTime<Utc>>| column(items, |i| f(i));
    let messages = prepared::fixed(
        "INSERT INTO messages (id, organization_id, sender_id, from_number, to_number, message_type, content, \
         client_reference, status, network_message_id, error, created_at, updated_at, accepted_at, submitted_at, \
         sent_at, delivered_at, read_at, failed_at, trace_context, scheduled_for, broadcast_id) \
         SELECT * FROM UNNEST($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], \
         $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::timestamptz[], $13::timestamptz[], \
         $14::timestamptz[], $15::timestamptz[], $16::timestamptz[], $17::timestamptz[], $18::timestamptz[], \
         $19::timestamptz[], $20::text[], $21::timestamptz[], $22::text[])",
    )
    .bind::<Array<Text>, _>(m(|i| i.message.id.as_str()))
    .bind::<Array<Text>, _>(m(|i| i.message.organization_id.as_str()))
    .bind::<Array<Text>, _>(m(|i| i.message.sender_id.as_str()))
    .bind::<Array<Text>, _>(m(|i| i.message.from_number.as_str()))
    .bind::<Array<Text>, _>(m(|i| i.message.to_number.as_str()))
    .bind::<Array<Text>, _>(m(|i| i.message.message_type.as_str()))
    .bind::<Array<Text>, _>(m(|i| i.message.content.as_str()))
    .bind::<Array<Nullable<Text>>, _>(mo(|i| i.message.client_reference.as_deref()))
    .bind::<Array<Text>, _>(m(|i| i.message.status.as_str()))
    .bind::<Array<Nullable<Text>>, _>(mo(|i| i.message.network_message_id.as_deref()))
    .bind::<Array<Nullable<Text>>, _>(mo(|i| i.message.error.as_deref()))
    .bind::<Array<Timestamptz>, _>(mt(|i| i.message.created_at))
    .bind::<Array<Timestamptz>, _>(mt(|i| i.message.updated_at))
    .bind::<Array<Nullable<Timestamptz>>, _>(mto(|i| i.message.accepted_at))
    .bind::<Array<Nullable<Timestamptz>>, _>(mto(|i| i.message.submitted_at))
    .bind::<Array<Nullable<Timestamptz>>, _>(mto(|i| i.message.sent_at))
    .bind::<Array<Nullable<Timestamptz>>, _>(mto(|i| i.message.delivered_at))
    .bind::<Array<Nullable<Timestamptz>>, _>(mto(|i| i.message.read_at))
    .bind::<Array<Nullable<Timestamptz>>, _>(mto(|i| i.message.failed_at))
    .bind::<Array<Nullable<Text>>, _>(mo(|i| i.message.trace_context.as_deref()))
    .bind::<Array<Nullable<Timestamptz>>, _>(mto(|i| i.message.scheduled_for))
    .bind::<Array<Nullable<Text>>, _>(mo(|i| i.message.broadcast_id.as_deref()))
    .execute(&mut conn);
    sent.push(messages);
    sent.extend(status_events(
        conn,
        &items.iter().map(|i| &i.event).collect::<Vec<_>>(),
    ));
    let jobs = prepared::fixed(
        "INSERT INTO outbox (id, organization_id, message_id, sender_id, state, available_at, deadline, attempts, \
         created_at, updated_at, broadcast_id) \
         SELECT j.id, j.org, j.message_id, j.sender_id, $5, j.available_at, j.deadline, 0, j.created_at, \
         j.created_at, j.broadcast_id \
         FROM UNNEST($1::text[], $2::text[], $3::text[], $4::text[], $6::timestamptz[], $7::timestamptz[], \
         $8::timestamptz[], $9::text[]) AS j(id, org, message_id, sender_id, available_at, deadline, created_at, \
         broadcast_id)",
    )
    .bind::<Array<Text>, _>(ids(|i| i.job.id.to_string()))
    .bind::<Array<Text>, _>(ids(|i| i.job.organization_id.to_string()))
    .bind::<Array<Text>, _>(ids(|i| i.job.message_id.to_string()))
    .bind::<Array<Text>, _>(ids(|i| i.job.sender_id.to_string()))
    .bind::<Text, _>(JOB_PENDING)
    .bind::<Array<Timestamptz>, _>(mt(|i| i.job.available_at))
    .bind::<Array<Timestamptz>, _>(mt(|i| i.job.deadline))
    .bind::<Array<Timestamptz>, _>(mt(|i| i.now))
    .bind::<Array<Nullable<Text>>, _>(mo(|i| i.message.broadcast_id.as_deref()))
    .execute(&mut conn);
    sent.push(jobs);
    let keyed: Vec<&&PreparedAccept> = items.iter().filter(|i| i.idempotency_key.is_some()).collect();
    if !keyed.is_empty() {
        let completed = prepared::fixed(
            "UPDATE idempotency_keys AS k SET state = $4, message_id = u.message_id, completed_at = u.at \
             FROM UNNEST($1::text[], $2::text[], $3::text[], $5::timestamptz[], $6::text[]) \
             AS u(org, key, message_id, at, token) \
             WHERE k.organization_id = u.org AND k.key = u.key AND k.claim_token = u.token",
        )
        .bind::<Array<Text>, _>(column(&keyed, |i| i.message.organization_id.as_str()))
        .bind::<Array<Text>, _>(column(&keyed, |i| {
            i.idempotency_key.as_deref().unwrap_or_default()
        }))
        .bind::<Array<Text>, _>(column(&keyed, |i| i.message.id.as_str()))
        .bind::<Text, _>(IDEMPOTENCY_COMPLETED)
        .bind::<Array<Timestamptz>, _>(column(&keyed, |i| i.now))
        .bind::<Array<Text>, _>(column(&keyed, |i| {
            i.idempotency_token.as_deref().unwrap_or_default()
        }))
        .execute(&mut conn);
        sent.push(completed);
    }
    sent
}

// ---- Status reports and customer events, one statement per table whatever their number ----

/// Writes each message's status columns as a batch of reports left them.
async fn update_statuses(conn: &mut Conn, rows: &[crate::rows::StatusColumns]) -> Result<(), TxError> {
    use diesel::sql_types::{Array, Nullable};
    if rows.is_empty() {
        return Ok(());
    }
    prepared::fixed(
        "UPDATE messages AS m SET status = u.status, network_message_id = u.network_message_id, \
         error = u.error, updated_at = u.updated_at, accepted_at = u.accepted_at, \
         submitted_at = u.submitted_at, sent_at = u.sent_at, delivered_at = u.delivered_at, \
         read_at = u.read_at, failed_at = u.failed_at, cancelled_at = u.cancelled_at, \
         pricing_model = u.pricing_model, pricing_category = u.pricing_category, \
         pricing_type = u.pricing_type, pricing_billable = u.pricing_billable \
         FROM UNNEST($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::timestamptz[], \
         $7::timestamptz[], $8::timestamptz[], $9::timestamptz[], $10::timestamptz[], $11::timestamptz[], \
         $12::timestamptz[], $13::text[], $14::text[], $15::text[], $16::bool[]) \
         AS u(id, status, network_message_id, error, updated_at, accepted_at, submitted_at, sent_at, \
         delivered_at, read_at, failed_at, cancelled_at, pricing_model, pricing_category, pricing_type, \
         pricing_billable) \
         WHERE m.id = u.id",
    )
    .bind::<Array<Text>, _>(column(rows, |r| r.id.as_str()))
    .bind::<Array<Text>, _>(column(rows, |r| r.status.as_str()))
    .bind::<Array<Nullable<Text>>, _>(column(rows, |r| r.network_message_id.as_deref()))
    .bind::<Array<Nullable<Text>>, _>(column(rows, |r| r.error.as_deref()))
    .bind::<Array<Timestamptz>, _>(column(rows, |r| r.updated_at))
    .bind::<Array<Nullable<Timestamptz>>, _>(column(rows, |r| r.accepted_at))
    .bind::<Array<Nullable<Timestamptz>>, _>(column(rows, |r| r.submitted_at))
    .bind::<Array<Nullable<Timestamptz>>, _>(column(rows, |r| r.sent_at))
    .bind::<Array<Nullable<Timestamptz>>, _>(column(rows, |r| r.delivered_at))
    .bind::<Array<Nullable<Timestamptz>>, _>(column(rows, |r| r.read_at))
    .bind::<Array<Nullable<Timestamptz>>, _>(column(rows, |r| r.failed_at))
    .bind::<Array<Nullable<Timestamptz>>, _>(column(rows, |r| r.cancelled_at))
    .bind::<Array<Nullable<Text>>, _>(column(rows, |r| r.pricing_model.as_deref()))
    .bind::<Array<Nullable<Text>>, _>(column(rows, |r| r.pricing_category.as_deref()))
    .bind::<Array<Nullable<Text>>, _>(column(rows, |r| r.pricing_type.as_deref()))
    .bind::<Array<Nullable<Bool>>, _>(column(rows, |r| r.pricing_billable))
    .execute(conn)
    .await?;
    Ok(())
}

/// Writes history entries (`message_events`).
async fn insert_status_events(conn: &mut Conn, rows: &[&crate::rows::EventRow]) -> Result<(), TxError> {
    match status_events(conn, rows) {
        Some(sent) => sent.await.map(drop).map_err(TxError::from),
        None => Ok(()),
    }
}

/// The statement of [`insert_status_events`], sent (pipelined) but not awaited; `None` for no rows.
fn status_events<'a>(mut conn: &'a Conn, rows: &[&crate::rows::EventRow]) -> Option<Sent<'a>> {
    use diesel::sql_types::{Array, Nullable};
    if rows.is_empty() {
        return None;
    }
    let sent = prepared::fixed(
        "INSERT INTO message_events (id, organization_id, message_id, status, previous_status, applied, source, \
         error, occurred_at, recorded_at) \
         SELECT * FROM UNNEST($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bool[], \
         $7::text[], $8::text[], $9::timestamptz[], $10::timestamptz[])",
    )
    .bind::<Array<Text>, _>(column(rows, |r| r.id.as_str()))
    .bind::<Array<Text>, _>(column(rows, |r| r.organization_id.as_str()))
    .bind::<Array<Text>, _>(column(rows, |r| r.message_id.as_str()))
    .bind::<Array<Text>, _>(column(rows, |r| r.status.as_str()))
    .bind::<Array<Nullable<Text>>, _>(column(rows, |r| r.previous_status.as_deref()))
    .bind::<Array<Bool>, _>(column(rows, |r| r.applied))
    .bind::<Array<Text>, _>(column(rows, |r| r.source.as_str()))
    .bind::<Array<Nullable<Text>>, _>(column(rows, |r| r.error.as_deref()))
    .bind::<Array<Timestamptz>, _>(column(rows, |r| r.occurred_at))
    .bind::<Array<Timestamptz>, _>(column(rows, |r| r.recorded_at))
    .execute(&mut conn);
    Some(sent)
}

/// Writes customer events' rows (`events`), and nothing else.
async fn insert_event_rows(conn: &mut Conn, rows: &[&crate::rows::CustomerEventRow]) -> Result<(), TxError> {
    use diesel::sql_types::{Array, Nullable};
    if rows.is_empty() {
        return Ok(());
    }
    prepared::fixed(
        "INSERT INTO events (id, organization_id, event_type, message_id, sequence, payload, occurred_at, \
         created_at, trace_context, dedupe_key) \
         SELECT * FROM UNNEST($1::text[], $2::text[], $3::text[], $4::text[], $5::int4[], $6::text[], \
         $7::timestamptz[], $8::timestamptz[], $9::text[], $10::text[])",
    )
    .bind::<Array<Text>, _>(column(rows, |r| r.id.as_str()))
    .bind::<Array<Text>, _>(column(rows, |r| r.organization_id.as_str()))
    .bind::<Array<Text>, _>(column(rows, |r| r.event_type.as_str()))
    .bind::<Array<Nullable<Text>>, _>(column(rows, |r| r.message_id.as_deref()))
    .bind::<Array<Integer>, _>(column(rows, |r| r.sequence))
    .bind::<Array<Text>, _>(column(rows, |r| r.payload.as_str()))
    .bind::<Array<Timestamptz>, _>(column(rows, |r| r.occurred_at))
    .bind::<Array<Timestamptz>, _>(column(rows, |r| r.created_at))
    .bind::<Array<Nullable<Text>>, _>(column(rows, |r| r.trace_context.as_deref()))
    .bind::<Array<Nullable<Text>>, _>(column(rows, |r| r.dedupe_key.as_deref()))
    .execute(conn)
    .await?;
    Ok(())
}

/// Writes customer events' deliveries, no attempts yet and no claim.
async fn insert_deliveries(conn: &mut Conn, rows: &[ports::shared::NewDelivery<'_>]) -> Result<(), TxError> {
    use diesel::sql_types::{Array, Nullable};
    if rows.is_empty() {
        return Ok(());
    }
    prepared::fixed(
        "INSERT INTO webhook_deliveries (id, organization_id, endpoint_id, event_id, event_type, status, \
         attempts, next_attempt_at, created_at, updated_at) \
         SELECT d.id, d.org, d.endpoint_id, d.event_id, d.event_type, d.status, 0, d.next_attempt_at, d.at, d.at \
         FROM UNNEST($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], \
         $7::timestamptz[], $8::timestamptz[]) \
         AS d(id, org, endpoint_id, event_id, event_type, status, next_attempt_at, at)",
    )
    .bind::<Array<Text>, _>(column(rows, |r| r.id.as_str()))
    .bind::<Array<Text>, _>(column(rows, |r| r.organization_id))
    .bind::<Array<Text>, _>(column(rows, |r| r.endpoint_id))
    .bind::<Array<Text>, _>(column(rows, |r| r.event_id))
    .bind::<Array<Text>, _>(column(rows, |r| r.event_type))
    .bind::<Array<Text>, _>(column(rows, |r| r.status))
    .bind::<Array<Nullable<Timestamptz>>, _>(column(rows, |r| r.next_attempt_at))
    .bind::<Array<Timestamptz>, _>(column(rows, |r| r.at))
    .execute(conn)
    .await?;
    Ok(())
}

/// Writes callbacks as they arrived, each processed at its time when that is known already.
async fn insert_callbacks(
    conn: &mut Conn,
    rows: &[(&herald_domain::dispatch::StoredCallback, Option<DateTime<Utc>>)],
) -> Result<(), TxError> {
    use diesel::sql_types::{Array, Binary, Nullable};
    if rows.is_empty() {
        return Ok(());
    }
    prepared::fixed(
        "INSERT INTO network_callbacks (id, received_at, body, processed_at) \
         SELECT * FROM UNNEST($1::text[], $2::timestamptz[], $3::bytea[], $4::timestamptz[])",
    )
    .bind::<Array<Text>, _>(column(rows, |(c, _)| c.id.to_string()))
    .bind::<Array<Timestamptz>, _>(column(rows, |(c, _)| c.received_at))
    .bind::<Array<Binary>, _>(column(rows, |(c, _)| c.body.as_slice()))
    .bind::<Array<Nullable<Timestamptz>>, _>(column(rows, |(_, at)| *at))
    .execute(conn)
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]
    use super::{callback_writers, claim_due_deliveries, record_attempts_together};
    use crate::cached::tests::{fresh_connection, prepared_statements};

    /// The PostgreSQL session a pooled connection is.
    async fn session(conn: &mut super::Conn) -> i32 {
        diesel_async::RunQueryDsl::get_result(
            diesel::select(diesel::dsl::sql::<diesel::sql_types::Integer>("pg_backend_pid()")),
            conn,
        )
        .await
        .unwrap()
    }

    /// The status path's sequence lookup takes `events_by_message` on a connection that ran it many times
    /// while `events` was small and analyzed, once the table has grown and before it is analyzed again. A
    /// cached statement keeps the generic plan made on the small table there, a scan of the whole table;
    /// the lookup is planned afresh each time, so it sees the table's size.
    #[tokio::test]
    async fn the_sequence_lookup_takes_the_index_after_the_table_grew_on_a_warm_connection() {
        use diesel_async::{AsyncConnection, SimpleAsyncConnection};
        let Some((_guard, mut conn)) = fresh_connection().await else {
            return;
        };
        let events = |prefix: &str, count: u32| {
            format!(
                "INSERT INTO events (id, organization_id, event_type, message_id, sequence, payload, \
                 occurred_at, created_at) SELECT 'evt_{prefix}' || i, 'org_1', 'message.status', \
                 'msg_{prefix}' || (i / 3), i % 3 + 1, repeat('x', 300), now(), now() \
                 FROM generate_series(0, {count} - 1) AS i"
            )
        };
        conn.batch_execute(&format!(
            "ALTER TABLE events SET (autovacuum_enabled = false); {}; ANALYZE events",
            events("a", 60)
        ))
        .await
        .unwrap();
        let small = vec!["msg_a1".to_owned(), "msg_a2".to_owned()];
        for _ in 0..10 {
            assert_eq!(
                super::last_event_sequences(&mut conn, &small)
                    .await
                    .unwrap()
                    .len(),
                2
            );
        }
        conn.batch_execute(&events("b", 30_000)).await.unwrap();

        // The session's scans of `events` not yet reported (the view holds a backend's pending counts, the
        // earlier calls' among them), read before and after the call.
        #[derive(diesel::QueryableByName, Debug, PartialEq)]
        struct Scans {
            #[diesel(sql_type = diesel::sql_types::BigInt)]
            seq_scan: i64,
            #[diesel(sql_type = diesel::sql_types::BigInt)]
            idx_scan: i64,
        }
        conn.begin_test_transaction().await.unwrap();
        let scans = async |conn: &mut super::Conn| -> Scans {
            diesel_async::RunQueryDsl::get_result(
                diesel::sql_query(
                    "SELECT seq_scan, idx_scan FROM pg_stat_xact_user_tables WHERE relname = 'events'",
                ),
                conn,
            )
            .await
            .unwrap()
        };
        let before = scans(&mut conn).await;
        let grown = vec!["msg_b1".to_owned(), "msg_b9999".to_owned(), "msg_none".to_owned()];
        let last = super::last_event_sequences(&mut conn, &grown).await.unwrap();
        assert_eq!(
            last,
            [("msg_b1".to_owned(), 3), ("msg_b9999".to_owned(), 3)].into(),
            "the last sequence of each message that has events"
        );
        let after = scans(&mut conn).await;
        assert_eq!(
            after.seq_scan, before.seq_scan,
            "no scan of the whole table: {before:?} → {after:?}"
        );
        assert!(
            after.idx_scan > before.idx_scan,
            "the index was used: {before:?} → {after:?}"
        );
    }

    /// A connection given back while a pipelined transaction is open on it (its batch's task ended between
    /// `BEGIN` and `COMMIT`) is closed by the pool, not handed out again inside that transaction; one whose
    /// transaction ended is kept.
    #[tokio::test]
    async fn a_connection_is_not_pooled_again_inside_a_pipelined_transaction() {
        use super::{Conn, Pool, pipelined_transaction_open, prepared};
        use diesel_async::RunQueryDsl;
        use diesel_async::pooled_connection::AsyncDieselConnectionManager;
        let Some((guard, _)) = fresh_connection().await else {
            return;
        };
        let pool = Pool::builder()
            .max_size(1)
            .build(AsyncDieselConnectionManager::<Conn>::new(guard.database_url()))
            .await
            .unwrap();
        let left_open = {
            let mut conn = pool.get().await.unwrap();
            pipelined_transaction_open(&mut conn, true);
            prepared::fixed("BEGIN").execute(&mut *conn).await.unwrap();
            session(&mut conn).await
        };
        let next = {
            let mut conn = pool.get().await.unwrap();
            let next = session(&mut conn).await;
            pipelined_transaction_open(&mut conn, true);
            prepared::fixed("BEGIN").execute(&mut *conn).await.unwrap();
            prepared::fixed("COMMIT").execute(&mut *conn).await.unwrap();
            pipelined_transaction_open(&mut conn, false);
            next
        };
        assert_ne!(
            next, left_open,
            "the connection left inside its transaction was closed"
        );
        let mut conn = pool.get().await.unwrap();
        assert_eq!(
            session(&mut conn).await,
            next,
            "a connection whose transaction ended is kept"
        );
    }

    /// Callback batches in flight: four unless configured, never more than half the pool, at least one.
    #[test]
    fn callback_writers_are_configured_within_half_the_pool() {
        let options = |callback_writers, max_connections| crate::StoreOptions {
            callback_writers,
            max_connections,
            ..crate::StoreOptions::default()
        };
        assert_eq!(callback_writers(&options(0, 16)), 4);
        assert_eq!(callback_writers(&options(2, 16)), 2);
        assert_eq!(callback_writers(&options(12, 16)), 8);
        assert_eq!(callback_writers(&options(0, 1)), 1);
    }

    /// A webhook claim run twice on one connection is parsed and planned once: its statement and the advisory
    /// lock's stay prepared, since every claim holds the lock that serializes them all.
    #[tokio::test]
    async fn a_delivery_claim_stays_prepared_on_its_connection() {
        let Some((_guard, mut conn)) = fresh_connection().await else {
            return;
        };
        let now = chrono::Utc::now();
        // Outside a transaction each statement is its own: enough to see what stays prepared.
        for token in ["claim-1", "claim-2"] {
            let claimed =
                claim_due_deliveries(&mut conn, token, now, now + chrono::Duration::seconds(60), 100, 4)
                    .await;
            assert!(matches!(claimed, Ok(ids) if ids.is_empty()), "nothing is due");
        }
        let prepared = prepared_statements(&mut conn, "WITH RECURSIVE pending_endpoints").await
            + prepared_statements(&mut conn, "SELECT pg_advisory_xact_lock").await;
        assert_eq!(prepared, 2, "the claim and its lock, each prepared once");
    }

    /// A round's outcomes are recorded with one statement whatever their number, prepared once on the
    /// connection; completions whose token holds nothing answer `None`.
    #[tokio::test]
    async fn a_batch_of_outcomes_is_one_prepared_statement_whatever_its_size() {
        use herald_domain::dispatch::ClaimToken;
        use herald_domain::ids::DeliveryId;
        use herald_domain::webhook::{DeliveryAttempt, DeliveryCompletion, DeliveryStatus};
        let Some((_guard, mut conn)) = fresh_connection().await else {
            return;
        };
        let now = chrono::Utc::now();
        let completion = |n: u64| DeliveryCompletion {
            delivery_id: DeliveryId::from_ulid(ulid::Ulid::from_parts(n, 1)),
            token: ClaimToken(ulid::Ulid::from_parts(n, 2)),
            attempt: DeliveryAttempt {
                number: 1,
                at: now,
                status_code: Some(200),
                response_prefix: String::new(),
                error_kind: None,
                duration_ms: 1,
            },
            status: DeliveryStatus::Succeeded,
            next_attempt_at: None,
            failing_since: None,
            disable_reason: None,
        };
        for size in [1, 3] {
            let batch: Vec<_> = (0..size).map(completion).collect();
            let recorded = record_attempts_together(&mut conn, &batch).await;
            assert!(
                matches!(&recorded, Ok(Some(answers)) if answers.len() == batch.len() && answers.iter().all(Option::is_none)),
                "nothing is held by these tokens"
            );
        }
        assert_eq!(
            prepared_statements(&mut conn, "UPDATE webhook_deliveries d SET status = i.status").await,
            1,
            "batches of 1 and 3 share one prepared statement"
        );
    }
}
