//! Liveness and readiness (docs/api.md §11).

use crate::context::ApiContext;
use crate::dto::HealthResource;
use crate::error::{ApiError, HandlerResult, Problem};
use crate::routes::query::StrictQuery;
use actix_web::{HttpResponse, web};

/// Whether the process is alive.
#[utoipa::path(
    get,
    path = "/healthz",
    tag = "operations",
    operation_id = "healthz",
    responses((status = 200, description = "Alive.", body = HealthResource))
)]
pub(crate) async fn healthz(_: StrictQuery) -> HttpResponse {
    HttpResponse::Ok().json(HealthResource {
        status: "ok".to_owned(),
    })
}

/// Whether the store is reachable and its migrations current.
#[utoipa::path(
    get,
    path = "/readyz",
    tag = "operations",
    operation_id = "readyz",
    responses(
        (status = 200, description = "Ready.", body = HealthResource),
        (status = 503, description = "`unavailable`: not ready.", body = Problem, content_type = "application/problem+json"),
    )
)]
pub(crate) async fn readyz(_: StrictQuery, ctx: web::Data<ApiContext>) -> HandlerResult {
    match ctx.readiness.check().await {
        Ok(()) => Ok(HttpResponse::Ok().json(HealthResource {
            status: "ok".to_owned(),
        })),
        // The reason goes to the log (with the request id), not to whoever asked.
        Err(reason) => Err(ApiError::Unavailable(reason).into()),
    }
}
