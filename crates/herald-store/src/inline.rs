//! How SQLite calls run: inline, on the calling thread.
//!
//! diesel-async's default hands each call of a `SyncConnectionWrapper` to tokio's blocking pool and, when
//! the caller's future is dropped before the call finished (a client disconnecting mid-request, a
//! `select!`), waits for it in `block_in_place` — which panics on a current-thread runtime, and every actix
//! worker runs one. SQLite calls are local and short (the one writer connection queues writers in the pool,
//! not in SQLite), so running them inline costs less than the thread hop and can never be cancelled
//! half-way: by the time the future exists, the call is done.

use diesel_async::sync_connection_wrapper::SpawnBlocking;
use futures::future::BoxFuture;
use std::error::Error;

/// A [`SpawnBlocking`] that runs the task at once on the calling thread.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Inline;

impl SpawnBlocking for Inline {
    fn spawn_blocking<'a, R>(
        &mut self,
        task: impl FnOnce() -> R + Send + 'static,
    ) -> BoxFuture<'a, Result<R, Box<dyn Error + Send + Sync + 'static>>>
    where
        R: Send + 'static,
    {
        let result = task();
        Box::pin(std::future::ready(Ok(result)))
    }

    fn get_runtime() -> Self {
        Self
    }
}

type Conn = diesel_async::sync_connection_wrapper::SyncConnectionWrapper<diesel::SqliteConnection, Inline>;

/// Names the future of an async closure so a `Send` bound can be put on it (the trick diesel-async uses for
/// its own transaction methods, whose helper trait is private).
pub(crate) trait TxFunc<T, R>: AsyncFnOnce(T) -> R + FnOnce(T) -> <Self as TxFunc<T, R>>::Fut {
    type Fut: std::future::Future<Output = R>;
}

impl<F, T, Fut, R> TxFunc<T, R> for F
where
    F: AsyncFnOnce(T) -> R + FnOnce(T) -> Fut,
    Fut: std::future::Future<Output = R>,
{
    type Fut = Fut;
}

/// `BEGIN IMMEDIATE` … `COMMIT` (or `ROLLBACK` on error): takes the write lock up front, so a writer in
/// another process makes this wait for the busy timeout instead of failing on a lock upgrade. diesel-async
/// offers this only for its default spawner, so this is its body for [`Inline`].
pub(crate) async fn immediate_transaction<'a, R, E, F>(conn: &mut Conn, f: F) -> Result<R, E>
where
    for<'r> F:
        AsyncFnOnce(&'r mut Conn) -> Result<R, E> + TxFunc<&'r mut Conn, Result<R, E>, Fut: Send> + Send + 'a,
    E: From<diesel::result::Error> + Send + 'a,
    R: Send + 'a,
{
    use diesel::connection::AnsiTransactionManager;
    use diesel_async::TransactionManager;
    use diesel_async::sync_connection_wrapper::SyncTransactionManagerWrapper;

    conn.spawn_blocking(|inner| AnsiTransactionManager::begin_transaction_sql(inner, "BEGIN IMMEDIATE"))
        .await?;
    match f(&mut *conn).await {
        Ok(value) => {
            SyncTransactionManagerWrapper::<AnsiTransactionManager>::commit_transaction(conn).await?;
            Ok(value)
        }
        Err(error) => {
            SyncTransactionManagerWrapper::<AnsiTransactionManager>::rollback_transaction(conn).await?;
            Err(error)
        }
    }
}
