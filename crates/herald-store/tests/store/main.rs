//! herald-store's integration tests: the store ports' contract suite (herald-testkit) against SQLite and
//! PostgreSQL, and the migrations and connection handling of both backends.
//!
//! PostgreSQL tests need `HERALD_TEST_DATABASE_URL` (e.g. `postgres://postgres@127.0.0.1:5432/test`);
//! without it they print `SKIPPED (HERALD_TEST_DATABASE_URL unset): <test>` and pass.

// Helpers outside `#[test]` functions are test code too: a broken expectation must stop the test.
#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::panic,
    reason = "test code: failing loudly is the point"
)]

mod accept_batches;
mod broadcast_cancel;
mod callbacks;
mod connection_loss;
mod erasure;
mod helpers;
mod inline;
mod migration_contacts;
mod migration_events;
mod migrations;
mod notifier;
mod races;
mod read_cache;
mod retention;
mod test_databases;
mod webhooks;

use helpers::{ports, postgres_or_skip, sqlite};

mod sqlite_contract {
    use super::*;

    herald_testkit::contract_suite!(async { ports(&sqlite().await) });
}

mod postgres_contract {
    use super::*;

    herald_testkit::contract_suite!({
        let Some(store) = postgres_or_skip(&helpers::test_name!()).await else {
            return;
        };
        std::future::ready(ports(&store))
    });
}
