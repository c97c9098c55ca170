//! Races the contract suite does not stage: many requests claiming one `Idempotency-Key` at once.

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
