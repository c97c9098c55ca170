//! A broadcast cancel whose PostgreSQL session is ended half-way (`pg_terminate_backend`, as an operator
//! or a failover does) leaves the broadcast `cancelling` with its first chunks cancelled, and the retry
//! finishes it: every message cancelled, no job left, the whole quota given back, `409` only then.
//! (The contract's `broadcasts_cancel_stopped_half_way_*` scenarios lose the connection by a wrapper, on
//! both stores; this one ends a real session under a statement.)

use crate::helpers::{fresh_postgres_or_skip, ports, test_name};
use diesel::sql_types::{Bool, Integer};
use diesel::{QueryableByName, sql_query};
use diesel_async::{
    AnsiTransactionManager, AsyncConnection, AsyncPgConnection, RunQueryDsl, TransactionManager,
};
use herald_domain::broadcast::BroadcastState;
use herald_domain::message::MessageStatus;
use herald_domain::usecases::BroadcastChangeError;
use herald_testkit::contract::{
    assert_really_cancelled, broadcast_of, broadcasts_use_case, new_organization_with_sender, read_broadcast,
};
use herald_testkit::fixtures::{FixedClock, at};
use std::sync::Arc;
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
async fn postgres_a_cancel_whose_session_is_ended_half_way_is_finished_by_its_retry() {
    let Some((store, guard)) = fresh_postgres_or_skip(&test_name!()).await else {
        return;
    };
    let ports = ports(&store);
    let (org, sender) = new_organization_with_sender(&ports, "starter").await;
    let request = broadcast_of(&org, &sender, 1_200, Some(100), None);
    let id = request.broadcast.id;
    ports.broadcasts.accept(&request).await.expect("accept");
    // The cancel takes the messages in id order, 500 a transaction: the 601st is in its second chunk.
    let mut ids: Vec<String> = request
        .messages
        .iter()
        .map(|m| m.message.id.to_string())
        .collect();
    ids.sort();
    let url = guard.database_url();
    let mut holder = AsyncPgConnection::establish(url)
        .await
        .expect("a holding session");
    AnsiTransactionManager::begin_transaction(&mut holder)
        .await
        .expect("begin");
    sql_query(format!(
        "SELECT 1 FROM outbox WHERE message_id = '{}' FOR UPDATE",
        ids[600]
    ))
    .execute(&mut holder)
    .await
    .expect("lock one job of the second chunk");

    let clock = Arc::new(FixedClock::new(at(10)));
    let cancelling = broadcasts_use_case(&ports, ports.schedule.clone(), clock.clone());
    let org_id = org.id;
    let cancel = tokio::spawn(async move { cancelling.cancel(&org_id, &id).await });

    let mut watcher = AsyncPgConnection::establish(url)
        .await
        .expect("a watching session");
    let waiting = "SELECT pid FROM pg_stat_activity \
                   WHERE datname = current_database() AND wait_event_type = 'Lock'";
    let mut pid = None;
    for _ in 0..400 {
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
    let pid = pid.expect("the cancel's second chunk waits on the held job");
    let ended: Vec<Terminated> = sql_query(format!("SELECT pg_terminate_backend({pid}) AS terminated"))
        .load(&mut watcher)
        .await
        .expect("pg_terminate_backend");
    assert!(ended.into_iter().next().is_some_and(|row| row.terminated));

    let outcome = cancel.await.expect("the cancel's task");
    assert!(
        matches!(outcome, Err(BroadcastChangeError::Store(_))),
        "the ended session fails the cancel: {outcome:?}"
    );
    AnsiTransactionManager::rollback_transaction(&mut holder)
        .await
        .expect("rollback");
    let view = read_broadcast(&ports, &org, &id).await;
    assert_eq!(
        view.broadcast.state,
        BroadcastState::Cancelling,
        "not cancelled yet"
    );
    assert_eq!(
        view.counts.get(MessageStatus::Cancelled),
        500,
        "the first chunk committed"
    );
    assert_eq!(view.counts.get(MessageStatus::Scheduled), 700);

    let retry = broadcasts_use_case(&ports, ports.schedule.clone(), clock);
    let view = retry
        .cancel(&org.id, &id)
        .await
        .expect("the retry finishes the cancel");
    assert_eq!(view.broadcast.state, BroadcastState::Cancelled);
    assert_really_cancelled(&ports, &org, &id, 1_200).await;
    assert!(
        matches!(
            retry.cancel(&org.id, &id).await,
            Err(BroadcastChangeError::WrongState {
                state: BroadcastState::Cancelled,
                ..
            })
        ),
        "once done, a cancel is refused"
    );
}
