//! Herald's REST adapter (actix-web 4): the API of docs/api.md §1–§5, §7, §9 and §11.
//!
//! Handlers are thin: they turn requests into domain commands, call one use case and map its result.
//! Every failure becomes an `application/problem+json` answer through [`ApiError`], in one place.

mod auth;
mod client_address;
mod cursor;
mod dto;
mod error;
mod files;
/// The multipart front opened up for the cargo-fuzz target; only with the `fuzzing` feature.
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
mod handlers;
mod metrics;
mod multipart;
pub mod network;
mod openapi;
mod ratelimit;
mod request_id;
mod responses;
mod send_body;
mod templates;
mod webhooks;

pub use auth::Caller;
pub use client_address::{AuthFailureLimit, NoAuthFailureLimit};
pub use dto::{
    EventListResource, EventResource, MessageErrorResource, MessagePageResource, MessageResource,
    WindowResource,
};
pub use error::{ApiError, PROBLEM_JSON, Problem, ProblemField};
pub use files::MediaUploadResource;
pub use openapi::openapi;
pub use ratelimit::{KeyLimit, NoKeyLimit, SendRoute};
pub use request_id::{HeraldRootSpan, RequestId, X_REQUEST_ID};
pub use templates::{TemplateListResource, TemplateResource, TemplateSyncResource};
pub use webhooks::{
    DeliveryAttemptResource, DeliveryPageResource, DeliveryResource, WebhookListResource, WebhookResource,
    WebhookWithSecretResource,
};

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::error::JsonPayloadError;
use actix_web::http::Method;
use actix_web::middleware::{Next, from_fn};
use actix_web::{App, HttpRequest, Resource, web};
use herald_domain::ports::MediaStore;
use herald_domain::usecases::{
    Authenticate, GetMessage, ListMessages, ListTemplates, ManageWebhooks, Media, MessageEvents, SendMessage,
    SyncTemplates, WindowStatus,
};
use std::sync::Arc;
use tracing_actix_web::TracingLogger;

/// The idempotency fingerprint of a JSON send to `path` (e.g. `/api/v1/messages/send-template`): the
/// digest of the path and the body re-serialized with sorted keys and no whitespace. Exposed so tests
/// can plant the claim a handler would make.
pub fn request_fingerprint(
    path: &str,
    body: &serde_json::Value,
) -> herald_domain::values::RequestFingerprint {
    send_body::fingerprint(path, body)
}

/// The largest JSON body a send takes (docs/api.md §2: `payload_too_large` above it).
pub const JSON_LIMIT_BYTES: usize = 256 * 1024;

/// The use cases the API drives, built by the application.
pub struct ApiContext {
    pub authenticate: Authenticate,
    pub send: SendMessage,
    pub get_message: GetMessage,
    pub list_messages: ListMessages,
    pub message_events: MessageEvents,
    pub window_status: WindowStatus,
    pub templates: ListTemplates,
    pub sync_templates: Arc<SyncTemplates>,
    /// Customer webhook endpoints (docs/api.md §9).
    pub webhooks: ManageWebhooks,
    /// Uploads and reading media back (docs/api.md §4.5, §9).
    pub media: Media,
    /// Where multipart uploads are staged while they stream in.
    pub files: Arc<dyn MediaStore>,
    /// The organizations' send-rate limiter, peeked (cost 0) for the `RateLimit-*` headers; the domain
    /// itself charges sends against it.
    pub send_limiter: Arc<dyn herald_domain::ports::RateLimiter>,
    /// The per-key limit on reads (docs/api.md §3: default 50/s, burst 100).
    pub read_limiter: Arc<dyn KeyLimit>,
    /// The per-key limit on writes other than sends (docs/api.md §3: default 5/s, burst 20).
    pub write_limiter: Arc<dyn KeyLimit>,
    pub readiness: Arc<dyn Readiness>,
    /// Whose `X-Forwarded-For` names the client (`HERALD_TRUSTED_PROXIES`); empty: the TCP peer is.
    pub trusted_proxies: herald_domain::client_address::TrustedProxies,
    /// Failed authentications per client address (docs/api.md §1: default 30 a minute).
    pub auth_failures: Arc<dyn AuthFailureLimit>,
    /// `metrics_organization_labels`: label `herald_sends_total` by the caller's organization.
    pub metrics_organization_labels: bool,
}

/// Whether the service can take traffic: the store is reachable and its migrations are current.
#[async_trait::async_trait]
pub trait Readiness: Send + Sync + 'static {
    /// # Errors
    /// Why the service is not ready; logged, never shown to the caller.
    async fn check(&self) -> Result<(), String>;
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
        .app_data(json_config())
        .configure(routes)
        .default_service(web::to(handlers::not_found))
        .wrap(from_fn(ratelimit::headers))
        .wrap(TracingLogger::<HeraldRootSpan>::new())
        .wrap(from_fn(refuse_preflight))
        .wrap(from_fn(request_id::middleware))
        // Outermost, so it sees every answer as sent, errors already rendered as problems.
        .wrap(from_fn(metrics::record))
}

