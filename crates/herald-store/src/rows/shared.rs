//! What every row file uses: conversions between stored and domain values, and the `row!` declaration.

use crate::dto::ErrorDto;
use crate::error::corrupt;
use chrono::{DateTime, Utc};
use herald_domain::message::MessageError;
use herald_domain::ports::StoreError;
use std::fmt::Display;

pub(super) type Time = DateTime<Utc>;

/// Parses a stored value with a domain constructor, reporting a failure as corrupt data.
pub(super) fn parse<T, E: Display>(what: &str, result: Result<T, E>) -> Result<T, StoreError> {
    result.map_err(|e| corrupt(what, e))
}

pub(super) fn to_u32(what: &str, value: i32) -> Result<u32, StoreError> {
    parse(what, u32::try_from(value))
}

pub(super) fn to_u64(what: &str, value: i64) -> Result<u64, StoreError> {
    parse(what, u64::try_from(value))
}

/// A count or limit for a signed 32-bit column.
pub(crate) fn to_i32(what: &str, value: u32) -> Result<i32, StoreError> {
    i32::try_from(value)
        .map_err(|_| StoreError::Unknown(anyhow::anyhow!("{what} {value} is too large to store")))
}

pub(crate) fn to_i64(what: &str, value: u64) -> Result<i64, StoreError> {
    i64::try_from(value)
        .map_err(|_| StoreError::Unknown(anyhow::anyhow!("{what} {value} is too large to store")))
}

/// A quota limit for the conditional increment; beyond `i64::MAX` is as good as unlimited.
pub(crate) fn quota_ceiling(limit: Option<u64>) -> i64 {
    limit.map_or(i64::MAX, |l| i64::try_from(l).unwrap_or(i64::MAX))
}

pub(crate) fn to_json<T: serde::Serialize>(what: &str, value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value)
        .map_err(|e| StoreError::Unknown(anyhow::anyhow!("cannot encode {what}: {e}")))
}

pub(super) fn from_json<T: serde::de::DeserializeOwned>(what: &str, text: &str) -> Result<T, StoreError> {
    parse(what, serde_json::from_str(text))
}

pub(crate) fn error_json(error: Option<&MessageError>) -> Result<Option<String>, StoreError> {
    error
        .map(|e| to_json("message error", &ErrorDto::from(e)))
        .transpose()
}

pub(super) fn parse_error(text: Option<&str>) -> Result<Option<MessageError>, StoreError> {
    text.map(|t| from_json::<ErrorDto>("message error", t).map(MessageError::from))
        .transpose()
}

/// Declares a row struct of `$table` and its `Selectable` on PostgreSQL and on SQLite, from one list of
/// fields each named after its column: the select clause and the struct's fields cannot disagree.
macro_rules! row {
    (
        $(#[$meta:meta])*
        pub(crate) struct $name:ident in $table:ident {
            $( $(#[$field_meta:meta])* pub $field:ident : $ty:ty, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(diesel::Queryable)]
        pub(crate) struct $name {
            $( $(#[$field_meta])* pub $field: $ty, )*
        }

        impl diesel::Selectable<diesel::pg::Pg> for $name {
            type SelectExpression = ( $( crate::pg::schema::$table::$field, )* );

            fn construct_selection() -> Self::SelectExpression {
                ( $( crate::pg::schema::$table::$field, )* )
            }
        }

        impl diesel::Selectable<diesel::sqlite::Sqlite> for $name {
            type SelectExpression = ( $( crate::sqlite::schema::$table::$field, )* );

            fn construct_selection() -> Self::SelectExpression {
                ( $( crate::sqlite::schema::$table::$field, )* )
            }
        }
    };
}
