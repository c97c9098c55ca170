//! PostgreSQL ending a session under a running statement (a fast shutdown, `pg_terminate_backend`) is an
//! outage the caller may retry, never an internal error: the fault suite's PostgreSQL stop once answered a
//! send 500 because the server's "terminating connection" reply was taken for a bug. And a session ended
//! while its connection sat idle in the pool (a restart, an operator's `pg_terminate_backend`, an idle
//! timeout) never fails the next statement: the pool's check on checkout replaces it.

use crate::helpers::{fresh_postgres_or_skip, test_name};
use diesel::sql_types::{Bool, Integer};
use diesel::{QueryableByName, sql_query};
use diesel_async::{
    AnsiTransactionManager, AsyncConnection, AsyncPgConnection, RunQueryDsl, TransactionManager,
};
use herald_domain::ids::{MessageId, OrganizationId};
use herald_domain::message::Message;
use herald_domain::ports::{MessageStore, StoreError};
use herald_store::testing;
use herald_testkit::fixtures::next_ulid;
use std::time::Duration;

/// Reads a message no one stored: `Ok(None)` from a store that answers.
async fn unknown_message(messages: &dyn MessageStore) -> Result<Option<Message>, StoreError> {
    messages
        .message(
            &OrganizationId::from_ulid(next_ulid()),
            &MessageId::from_ulid(next_ulid()),
        )
        .await
}

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
    let Some((store, guard)) = fresh_postgres_or_skip(&test_name!()).await else {
        return;
    };
    a_terminated_session_answers_unavailable(&store, guard.database_url()).await;
}

/// The locale whose messages the server must not answer in for the store: German, whose translations
/// Debian's PostgreSQL ships; `.ci/run` generates the locale on the machine.
const GERMAN: &str = "de_DE.UTF-8";

/// A fresh database, with an admin session, on a server that has the German locale; `None` after printing
/// SKIPPED without a server, or without the locale outside CI.
async fn german_speaking_database(test: &str) -> Option<(testing::Guard, AsyncPgConnection)> {
    let (first, guard) = fresh_postgres_or_skip(test).await?;
    drop(first);
    let mut admin = AsyncPgConnection::establish(guard.database_url())
        .await
        .expect("an admin connection");
    if let Err(error) = sql_query(format!("SET lc_messages TO '{GERMAN}'"))
        .execute(&mut admin)
        .await
    {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "the {GERMAN} locale is missing under CI=true ({error}): .ci/run generates it"
        );
        eprintln!("SKIPPED (no {GERMAN} locale on the PostgreSQL server: {error}): {test}");
        return None;
    }
    Some((guard, admin))
}

/// The same on a server that answers in German (`lc_messages`): the store's sessions ask for English ones,
/// since the outage is told by the server's English text. On such a server, every PostgreSQL restart once
/// answered 500.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_terminated_session_answers_unavailable_on_a_server_answering_in_german() {
    let Some((guard, mut admin)) = german_speaking_database(&test_name!()).await else {
        return;
    };
    let url = guard.database_url();
    sql_query(format!(
        "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET lc_messages TO %L', current_database(), \
         '{GERMAN}'); END $$"
    ))
    .execute(&mut admin)
    .await
    .expect("ALTER DATABASE … SET lc_messages");
    let mut plain = AsyncPgConnection::establish(url).await.expect("a plain session");
    let german = sql_query("SELECT 1/0").execute(&mut plain).await;
    assert!(
        matches!(&german, Err(diesel::result::Error::DatabaseError(_, info))
            if info.message() == "Division durch Null"),
        "the database's own sessions answer in German: {german:?}"
    );

    let store = herald_store::Store::connect(url, &herald_store::StoreOptions::default())
        .await
        .expect("the store connects");
    a_terminated_session_answers_unavailable(&store, url).await;
}

