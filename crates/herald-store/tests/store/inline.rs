//! Store calls run inline on the caller's runtime (`src/inline.rs`).

use herald_store::{Store, StoreOptions};

/// actix runs every worker on a current-thread runtime; a store call whose future is dropped there (a
/// client disconnecting mid-request) must not panic.
#[tokio::test(flavor = "current_thread")]
async fn a_call_dropped_mid_way_on_a_current_thread_runtime_does_not_panic() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("h.db").display());
    let store = Store::connect(&url, &StoreOptions::default()).await.unwrap();
    store.migrate().await.unwrap();
    let accounts = store.accounts();
    // Warm the pool so the first poll reaches SQLite itself.
    accounts.plans().await.unwrap();
    for _ in 0..20 {
        let call = accounts.plans();
        drop(futures::FutureExt::now_or_never(call));
    }
    assert_eq!(accounts.plans().await.unwrap().len(), 4);
}