/// Registers Herald's own routes.
fn routes(config: &mut web::ServiceConfig) {
    config
        .service(
            web::scope("/api/v1")
                // The send operations come before `/messages/{id}`, so `GET /messages/send-text` is a 405.
                .service(
                    send_resource("/messages/send-template").route(web::post().to(handlers::send_template)),
                )
                .service(send_resource("/messages/send-text").route(web::post().to(handlers::send_text)))
                .service(send_resource("/messages/send-file").route(web::post().to(files::send_file)))
                .service(
                    send_resource("/messages/send-template-media")
                        .route(web::post().to(files::send_template_media)),
                )
                .service(resource("/media").route(web::post().to(files::upload_media)))
                .service(resource("/media/{id}/content").route(web::get().to(files::media_content)))
                .service(resource("/messages").route(web::get().to(handlers::list_messages)))
                .service(resource("/messages/{id}").route(web::get().to(handlers::get_message)))
                .service(resource("/messages/{id}/events").route(web::get().to(handlers::message_events)))
                .service(resource("/contacts/{number}/window").route(web::get().to(handlers::window)))
                .service(resource("/templates").route(web::get().to(templates::list_templates)))
                .service(resource("/templates/sync").route(web::post().to(templates::sync_templates)))
                .service(
                    resource("/templates/{name}/{language}").route(web::get().to(templates::get_template)),
                )
                .service(
                    resource("/webhooks")
                        .route(web::post().to(webhooks::create_webhook))
                        .route(web::get().to(webhooks::list_webhooks)),
                )
                .service(
                    resource("/webhooks/{id}")
                        .route(web::get().to(webhooks::get_webhook))
                        .route(web::patch().to(webhooks::update_webhook))
                        .route(web::delete().to(webhooks::delete_webhook)),
                )
                .service(
                    resource("/webhooks/{id}/rotate-secret").route(web::post().to(webhooks::rotate_secret)),
                )
                .service(resource("/webhooks/{id}/test").route(web::post().to(webhooks::test_webhook)))
                .service(
                    resource("/webhooks/{id}/deliveries").route(web::get().to(webhooks::list_deliveries)),
                )
                .service(
                    resource("/webhooks/{id}/deliveries/{delivery_id}/redeliver")
                        .route(web::post().to(webhooks::redeliver)),
                )
                .service(resource("/webhooks/{id}/recover").route(web::post().to(webhooks::recover)))
                .service(resource("/openapi.json").route(web::get().to(handlers::openapi_json)))
                .default_service(web::to(handlers::not_found)),
        )
        .service(resource("/healthz").route(web::get().to(handlers::healthz)))
        .service(resource("/readyz").route(web::get().to(handlers::readyz)))
        .service(resource("/docs").route(web::get().to(handlers::docs)));
}

/// A resource that answers other methods with a `method_not_allowed` problem.
fn resource(path: &str) -> Resource {
    web::resource(path).default_service(web::to(handlers::method_not_allowed))
}

/// A send operation's resource: the send rate bounds it, not the per-key write limit.
fn send_resource(path: &str) -> Resource {
    resource(path).app_data(SendRoute)
}

fn json_config() -> web::JsonConfig {
    web::JsonConfig::default()
        .limit(JSON_LIMIT_BYTES)
        .error_handler(json_error)
}

fn json_error(error: JsonPayloadError, _: &HttpRequest) -> actix_web::Error {
    use actix_web::error::PayloadError;
    let api = match &error {
        JsonPayloadError::OverflowKnownLength { limit, .. } | JsonPayloadError::Overflow { limit } => {
            ApiError::PayloadTooLarge { limit: *limit }
        }
        JsonPayloadError::Payload(PayloadError::Overflow) => ApiError::PayloadTooLarge {
            limit: JSON_LIMIT_BYTES,
        },
        JsonPayloadError::ContentType => ApiError::UnsupportedMediaType,
        JsonPayloadError::Deserialize(reason) => ApiError::InvalidJson(reason.to_string()),
        JsonPayloadError::Payload(_) => ApiError::InvalidJson("the body could not be read".to_owned()),
        other => ApiError::Internal(anyhow::anyhow!("reading a JSON body: {other}")),
    };
    api.into()
}

/// Keys belong on servers: `/api/v1` answers a browser's preflight with 403 and never sends CORS headers.
async fn refuse_preflight(
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
