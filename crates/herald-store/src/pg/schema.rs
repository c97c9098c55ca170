//! PostgreSQL tables: times are `TIMESTAMPTZ`.

/// A point in time on PostgreSQL.
pub type Moment = diesel::sql_types::Timestamptz;

/// A message's UTC day of creation as `YYYY-MM-DD` text, the one expression usage groups by: the UTC day of a `TIMESTAMPTZ`.
pub const MESSAGE_DAY: &str = "to_char(messages.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')";

crate::tables::define_tables!();
crate::tables::define_owner_tables!();
