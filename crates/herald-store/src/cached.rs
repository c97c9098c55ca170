//! Statements that stay prepared although diesel would prepare them again on every call.
//!
//! diesel marks every `UPDATE` unsafe to cache (its changeset may leave out `None` fields, so one call site
//! may write several texts), and the connection then sends it to be parsed and planned each time: on the
//! dispatch path, three status updates, the outbox's and the callbacks' updates per message were parsed and
//! planned anew, about a third of PostgreSQL's time per dispatched message in P3 (docs/benchmarks-history.md,
//! "A callback and its status in one transaction; hot updates cached"). Wrapped in [`Cached`], a statement is
//! cached by its SQL text and bind types instead, so a text is prepared once per connection, and a call site
//! whose text varies still gets the right statement for each text. Only for statements whose text takes a few
//! shapes at most: each distinct text stays in the connection's cache.

use diesel::QueryResult;
use diesel::backend::Backend;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};

/// `statement`, cached by its text (see the module).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cached<Q>(pub(crate) Q);

impl<Q> QueryId for Cached<Q> {
    type QueryId = ();
    // No static id: the cache keys it by its SQL text and bind types.
    const HAS_STATIC_QUERY_ID: bool = false;
}

// So that a cached `UPDATE … RETURNING` loads its rows.
impl<Q: diesel::query_builder::Query> diesel::query_builder::Query for Cached<Q> {
    type SqlType = Q::SqlType;
}

impl<Q: QueryFragment<DB>, DB: Backend> QueryFragment<DB> for Cached<Q> {
    fn walk_ast<'b>(&'b self, pass: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.0.walk_ast(pass)
    }

    fn is_safe_to_cache_prepared(&self, _backend: &DB) -> QueryResult<bool> {
        Ok(true)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]
    use super::Cached;
    use crate::pg::schema::network_callbacks;
    use diesel::prelude::*;
    use diesel::sql_types::BigInt;
    use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};

    /// A connection of its own to a fresh migrated PostgreSQL database (the guard drops the database), or
    /// `None`, said on stderr, when no server is configured.
    pub(crate) async fn fresh_connection() -> Option<(crate::testing::Guard, AsyncPgConnection)> {
        let Some((_store, guard)) = crate::testing::fresh_postgres().await.expect("PostgreSQL") else {
            eprintln!("skipped: {} is not set", crate::testing::DATABASE_URL_ENV);
            return None;
        };
        let conn = AsyncPgConnection::establish(guard.database_url())
            .await
            .expect("a connection");
        Some((guard, conn))
    }

    /// The statements a PostgreSQL session keeps prepared whose text starts with `prefix`.
    pub(crate) async fn prepared_statements(conn: &mut AsyncPgConnection, prefix: &str) -> i64 {
        diesel::select(diesel::dsl::sql::<BigInt>(&format!(
            "(SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE '{prefix}%')"
        )))
        .get_result(conn)
        .await
        .expect("pg_prepared_statements")
    }

    /// The statements a PostgreSQL session keeps prepared that update `network_callbacks`.
    async fn prepared_updates(conn: &mut AsyncPgConnection) -> i64 {
        prepared_statements(conn, "UPDATE \"network_callbacks\"").await
    }

    /// Run twice on one connection, diesel's own update is prepared neither time (PostgreSQL parses and
    /// plans it each time); the same update in `Cached` is prepared once and kept.
    #[tokio::test]
    async fn a_cached_update_stays_prepared_on_its_connection() {
        let Some((_guard, mut conn)) = fresh_connection().await else {
            return;
        };
        let update = || {
            diesel::update(network_callbacks::table.find("cb_none"))
                .set(network_callbacks::note.eq(Some("seen")))
        };
        for _ in 0..2 {
            update().execute(&mut conn).await.expect("update");
        }
        assert_eq!(
            prepared_updates(&mut conn).await,
            0,
            "diesel prepares updates anew"
        );
        for _ in 0..2 {
            Cached(update()).execute(&mut conn).await.expect("cached update");
        }
        assert_eq!(prepared_updates(&mut conn).await, 1, "prepared once, then reused");
    }
}