/// A role that may not change `lc_messages` on such a server still gets a working store (start-up warns, and
/// docs/operations.md gives the superuser's one-line fix): the language is a nicety, not a precondition.
#[tokio::test]
async fn postgres_a_role_that_may_not_change_the_language_still_connects() {
    let Some((guard, mut admin)) = german_speaking_database(&test_name!()).await else {
        return;
    };
    let url = guard.database_url();
    let role = format!("herald_plain_{}", next_ulid().to_string().to_lowercase());
    let as_role = url.replacen("postgres://postgres@", &format!("postgres://{role}@"), 1);
    if as_role == url {
        eprintln!(
            "SKIPPED (the test server's URL does not name the postgres user): {}",
            test_name!()
        );
        return;
    }
    for statement in [
        format!("CREATE ROLE {role} LOGIN NOSUPERUSER"),
        format!("ALTER ROLE {role} SET lc_messages TO '{GERMAN}'"),
    ] {
        sql_query(&statement).execute(&mut admin).await.expect(&statement);
    }
    let connected = herald_store::Store::connect(&as_role, &herald_store::StoreOptions::default()).await;
    let pinged = match &connected {
        Ok(store) => store.ping().await.map_err(|e| e.to_string()),
        Err(error) => Err(format!("{error:#}")),
    };
    drop(connected);
    sql_query(format!("DROP ROLE {role}"))
        .execute(&mut admin)
        .await
        .expect("DROP ROLE");
    assert_eq!(pinged, Ok(()), "the store connects and answers");
}

/// A read in flight when its session is ended answers `Unavailable`, and the store answers again after.
async fn a_terminated_session_answers_unavailable(store: &herald_store::Store, url: &str) {
    // Holds the messages table so the store's read waits on it, in flight, when its session is ended.
    let mut admin = AsyncPgConnection::establish(url)
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
    let read = tokio::spawn(async move { unknown_message(messages.as_ref()).await });

    // Polled from a session of its own: inside the admin's transaction pg_stat_activity stays the snapshot
    // of its first read.
    let mut watcher = AsyncPgConnection::establish(url)
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
    let again = unknown_message(store.messages().as_ref()).await;
    assert!(
        matches!(again, Ok(None)),
        "the store answers after the loss, got {again:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_idle_pooled_connections_whose_sessions_ended_are_not_handed_out() {
    let Some((store, guard)) = fresh_postgres_or_skip(&test_name!()).await else {
        return;
    };
    let reads = || {
        futures::future::join_all((0..8).map(|_| {
            let messages = store.messages();
            async move { unknown_message(messages.as_ref()).await }
        }))
    };
    // Opens the pool's connections, then leaves them idle in it.
    for read in reads().await {
        assert!(matches!(read, Ok(None)), "a read before the loss, got {read:?}");
    }

    let mut watcher = AsyncPgConnection::establish(guard.database_url())
        .await
        .expect("a watching connection");
    let ended: Vec<Pid> = sql_query(
        // OFFSET 0 keeps the filter ahead of the terminating call: the watcher must not end itself.
        "SELECT pid FROM (SELECT pid FROM pg_stat_activity \
             WHERE datname = current_database() AND pid <> pg_backend_pid() OFFSET 0) AS others \
         WHERE pg_terminate_backend(pid)",
    )
    .load(&mut watcher)
    .await
    .expect("pg_terminate_backend");
    assert!(!ended.is_empty(), "the store's idle sessions were ended");
    let pids = ended
        .iter()
        .map(|row| row.pid.to_string())
        .collect::<Vec<_>>()
        .join(",");
    let alive = format!("SELECT pid FROM pg_stat_activity WHERE pid IN ({pids})");
    let mut gone = false;
    for _ in 0..200 {
        let rows: Vec<Pid> = sql_query(&alive)
            .load(&mut watcher)
            .await
            .expect("pg_stat_activity");
        if rows.is_empty() {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(gone, "the ended sessions exited");

    // At once, with no grace for the connections to notice the hang-up.
    for read in reads().await {
        assert!(
            matches!(read, Ok(None)),
            "no read after the loss gets a connection the server ended, got {read:?}"
        );
    }
}
