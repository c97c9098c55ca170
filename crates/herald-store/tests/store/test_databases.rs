//! The test databases themselves (`herald_store::testing`): one a finished run could not drop is dropped later.

use herald_store::testing;
use std::time::{Duration, SystemTime};

/// A `t_<ulid>` database two hours old (a run's leftover) is gone once the next fresh database is made; one
/// made a minute ago (a test still running) is left alone.
#[tokio::test]
async fn a_test_database_left_over_from_an_earlier_run_is_dropped() {
    let Ok(server) = std::env::var(testing::DATABASE_URL_ENV) else {
        eprintln!("SKIPPED ({} unset): test_databases", testing::DATABASE_URL_ENV);
        return;
    };
    let named = |ago: Duration| {
        let ulid = ulid::Ulid::from_datetime(SystemTime::now() - ago);
        format!("t_{}", ulid.to_string().to_lowercase())
    };
    let (old, recent) = (
        named(Duration::from_secs(2 * 3600)),
        named(Duration::from_secs(60)),
    );
    for name in [&old, &recent] {
        testing::execute_sql(&server, &format!("CREATE DATABASE \"{name}\""))
            .await
            .unwrap();
    }

    let fresh = testing::fresh_postgres().await.unwrap();
    assert!(fresh.is_some());

    let dropped = testing::execute_sql(&server, &format!("DROP DATABASE \"{old}\"")).await;
    assert!(
        dropped.is_err_and(|error| error.to_string().contains("does not exist")),
        "the leftover must already be gone"
    );
    testing::execute_sql(&server, &format!("DROP DATABASE \"{recent}\""))
        .await
        .expect("a recent test database is left alone");
}
