//! PostgreSQL ending a session under a running statement (a fast shutdown, `pg_terminate_backend`) is an
//! outage the caller may retry, never an internal error: the fault suite's PostgreSQL stop once answered a
//! send 500 because the server's "terminating connection" reply was taken for a bug.

use crate::helpers::test_name;
use diesel::sql_types::{Bool, Integer};
use diesel::{QueryableByName, sql_query};
use diesel_async::{
    AnsiTransactionManager, AsyncConnection, AsyncPgConnection, RunQueryDsl, TransactionManager,
};
use herald_domain::ids::{MessageId, OrganizationId};
use herald_domain::ports::StoreError;
use herald_store::testing;
use herald_testkit::fixtures::next_ulid;
use std::time::Duration;

#[derive(QueryableByName)]
struct Pid {
    #[diesel(sql_type = Integer)]
    pid: i32,
}

#[derive(QueryableByName)]
struct Terminated {
    #[diesel(sql_type = Bool)]
    terminated: bool,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_statement_whose_session_is_terminated_answers_unavailable() {
    let fresh = testing::fresh_postgres()
        .await
        .expect("a fresh PostgreSQL database");
    let Some((store, guard)) = fresh else {
        eprintln!("SKIPPED ({} unset): {}", testing::DATABASE_URL_ENV, test_name!());
        return;
    };
    // Holds the messages table so the store's read waits on it, in flight, when its session is ended.
    let mut admin = AsyncPgConnection::establish(guard.database_url())
        .await
        .expect("an admin connection");
    AnsiTransactionManager::begin_transaction(&mut admin)
        .await
        .expect("begin");
    sql_query("LOCK TABLE messages IN ACCESS EXCLUSIVE MODE")
        .execute(&mut admin)
        .await
        .expect("lock");

    let messages = store.messages();
    let read = tokio::spawn(async move {
        messages
            .message(
                &OrganizationId::from_ulid(next_ulid()),
                &MessageId::from_ulid(next_ulid()),
            )
            .await
    });

    // Polled from a session of its own: inside the admin's transaction pg_stat_activity stays the snapshot
    // of its first read.
    let mut watcher = AsyncPgConnection::establish(guard.database_url())
        .await
        .expect("a watching connection");
    let waiting = "SELECT pid FROM pg_stat_activity \
                   WHERE datname = current_database() AND wait_event_type = 'Lock'";
    let mut pid = None;
    for _ in 0..200 {
        let rows: Vec<Pid> = sql_query(waiting)
            .load(&mut watcher)
            .await
            .expect("pg_stat_activity");
        if let Some(row) = rows.into_iter().next() {
            pid = Some(row.pid);
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let pid = pid.expect("the store's read waits on the lock");
    let ended: Vec<Terminated> = sql_query(format!("SELECT pg_terminate_backend({pid}) AS terminated"))
        .load(&mut watcher)
        .await
        .expect("pg_terminate_backend");
    assert!(
        ended.into_iter().next().is_some_and(|row| row.terminated),
        "the session was ended"
    );

    let outcome = read.await.expect("the read's task");
    assert!(
        matches!(outcome, Err(StoreError::Unavailable(_))),
        "a statement whose session was ended is an outage, got {outcome:?}"
    );
    AnsiTransactionManager::rollback_transaction(&mut admin)
        .await
        .expect("rollback");
    // The pool replaced the ended connection: the store answers again.
    let again = store
        .messages()
        .message(
            &OrganizationId::from_ulid(next_ulid()),
            &MessageId::from_ulid(next_ulid()),
        )
        .await;
    assert!(
        matches!(again, Ok(None)),
        "the store answers after the loss, got {again:?}"
    );
}
