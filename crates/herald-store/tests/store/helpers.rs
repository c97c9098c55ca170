//! Stores for the tests.

use herald_store::{Store, testing};
use herald_testkit::contract::Ports;

/// The ports of `store`, as the use cases hold them.
pub fn ports(store: &Store) -> Ports {
    Ports {
        accounts: store.accounts(),
        messages: store.messages(),
        templates: store.templates(),
        windows: store.windows(),
    }
}

/// A fresh migrated SQLite store; its temporary directory goes when the store does.
pub async fn sqlite() -> Store {
    let (store, _guard) = testing::fresh_sqlite()
        .await
        .expect("a fresh SQLite store in a temporary directory");
    store
}

/// A fresh migrated PostgreSQL store, or `None` after printing the SKIPPED line when the server URL is
/// unset. A set URL with an unreachable server fails the test.
pub async fn postgres_or_skip(test: &str) -> Option<Store> {
    let fresh = testing::fresh_postgres().await.unwrap_or_else(|error| {
        panic!(
            "{} is set but no fresh PostgreSQL database could be made: {error:#}",
            testing::DATABASE_URL_ENV
        )
    });
    match fresh {
        Some((store, _guard)) => Some(store),
        None => {
            eprintln!("SKIPPED ({} unset): {test}", testing::DATABASE_URL_ENV);
            None
        }
    }
}

/// The path of the test this expands in, without the binary's name (`postgres_contract::windows_…`).
macro_rules! test_name {
    () => {{
        fn here() {}
        let path = std::any::type_name_of_val(&here);
        let path = path
            .strip_suffix("::here")
            .unwrap_or(path)
            .replace("::{{closure}}", "");
        path.split_once("::")
            .map_or(path.clone(), |(_, rest)| rest.to_owned())
    }};
}
pub(crate) use test_name;
