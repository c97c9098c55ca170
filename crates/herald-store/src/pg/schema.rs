//! PostgreSQL tables: times are `TIMESTAMPTZ`.

/// A point in time on PostgreSQL.
pub type Moment = diesel::sql_types::Timestamptz;

crate::tables::define_tables!();
crate::tables::define_owner_tables!();
