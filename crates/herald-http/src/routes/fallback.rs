//! The answers for what no route serves.

use crate::error::ApiError;
use actix_web::HttpResponse;

/// Unknown paths.
pub(crate) async fn not_found() -> Result<HttpResponse, ApiError> {
    Err(ApiError::NotFound)
}

/// Known paths, unknown methods.
pub(crate) async fn method_not_allowed() -> Result<HttpResponse, ApiError> {
    Err(ApiError::MethodNotAllowed)
}
