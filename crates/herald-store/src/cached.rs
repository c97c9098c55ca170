//! Statements that stay prepared although diesel would prepare them again on every call.
//!
//! diesel marks every `UPDATE` unsafe to cache (its changeset may leave out `None` fields, so one call site
//! may write several texts), and the connection then sends it to be parsed and planned each time: on the
//! dispatch path, three status updates, the outbox's and the callbacks' updates per message were parsed and
//! planned anew, about a third of PostgreSQL's time per dispatched message (issue 18's P3). Wrapped in
//! [`Cached`], a statement is cached by its SQL text and bind types instead, so a text is prepared once per
//! connection, and a call site whose text varies still gets the right statement for each text. Only for
//! statements whose text takes a few shapes at most: each distinct text stays in the connection's cache.

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

impl<Q: QueryFragment<DB>, DB: Backend> QueryFragment<DB> for Cached<Q> {
    fn walk_ast<'b>(&'b self, pass: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.0.walk_ast(pass)
    }

    fn is_safe_to_cache_prepared(&self, _backend: &DB) -> QueryResult<bool> {
        Ok(true)
    }
}
