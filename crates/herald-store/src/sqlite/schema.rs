//! SQLite tables: times are UTC text written by diesel's `TimestamptzSqlite`.

/// A point in time on SQLite.
pub type Moment = diesel::sql_types::TimestamptzSqlite;

crate::tables::define_tables!();
crate::tables::define_owner_tables!();
