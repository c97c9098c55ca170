//! Herald's REST adapter (actix-web 4): the API of docs/api.md §1–§5, §7, §9 and §11.
//!
//! Handlers are thin: they turn requests into domain commands, call one use case and map its result.
//! Every failure becomes an `application/problem+json` answer through [`ApiError`], in one place.

mod auth;
mod client_address;
mod context;
mod cursor;
mod dry_run;
mod dto;
mod error;
/// The multipart front opened up for the cargo-fuzz target; only with the `fuzzing` feature.
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
mod json_body;
pub mod metrics;
mod multipart;
pub mod network;
mod openapi;
mod preflight;
mod ratelimit;
mod request_id;
mod responses;
mod routes;
mod send_body;

pub use auth::{Caller, CallerInAnyState};
pub use client_address::{AuthFailureLimit, NoAuthFailureLimit};
pub use context::{ApiContext, Readiness};
pub use dto::{
    BroadcastCreatedResource, BroadcastPageResource, BroadcastResource, EventListResource, EventResource,
    MessageErrorResource, MessagePageResource, MessageResource, WindowResource,
};
pub use error::{ApiError, PROBLEM_JSON, Problem, ProblemField, RejectedRowResource};
pub use json_body::JSON_LIMIT_BYTES;
pub use ratelimit::{KeyLimit, NoKeyLimit, SendRoute};
pub use request_id::{HeraldRootSpan, RequestId, X_REQUEST_ID};
pub use routes::media::MediaUploadResource;
pub use routes::templates::{TemplateListResource, TemplateResource, TemplateSyncResource};
pub use routes::webhooks::{
    DeliveryAttemptResource, DeliveryPageResource, DeliveryResource, WebhookListResource, WebhookResource,
    WebhookWithSecretResource,
};

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::middleware::from_fn;
use actix_web::{App, web};
use tracing_actix_web::TracingLogger;

/// The OpenAPI document of every route this crate serves.
pub fn openapi() -> utoipa::openapi::OpenApi {
    routes::openapi()
}

/// The idempotency fingerprint of a JSON send to `path` (e.g. `/api/v1/messages/send-template`): the
/// digest of the path and the body re-serialized with sorted keys and no whitespace. Exposed so tests
/// can plant the claim a handler would make.
pub fn request_fingerprint(
    path: &str,
    body: &serde_json::Value,
) -> herald_domain::values::RequestFingerprint {
    send_body::fingerprint(path, body)
}

/// The whole application with every middleware; other crates add routes with `.configure(...)` (later:
/// the simulator under /simulator, /webhooks/whatsapp, /dashboard).
///
/// Middleware, outermost first: request id (and problem rendering), CORS-preflight refusal, request
/// tracing.
pub fn app(
    ctx: web::Data<ApiContext>,
) -> App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    App::new()
        .app_data(ctx)
        .app_data(json_body::json_config())
        .configure(routes::configure)
        .default_service(web::to(routes::fallback::not_found))
        .wrap(from_fn(ratelimit::headers))
        .wrap(TracingLogger::<HeraldRootSpan>::new())
        .wrap(from_fn(preflight::refuse_preflight))
        .wrap(from_fn(request_id::middleware))
        // Outermost, so it sees every answer as sent, errors already rendered as problems.
        .wrap(from_fn(metrics::record))
}
