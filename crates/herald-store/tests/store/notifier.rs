//! Dispatch wake-ups: a worker waiting for work wakes soon after a message is accepted, long before its
//! (polling-fallback) timeout.

use crate::helpers::{assert_woken, postgres_or_skip, sqlite, test_name, wait_around};
use herald_store::Store;
use herald_testkit::fixtures::{SIMULATOR_SENDER_1, accept_request, at, organization, sender, text_message};
use std::time::{Duration, Instant};

/// A wait whose timeout no passing run gets near.
const LONG: Duration = Duration::from_secs(60);

async fn a_waiter_wakes_after_an_accept(store: Store) {
    let org = organization("starter");
    store
        .accounts()
        .create_organization(&org)
        .await
        .expect("organization");
    let sender = sender(org.id, SIMULATOR_SENDER_1, true);
    store.accounts().add_sender(&sender).await.expect("sender");

    let message = text_message(org.id, &sender, "+15551234567", at(0));
    let waited = wait_around(&store.work_notifier(), LONG, async {
        store
            .messages()
            .accept(&accept_request(&message, None, None))
            .await
            .expect("accept");
    })
    .await;
    assert_woken(waited, "the accept");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_waiter_wakes_after_an_accept() {
    a_waiter_wakes_after_an_accept(sqlite().await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_waiter_wakes_after_an_accept() {
    let Some(store) = postgres_or_skip(&test_name!()).await else {
        return;
    };
    a_waiter_wakes_after_an_accept(store).await;
}

#[tokio::test]
async fn a_wait_without_work_ends_at_its_timeout() {
    let store = sqlite().await;
    let started = Instant::now();
    store.work_notifier().wait(Duration::from_millis(100)).await;
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(100) && waited < Duration::from_secs(10),
        "{waited:?}"
    );
}
