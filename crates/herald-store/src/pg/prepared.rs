//! SQL-text statements that stay prepared.
//!
//! diesel's `sql_query` marks itself unsafe to cache, so PostgreSQL parses and plans it on every call; on
//! the accept path that parse cost more server CPU per message than the inserts themselves. A
//! [`Fixed`] statement's text is a constant (array binds, never a text that grows with the batch), so the
//! connection's statement cache keys it by that text and prepares it once per connection.

use diesel::QueryResult;
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::serialize::ToSql;
use diesel::sql_types::HasSqlType;
use std::marker::PhantomData;

/// A statement of constant text and its binds, in `$1, $2, …` order.
pub(crate) struct Fixed<B> {
    sql: &'static str,
    binds: B,
}

/// A statement with no binds yet.
pub(crate) fn fixed(sql: &'static str) -> Fixed<()> {
    Fixed { sql, binds: () }
}

/// The binds so far (`prev`) and one more, of SQL type `ST`.
pub(crate) struct Bound<P, ST, V> {
    prev: P,
    value: V,
    sql_type: PhantomData<ST>,
}

impl<B> Fixed<B> {
    /// Binds the next `$n`.
    pub(crate) fn bind<ST, V>(self, value: V) -> Fixed<Bound<B, ST, V>> {
        Fixed {
            sql: self.sql,
            binds: Bound {
                prev: self.binds,
                value,
                sql_type: PhantomData,
            },
        }
    }
}

/// A list of binds; `$n` is the `n`th bound (1-based).
pub(crate) trait Binds {
    /// How many are bound.
    const LEN: usize;
    fn walk_nth<'b>(&'b self, n: usize, out: AstPass<'_, 'b, Pg>) -> QueryResult<()>;
}

impl Binds for () {
    const LEN: usize = 0;
    fn walk_nth<'b>(&'b self, n: usize, _out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        Err(diesel::result::Error::QueryBuilderError(
            format!("${n} has no bound value").into(),
        ))
    }
}

impl<P: Binds, ST, V: ToSql<ST, Pg>> Binds for Bound<P, ST, V>
where
    Pg: HasSqlType<ST>,
{
    const LEN: usize = P::LEN + 1;
    fn walk_nth<'b>(&'b self, n: usize, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        if n == Self::LEN {
            out.push_bind_param::<ST, V>(&self.value)
        } else {
            self.prev.walk_nth(n, out.reborrow())
        }
    }
}

/// The text is written with diesel's own placeholders in place of each `$n`, and each `$n`'s value bound
/// there, so the placeholders may come in any order (diesel numbers them in the order they are written);
/// each may appear once.
impl<B: Binds> QueryFragment<Pg> for Fixed<B> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        let mut rest = self.sql;
        while let Some(at) = rest.find('$') {
            out.push_sql(&rest[..at]);
            let digits = rest[at + 1..]
                .find(|c: char| !c.is_ascii_digit())
                .map_or(rest.len() - at - 1, |end| end);
            let n: usize = rest[at + 1..at + 1 + digits]
                .parse()
                .map_err(|_| diesel::result::Error::QueryBuilderError("a `$` without a number".into()))?;
            self.binds.walk_nth(n, out.reborrow())?;
            rest = &rest[at + 1 + digits..];
        }
        out.push_sql(rest);
        Ok(())
    }
}
/// No static id: the statement cache keys it by its text (and bind types), which never change.
impl<B> QueryId for Fixed<B> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}
