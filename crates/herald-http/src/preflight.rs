//! CORS preflights to the API are refused.

use crate::error::ApiError;
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::middleware::Next;

/// Keys belong on servers: `/api/v1` answers a browser's preflight with 403 and never sends CORS headers.
pub(crate) async fn refuse_preflight(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<actix_web::body::BoxBody>, actix_web::Error> {
    let path = req.path();
    if req.method() == Method::OPTIONS && (path == "/api/v1" || path.starts_with("/api/v1/")) {
        let (request, _) = req.into_parts();
        return Ok(ServiceResponse::from_err(ApiError::CorsForbidden, request));
    }
    next.call(req).await.map(ServiceResponse::map_into_boxed_body)
}
