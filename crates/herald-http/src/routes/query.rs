//! The query string as the handlers read it.

use crate::error::ApiError;
use actix_web::{HttpRequest, web};
use herald_domain::Timestamp;
use herald_domain::error::InvalidValue;

/// Every `key=value` pair in order, repeats kept, so a handler can refuse a repeated filter.
pub(crate) fn query_pairs(req: &HttpRequest) -> Result<Vec<(String, String)>, ApiError> {
    web::Query::<Vec<(String, String)>>::from_query(req.query_string())
        .map(web::Query::into_inner)
        .map_err(|_| ApiError::field("query", "the query string cannot be decoded"))
}

/// A time filter: RFC 3339, any offset, read as UTC.
pub(crate) fn parse_time(value: &str) -> Result<Timestamp, InvalidValue> {
    chrono::DateTime::parse_from_rfc3339(value)
        .map(|t| t.with_timezone(&chrono::Utc))
        .map_err(|_| InvalidValue::new("must be an RFC 3339 time such as 2026-11-21T10:15:30Z"))
}

/// A page size from 1 to `max`.
pub(crate) fn parse_limit(value: &str, max: u32) -> Result<u32, InvalidValue> {
    value
        .parse::<u32>()
        .ok()
        .filter(|n| (1..=max).contains(n))
        .ok_or_else(|| InvalidValue::new(format!("must be an integer from 1 to {max}")))
}
