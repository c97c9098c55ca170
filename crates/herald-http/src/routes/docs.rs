//! The OpenAPI document and the `/docs` page rendered from it, as served.

use crate::routes::query::StrictQuery;
use actix_web::HttpResponse;
use actix_web::http::header::ContentType;
use actix_web::web::{self, Bytes};

/// The document of the routes being served, serialized and rendered once when the routes are
/// configured; the handlers find it in the app data (the document is built from the route table, which
/// names these handlers, so it cannot be a static they read).
pub(crate) struct ServedDocument {
    pub(crate) json: Bytes,
    pub(crate) html: Bytes,
}

/// This document.
#[utoipa::path(
    get,
    path = "/api/v1/openapi.json",
    tag = "operations",
    operation_id = "openapi",
    responses((status = 200, description = "The OpenAPI 3.1 document of this API.", content_type = "application/json", body = Object))
)]
pub(crate) async fn openapi_json(_: StrictQuery, document: web::Data<ServedDocument>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type(ContentType::json())
        .body(document.json.clone())
}

/// The API reference as an HTML page.
#[utoipa::path(
    get,
    path = "/docs",
    tag = "operations",
    operation_id = "docs",
    responses((status = 200, description = "The reference, rendered from the OpenAPI document.", content_type = "text/html", body = String))
)]
pub(crate) async fn docs(_: StrictQuery, document: web::Data<ServedDocument>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type(ContentType::html())
        .body(document.html.clone())
}
