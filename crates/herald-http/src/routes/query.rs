//! The query string as the handlers read it.

use crate::error::ApiError;
use actix_web::{HttpRequest, web};

/// Every `key=value` pair in order, repeats kept, so a handler can refuse a repeated filter.
pub(crate) fn query_pairs(req: &HttpRequest) -> Result<Vec<(String, String)>, ApiError> {
    web::Query::<Vec<(String, String)>>::from_query(req.query_string())
        .map(web::Query::into_inner)
        .map_err(|_| ApiError::field("query", "the query string cannot be decoded"))
}
