//! Migrations on both backends, the seeded plans, and connection handling.

use crate::helpers::{postgres_or_skip, sqlite, test_name};
use herald_domain::organization::Plan;
use herald_store::{Backend, Store, StoreOptions, testing};
use std::time::Duration;

async fn assert_migrates_from_empty(store: &Store) {
    assert_eq!(
        store.pending_migrations().await.expect("pending migrations"),
        migration_count(),
        "an empty database has every migration pending"
    );
    assert!(
        store.accounts().plans().await.is_err(),
        "an unmigrated database has no plans table"
    );
    store.migrate().await.expect("migrate an empty database");
    assert_eq!(
        store.pending_migrations().await.expect("pending"),
        0,
        "nothing pending after migrate"
    );
    store.migrate().await.expect("migrating again is a no-op");
    assert_eq!(store.pending_migrations().await.expect("pending"), 0);
    assert_eq!(
        store.accounts().plans().await.expect("plans"),
        sorted_default_plans(),
        "the migration seeds exactly Plan::defaults()"
    );
}

/// How many migrations the repository holds (counted, so adding one needs no edit here).
fn migration_count() -> usize {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../migrations/sqlite");
    std::fs::read_dir(dir)
        .expect("the migrations directory")
        .filter(|entry| entry.as_ref().is_ok_and(|e| e.path().is_dir()))
        .count()
}

fn sorted_default_plans() -> Vec<Plan> {
    let mut plans = Plan::defaults();
    plans.sort_by(|a, b| a.name.cmp(&b.name));
    plans
}

#[tokio::test]
async fn sqlite_file_migrates_from_empty_and_creates_its_directory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/data/herald.db");
    let store = Store::connect(&format!("sqlite://{}", path.display()), &StoreOptions::default())
        .await
        .expect("connect creates the missing directory");
    assert!(path.exists(), "the database file exists after connect");
    assert_eq!(store.backend(), Backend::Sqlite);
    store.ping().await.expect("ping");
    assert_migrates_from_empty(&store).await;
    assert!(
        path.with_extension("db-wal").exists(),
        "connections switch the database to WAL (a -wal file next to it)"
    );
}

#[tokio::test]
async fn sqlite_in_memory_migrates_and_keeps_its_data() {
    let store = Store::connect("sqlite::memory:", &StoreOptions::default())
        .await
        .expect("connect in memory");
    assert_migrates_from_empty(&store).await;
    // Reads and writes share the one connection that holds the database.
    let organization = herald_testkit::fixtures::organization("trial");
    store
        .accounts()
        .create_organization(&organization)
        .await
        .expect("create");
    assert_eq!(
        store
            .accounts()
            .organization(&organization.id)
            .await
            .expect("read"),
        Some(organization)
    );
}

#[tokio::test]
async fn sqlite_fresh_store_is_migrated() {
    let store = sqlite().await;
    assert_eq!(store.pending_migrations().await.unwrap(), 0);
    assert_eq!(store.backend(), Backend::Sqlite);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_empty_database_migrates() {
    let empty = testing::empty_postgres().await.unwrap_or_else(|e| {
        panic!(
            "{} is set but no database could be made: {e:#}",
            testing::DATABASE_URL_ENV
        )
    });
    let Some((store, _guard)) = empty else {
        eprintln!("SKIPPED ({} unset): {}", testing::DATABASE_URL_ENV, test_name!());
        return;
    };
    assert_eq!(store.backend(), Backend::Postgres);
    store.ping().await.expect("ping");
    assert_migrates_from_empty(&store).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_fresh_store_is_migrated() {
    let Some(store) = postgres_or_skip(&test_name!()).await else {
        return;
    };
    assert_eq!(store.pending_migrations().await.unwrap(), 0);
    assert_eq!(store.accounts().plans().await.unwrap(), sorted_default_plans());
}

#[tokio::test]
async fn unreachable_postgres_fails_to_connect() {
    let options = StoreOptions {
        max_connections: 1,
        connect_timeout: Duration::from_secs(2),
        ..StoreOptions::default()
    };
    // Port 1 on loopback: nothing listens, the connection is refused at once.
    let error = Store::connect("postgres://postgres@127.0.0.1:1/none", &options)
        .await
        .expect_err("nothing listens on port 1");
    assert!(
        format!("{error:#}").contains("cannot connect to PostgreSQL"),
        "{error:#}"
    );
}

#[tokio::test]
async fn unknown_url_schemes_are_refused() {
    let error = Store::connect("mysql://localhost/x", &StoreOptions::default())
        .await
        .expect_err("mysql is not a backend");
    assert!(format!("{error}").contains("unsupported database URL"), "{error}");
}
