//! A stored callback the store cannot read back (a hand-edited id) is parked with why, instead of failing
//! the backlog's read, and listed whatever else was edited: once, a single such row failed every sweep, so
//! no stored callback after it was ever processed.

use crate::helpers::{execute_sql, fresh_postgres_or_skip, test_name};
use herald_domain::dispatch::{CallbackPage, StoredCallback};
use herald_domain::ids::EventId;
use herald_store::{Store, testing};
use herald_testkit::fixtures::{next_ulid, t0};

async fn an_unreadable_callback_is_parked_and_the_backlog_goes_on(store: Store, url: &str) {
    let tracking = store.tracking();
    let callback = |seconds: i64| StoredCallback {
        id: EventId::from_ulid(next_ulid()),
        received_at: t0() + chrono::TimeDelta::seconds(seconds),
        body: br#"{"object":"whatsapp_business_account","entry":[]}"#.to_vec(),
    };
    let (hand_edited, after) = (callback(1), callback(2));
    for stored in [&hand_edited, &after] {
        tracking.store_callback(stored).await.expect("store_callback");
    }
    execute_sql(
        url,
        &format!(
            "UPDATE network_callbacks SET id = 'edited by hand', attempts = -3 WHERE id = '{}'",
            hand_edited.id
        ),
    )
    .await;

    let now = t0() + chrono::TimeDelta::seconds(60);
    let page = tracking
        .unprocessed_callbacks(now, 10, now)
        .await
        .expect("the backlog is read despite the unreadable row");
    assert_eq!(
        page,
        CallbackPage {
            callbacks: vec![after.clone()],
            unreadable: 1
        },
        "the readable callback is listed, the other is not but counted"
    );

    let parked = tracking.parked_callbacks(10).await.expect("parked_callbacks");
    let [only] = parked.as_slice() else {
        panic!("one parked callback, got {parked:?}");
    };
    assert_eq!(only.id, "edited by hand", "listed by the id it holds");
    assert_eq!(only.parked_at, now);
    assert_eq!(
        only.attempts, 0,
        "a negative count, edited by hand too, reads as none"
    );
    assert!(
        only.last_error
            .as_deref()
            .is_some_and(|e| e.contains("unreadable stored callback") && e.contains("callback id")),
        "the reason is kept: {:?}",
        only.last_error
    );
    assert_eq!(
        tracking
            .unprocessed_callbacks(now, 10, now)
            .await
            .expect("read again"),
        CallbackPage::from(vec![after]),
        "parked, it no longer comes back"
    );
}

#[tokio::test]
async fn sqlite_an_unreadable_callback_is_parked_and_the_backlog_goes_on() {
    let (store, guard) = testing::fresh_sqlite().await.expect("a fresh SQLite store");
    an_unreadable_callback_is_parked_and_the_backlog_goes_on(store, guard.database_url()).await;
}

#[tokio::test]
async fn postgres_an_unreadable_callback_is_parked_and_the_backlog_goes_on() {
    let Some((store, guard)) = fresh_postgres_or_skip(&test_name!()).await else {
        return;
    };
    an_unreadable_callback_is_parked_and_the_backlog_goes_on(store, guard.database_url()).await;
}
