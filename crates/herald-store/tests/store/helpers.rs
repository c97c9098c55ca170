//! Stores for the tests.

use async_trait::async_trait;
use herald_domain::ids::OrganizationId;
use herald_domain::ports::StoreError;
use herald_store::{Store, testing};
use herald_testkit::contract::{EventLog, Ports, RecordedEvent};
use std::sync::Arc;

/// A text message of a new starter organization (with its default sender), accepted by `store` as a send
/// is: through the accept batches.
pub async fn accepted_text_message(store: &Store) -> herald_domain::message::Message {
    use herald_testkit::fixtures::{accept_request, organization, sender, t0, text_message};
    let org = organization("starter");
    store.accounts().create_organization(&org).await.unwrap();
    let from = sender(org.id, "+15550001111", true);
    store.accounts().add_sender(&from).await.unwrap();
    let message = text_message(org.id, &from, "+15551234567", t0());
    let accepted = store
        .messages()
        .accept(&accept_request(&message, None, None))
        .await;
    assert_eq!(accepted.unwrap(), herald_domain::ports::AcceptOutcome::Accepted);
    message
}

/// How long a loop's wait on `notifier` (up to `timeout`) lasts when `action` runs 200 ms into it: under
/// `timeout` only if the action woke it. Waits first for PostgreSQL's listening connection to come up and
/// drops permits that earlier wake-ups left, so only the action can end the wait early.
pub async fn wait_around(
    notifier: &herald_store::WorkNotifier,
    timeout: std::time::Duration,
    action: impl Future<Output = ()>,
) -> std::time::Duration {
    use std::time::{Duration, Instant};
    tokio::time::sleep(Duration::from_millis(500)).await;
    notifier.wait(Duration::from_millis(200)).await;
    let waiter = {
        let notifier = notifier.clone();
        tokio::spawn(async move {
            let started = Instant::now();
            notifier.wait(timeout).await;
            started.elapsed()
        })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    action.await;
    tokio::time::timeout(timeout + Duration::from_secs(5), waiter)
        .await
        .expect("the waiter finishes")
        .expect("waiter task")
}

/// A wait [`wait_around`] measured was ended by its action: soon after it, and not before it.
pub fn assert_woken(waited: std::time::Duration, by: &str) {
    use std::time::Duration;
    assert!(
        waited < Duration::from_secs(20),
        "the waiter should wake soon after {by}, well before its timeout; it waited {waited:?}"
    );
    assert!(
        waited >= Duration::from_millis(150),
        "the waiter must have waited for {by}, not returned at once ({waited:?})"
    );
}

/// The ports of `store`, as the use cases hold them.
pub fn ports(store: &Store) -> Ports {
    Ports {
        accounts: store.accounts(),
        messages: store.messages(),
        templates: store.templates(),
        windows: store.windows(),
        contacts: store.contacts(),
        outbox: store.outbox(),
        tracking: store.tracking(),
        inbound: store.inbound(),
        webhooks: store.webhooks(),
        media: store.media(),
        events: Arc::new(StoreEvents(store.clone())),
        owners: store.owners(),
        pricing: store.pricing(),
        schedule: store.schedule(),
        broadcasts: store.broadcasts(),
    }
}

/// The store's customer events, for the contract's checks.
struct StoreEvents(Store);

#[async_trait]
impl EventLog for StoreEvents {
    async fn customer_events(&self, organization: &OrganizationId) -> Result<Vec<RecordedEvent>, StoreError> {
        let events = self.0.customer_events(organization).await?;
        Ok(events
            .into_iter()
            .map(|e| RecordedEvent {
                id: e.id,
                organization_id: e.organization_id,
                event_type: e.event_type,
                message_id: e.message_id,
                sequence: e.sequence,
                payload: e.payload,
                occurred_at: e.occurred_at,
                created_at: e.created_at,
            })
            .collect())
    }

    async fn apply_statuses_together(
        &self,
        updates: &[herald_domain::status::StatusUpdate],
    ) -> Result<Vec<Option<herald_domain::status::StatusApplied>>, StoreError> {
        self.0.apply_statuses_together(updates).await
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
    fresh_postgres_or_skip(test).await.map(|(store, _guard)| store)
}

/// [`postgres_or_skip`], with the database's guard kept: its URL, for reading what the store wrote with SQL
/// of the test's own ([`pg_texts`]).
pub async fn fresh_postgres_or_skip(test: &str) -> Option<(Store, testing::Guard)> {
    let fresh = testing::fresh_postgres().await.unwrap_or_else(|error| {
        panic!(
            "{} is set but no fresh PostgreSQL database could be made: {error:#}",
            testing::DATABASE_URL_ENV
        )
    });
    if fresh.is_none() {
        eprintln!("SKIPPED ({} unset): {test}", testing::DATABASE_URL_ENV);
    }
    fresh
}

/// The rows of `sql`, a query of one text column named `value`, on the PostgreSQL database at `url`.
pub async fn pg_texts(url: &str, sql: &str) -> Vec<String> {
    use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
    #[derive(diesel::QueryableByName)]
    struct Row {
        #[diesel(sql_type = diesel::sql_types::Text)]
        value: String,
    }
    let mut conn = AsyncPgConnection::establish(url).await.expect("a connection");
    let rows: Vec<Row> = diesel::sql_query(sql).load(&mut conn).await.expect(sql);
    rows.into_iter().map(|row| row.value).collect()
}

/// Runs `sql` on the database at `url`, SQLite (`sqlite://<path>`) or PostgreSQL: a row changed behind the
/// store's back, as an operator's hand edit would.
pub async fn execute_sql(url: &str, sql: &str) {
    testing::execute_sql(url, sql).await.expect(sql);
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

/// One test per store running `scenario(store)`: `$sqlite` on a fresh SQLite file, `$postgres` on a fresh
/// PostgreSQL database (skipped, saying so, without `HERALD_TEST_DATABASE_URL`).
macro_rules! on_both_stores {
    ($sqlite:ident, $postgres:ident, $scenario:path) => {
        #[tokio::test]
        async fn $sqlite() {
            $scenario(crate::helpers::sqlite().await).await;
        }

        #[tokio::test]
        async fn $postgres() {
            let Some(store) = crate::helpers::postgres_or_skip(&crate::helpers::test_name!()).await else {
                return;
            };
            $scenario(store).await;
        }
    };
}
pub(crate) use on_both_stores;
