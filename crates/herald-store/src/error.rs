//! Translation of diesel and pool errors into the domain's [`StoreError`], in one place for both backends.

use diesel::result::{DatabaseErrorKind, Error as DieselError};
use diesel_async::pooled_connection::PoolError;
use herald_domain::ports::StoreError;
use std::fmt::Display;

/// Translates a diesel error: unique violations become `Conflict`, a missing referenced row `NotFound`,
/// a lost connection or a busy SQLite file `Unavailable`.
pub(crate) fn from_diesel(error: DieselError) -> StoreError {
    match error {
        DieselError::NotFound => StoreError::NotFound,
        DieselError::DatabaseError(kind, info) => {
            let message = info.message().to_owned();
            let detail = match info.constraint_name() {
                Some(constraint) => format!("{message} ({constraint})"),
                None => message,
            };
            match kind {
                DatabaseErrorKind::UniqueViolation => StoreError::Conflict(detail),
                DatabaseErrorKind::ForeignKeyViolation => StoreError::NotFound,
                DatabaseErrorKind::ClosedConnection | DatabaseErrorKind::UnableToSendCommand => {
                    StoreError::Unavailable(detail)
                }
                // SQLITE_BUSY / SQLITE_LOCKED reach diesel as an unknown kind: the writer held the file
                // longer than busy_timeout, which is overload, not a bug.
                _ if is_sqlite_busy(&detail) || is_postgres_going_away(&detail) => {
                    StoreError::Unavailable(detail)
                }
                _ => StoreError::Unknown(anyhow::anyhow!("database error: {detail}")),
            }
        }
        // A commit that failed because the connection went: its outcome is the lost connection's.
        DieselError::RollbackErrorOnCommit { commit_error, .. } => from_diesel(*commit_error),
        // Left behind by a connection lost mid-transaction; the pool drops such a connection.
        DieselError::BrokenTransactionManager => {
            StoreError::Unavailable("the database connection was lost mid-transaction".to_owned())
        }
        other => StoreError::Unknown(anyhow::Error::new(other)),
    }
}

fn is_sqlite_busy(message: &str) -> bool {
    message.contains("database is locked") || message.contains("database table is locked")
}

/// PostgreSQL ending a session under a running statement: a fast or immediate shutdown or
/// `pg_terminate_backend` (57P01 "terminating connection due to administrator command"), a crashed
/// sibling (57P02), a server still starting or already stopping (57P03 "the database system is …"), a
/// session or idle-in-transaction timeout. diesel-async reports all of these as an unknown kind and hides
/// the SQLSTATE, so the server's English text is all there is to go on: the store's sessions ask for it where
/// the server's default language is another (`pg::language`). They are an outage, not a bug: the caller
/// answers 503 and may retry.
fn is_postgres_going_away(message: &str) -> bool {
    message.starts_with("terminating connection") || message.starts_with("the database system is")
}

/// Translates a failure to get a pooled connection: always `Unavailable`, the caller may retry.
pub(crate) fn from_pool(error: bb8::RunError<PoolError>) -> StoreError {
    match error {
        bb8::RunError::TimedOut => {
            StoreError::Unavailable("timed out waiting for a database connection".to_owned())
        }
        bb8::RunError::User(PoolError::ConnectionError(e)) => {
            StoreError::Unavailable(format!("cannot connect to the database: {e}"))
        }
        bb8::RunError::User(PoolError::QueryError(e)) => {
            StoreError::Unavailable(format!("database connection check failed: {e}"))
        }
    }
}

/// A stored value that no longer passes the domain's rules: a bug or a hand-edited row.
pub(crate) fn corrupt(what: &str, error: impl Display) -> StoreError {
    StoreError::Unknown(anyhow::anyhow!("corrupt {what} in the store: {error}"))
}

/// The error type inside a transaction: diesel's errors are translated as they arise. (A refused quota is
/// an accept's answer, not an error: it must not roll back the other accepts of a group commit.)
#[derive(Debug)]
pub(crate) enum TxError {
    Store(StoreError),
    /// A group commit's quota, charged last, did not fit whole: the batch rolls back and is written again
    /// with the quota charged first, item by item (see `write_batch`).
    QuotaTight,
    /// A pipelined batch of accepts met what it does not decide itself (a claim lost, a recipient refusing,
    /// a quota tight): it rolls back and the batch is written statement by statement
    /// (`accept_batch_pipelined` on PostgreSQL).
    StepByStep,
}

impl From<DieselError> for TxError {
    fn from(error: DieselError) -> Self {
        Self::Store(from_diesel(error))
    }
}

impl From<StoreError> for TxError {
    fn from(error: StoreError) -> Self {
        Self::Store(error)
    }
}

impl TxError {
    pub(crate) fn into_store(self) -> StoreError {
        match self {
            Self::Store(error) => error,
            // Answered by a second transaction, never returned; a bug if it is.
            Self::QuotaTight => StoreError::Unknown(anyhow::anyhow!("a batch's quota was not charged")),
            Self::StepByStep => {
                StoreError::Unknown(anyhow::anyhow!("a pipelined batch was not written step by step"))
            }
        }
    }
}
