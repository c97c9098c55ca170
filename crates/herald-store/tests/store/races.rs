//! Races the contract suite does not stage: many requests claiming one `Idempotency-Key` at once, and a
//! status report that waits for its message's lock while the holder numbers an event.

use crate::helpers::{postgres_or_skip, sqlite, test_name};
use chrono::TimeDelta;
use herald_domain::ports::{IdempotencyBegin, IdempotencyClaim};
use herald_domain::values::RequestFingerprint;
use herald_store::Store;
use herald_testkit::fixtures::{at, idempotency_key, organization};

const RACERS: usize = 16;

/// `RACERS` claims of one key at once, all at `at(seconds)`: how many answered `Started`.
async fn race(store: &Store, claim: &IdempotencyClaim) -> usize {
    let tasks: Vec<_> = (0..RACERS)
        .map(|_| {
            let messages = store.messages();
            let claim = claim.clone();
            tokio::spawn(async move { messages.begin_idempotent(&claim).await })
        })
        .collect();
    let mut started = 0;
    for task in tasks {
        match task.await.expect("racer task").expect("begin_idempotent") {
            IdempotencyBegin::Started => started += 1,
            IdempotencyBegin::InFlight { fingerprint } => assert_eq!(fingerprint, claim.fingerprint),
            other => panic!("a pending key cannot answer {other:?}"),
        }
    }
    started
}

async fn one_racer_wins_a_new_and_an_abandoned_key(store: Store) {
    let org = organization("starter");
    store
        .accounts()
        .create_organization(&org)
        .await
        .expect("organization");
    let key = idempotency_key("race-1");
    let claim_at = |seconds| {
        let now = at(seconds);
        IdempotencyClaim {
            organization_id: org.id,
            key: key.clone(),
            token: herald_domain::dispatch::ClaimToken(herald_testkit::fixtures::next_ulid()),
            fingerprint: RequestFingerprint::of(b"body"),
            now,
            lock_until: now - TimeDelta::seconds(60),
            completed_after: now - TimeDelta::hours(24),
        }
    };
    assert_eq!(
        race(&store, &claim_at(0)).await,
        1,
        "exactly one racer claims a new key"
    );
    assert_eq!(
        race(&store, &claim_at(30)).await,
        0,
        "nobody takes over a claim that is still live"
    );
    assert_eq!(
        race(&store, &claim_at(600)).await,
        1,
        "exactly one racer takes over an abandoned claim"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_one_racer_wins_each_idempotency_claim() {
    one_racer_wins_a_new_and_an_abandoned_key(sqlite().await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_one_racer_wins_each_idempotency_claim() {
    let Some(store) = postgres_or_skip(&test_name!()).await else {
        return;
    };
    one_racer_wins_a_new_and_an_abandoned_key(store).await;
}

/// PostgreSQL, read committed: a statement sees what committed before it began. A status report that waits
/// for its message's row lock must number its customer event after the events the lock's holder committed
/// meanwhile, so its sequence is read by a statement that begins after the lock is granted (a read inside
/// the locking statement, as once written, took the holder's number: a unique violation). Staged, not left
/// to chance: the holder locks the message and writes the next event, the report is started and seen waiting
/// (`pg_stat_activity`), then the holder commits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_report_that_waited_for_its_message_numbers_its_event_after_the_holders() {
    use diesel::sql_types::{Integer, Text};
    use diesel::{QueryableByName, sql_query};
    use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl, TransactionManager};
    use herald_domain::ids::EventId;
    use herald_domain::message::{EventSource, MessageStatus};
    use herald_domain::status::{StatusReport, StatusUpdate, Transition};
    use herald_testkit::fixtures::{next_ulid, t0};

    #[derive(QueryableByName)]
    struct Sequence {
        #[diesel(sql_type = Integer)]
        sequence: i32,
    }
    async fn sequences(conn: &mut AsyncPgConnection, id: &str) -> Vec<i32> {
        sql_query("SELECT sequence FROM events WHERE message_id = $1 ORDER BY sequence")
            .bind::<Text, _>(id)
            .load::<Sequence>(conn)
            .await
            .unwrap()
            .into_iter()
            .map(|s| s.sequence)
            .collect()
    }
    #[derive(QueryableByName)]
    struct Waiting {
        #[diesel(sql_type = Integer)]
        sessions: i32,
    }
    let Some((store, guard)) = crate::helpers::fresh_postgres_or_skip(&test_name!()).await else {
        return;
    };
    let message = crate::helpers::accepted_text_message(&store).await;
    let id = message.id.to_string();
    let mut holder = AsyncPgConnection::establish(guard.database_url()).await.unwrap();
    let before = sequences(&mut holder, &id).await;
    let held = before.last().copied().unwrap_or(0) + 1;
    diesel_async::AnsiTransactionManager::begin_transaction(&mut holder)
        .await
        .unwrap();
    sql_query("SELECT id FROM messages WHERE id = $1 FOR UPDATE")
        .bind::<Text, _>(&id)
        .execute(&mut holder)
        .await
        .unwrap();
    sql_query(
        "INSERT INTO events (id, organization_id, event_type, message_id, sequence, payload, occurred_at, \
         created_at) SELECT 'evt_holder', organization_id, 'message.status', id, $2, '{}', now(), now() \
         FROM messages WHERE id = $1",
    )
    .bind::<Text, _>(&id)
    .bind::<Integer, _>(held)
    .execute(&mut holder)
    .await
    .unwrap();

    let update = StatusUpdate {
        organization_id: message.organization_id,
        message_id: message.id,
        report: StatusReport {
            status: MessageStatus::Sent,
            occurred_at: t0() + TimeDelta::seconds(5),
            error: None,
        },
        network_message_id: Some("wamid.race".to_owned()),
        source: EventSource::Network,
        event_id: EventId::from_ulid(next_ulid()),
        customer_event_id: EventId::from_ulid(next_ulid()),
        recorded_at: t0() + TimeDelta::seconds(6),
        pricing: None,
    };
    let tracking = store.tracking();
    let report = tokio::spawn(async move { tracking.apply_status(&update).await });

    // Watched from a session of its own: inside the holder's transaction pg_stat_activity stays the
    // snapshot of its first read.
    let mut watcher = AsyncPgConnection::establish(guard.database_url()).await.unwrap();
    let mut waited = false;
    for _ in 0..200 {
        let rows: Vec<Waiting> = sql_query(
            "SELECT count(*)::int AS sessions FROM pg_stat_activity \
             WHERE datname = current_database() AND wait_event_type = 'Lock'",
        )
        .load(&mut watcher)
        .await
        .unwrap();
        if rows.iter().any(|row| row.sessions > 0) {
            waited = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert!(waited, "the report waits for the message's lock");
    diesel_async::AnsiTransactionManager::commit_transaction(&mut holder)
        .await
        .unwrap();

    let applied = report
        .await
        .unwrap()
        .expect("the report is applied after the holder's commit, not refused as a duplicate sequence")
        .expect("the message exists");
    assert!(matches!(applied.transition, Transition::Applied { .. }));
    let after = sequences(&mut watcher, &id).await;
    assert_eq!(
        after.last().copied(),
        Some(held + 1),
        "the report's event follows the holder's: {before:?} then {after:?}"
    );
}
