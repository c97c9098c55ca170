//! SQLite tables: times are UTC text written by diesel's `TimestamptzSqlite`.

/// A point in time on SQLite.
pub type Moment = diesel::sql_types::TimestamptzSqlite;

/// A message's UTC day of creation as `YYYY-MM-DD` text, the one expression usage groups by: the first ten characters of the UTC text (`YYYY-MM-DD …`; usage asks only of four-digit years).
pub const MESSAGE_DAY: &str = "substr(messages.created_at, 1, 10)";

crate::tables::define_tables!();
crate::tables::define_owner_tables!();
