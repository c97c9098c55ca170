//! `?dry_run`, read the same way by every endpoint that takes it.

use crate::dto::SendQuery;
use crate::error::ApiError;
use actix_web::{HttpRequest, web};

/// Whether the request asks for a dry run (`?dry_run=true`). A value other than `true` or `false` is
/// refused rather than read as either: a misspelt dry run must never send.
pub(crate) fn dry_run_requested(req: &HttpRequest) -> Result<bool, ApiError> {
    web::Query::<SendQuery>::from_query(req.query_string())
        .map(|query| query.dry_run.unwrap_or(false))
        .map_err(|_| ApiError::field("dry_run", "must be `true` or `false`"))
}
