//! The HTTP surface under `/simulator`: Cloud API paths and the control API.

mod block;
mod control;
mod faults;
mod fields;
mod graph;
mod inbound;
mod interactive;
mod marketing;
mod media;
mod messages;
mod notices;
mod phone_numbers;
mod shapes;
mod subscribed_apps;
mod template_review;
mod template_send;
mod templates;

use std::sync::Arc;

use actix_web::{HttpRequest, HttpResponse, Resource, web};

use crate::error::GraphError;
use crate::simulator::Simulator;
use graph::MAX_FILE_BYTES;

/// The multipart request around a file of [`MAX_FILE_BYTES`]: its other fields and part headers.
const MAX_UPLOAD_BYTES: usize = MAX_FILE_BYTES + 1024 * 1024;
/// A control inbound call carries its file as base64 (4 characters per 3 bytes) inside JSON.
const MAX_INBOUND_BYTES: usize = MAX_FILE_BYTES / 3 * 4 + 1024 * 1024;

/// Where every route is mounted.
const SCOPE: &str = "/simulator";

pub(crate) fn configure(cfg: &mut web::ServiceConfig, simulator: Arc<Simulator>) {
    // Control and download paths come first: the Graph patterns below would otherwise claim them.
    cfg.service(
        web::scope(SCOPE)
            .app_data(web::Data::from(simulator))
            .service(
                web::resource("/control/inbound")
                    .app_data(web::JsonConfig::default().limit(MAX_INBOUND_BYTES))
                    .route(web::post().to(control::inbound)),
            )
            .route("/control/sent", web::get().to(control::sent))
            .route("/control/notice", web::post().to(notices::notice))
            .route(
                "/control/user-preferences",
                web::post().to(control::user_preferences),
            )
            .route(
                "/control/marketing-messages",
                web::post().to(marketing::onboarding),
            )
            .route("/control/faults", web::post().to(faults::set))
            .route("/control/faults", web::get().to(faults::current))
            .route("/media-download/{media_id}", web::get().to(media::download))
            // Each Graph resource is served with a version segment and without one (see `graph_resources`).
            .configure(graph_resources)
            .default_service(web::to(unknown_path)),
    );
}

/// The Graph resources, each under `/vNN.N` and unversioned: Graph sends a call without a version to the
/// oldest version the app can use (docs/cloud-api.md §8.1), and some clients call it that way (one Node.js
/// client posts `block_users` unversioned). Every object id is the path parameter `id` ([`graph::GraphPath`]).
fn graph_resources(cfg: &mut web::ServiceConfig) {
    graph(cfg, "/{id}/messages", |r| r.route(web::post().to(messages::send)));
    graph(cfg, "/{id}/marketing_messages", |r| {
        r.route(web::post().to(messages::send_marketing))
    });
    graph(cfg, "/{id}/block_users", |r| {
        r.route(web::post().to(block::block))
            .route(web::delete().to(block::unblock))
    });
    graph(cfg, "/{id}/media", |r| {
        r.app_data(web::PayloadConfig::new(MAX_UPLOAD_BYTES))
            .route(web::post().to(media::upload))
    });
    graph(cfg, "/{id}/message_templates", |r| {
        r.route(web::get().to(templates::list))
            .route(web::post().to(template_review::create))
            .route(web::delete().to(template_review::delete))
    });
    graph(cfg, "/{id}/phone_numbers", |r| {
        r.route(web::get().to(phone_numbers::list))
    });
    graph(cfg, "/{id}/subscribed_apps", |r| {
        r.route(web::get().to(subscribed_apps::list))
            .route(web::post().to(subscribed_apps::subscribe))
            .route(web::delete().to(subscribed_apps::unsubscribe))
    });
    graph(cfg, "/{id}/uploads", |r| {
        r.route(web::post().to(template_review::start_upload))
    });
    // Last: a single id would otherwise claim the paths above. A phone number id is read as a phone
    // number, any other id as a media object.
    graph(cfg, "/{id}", |r| {
        r.app_data(web::PayloadConfig::new(MAX_UPLOAD_BYTES))
            .route(web::get().to(phone_numbers::object))
            .route(web::delete().to(media::delete))
            .route(web::post().to(template_review::post_object))
    });
}

/// Registers `path` twice, with a `/vNN.N` version segment first and then without one.
fn graph(cfg: &mut web::ServiceConfig, path: &str, build: impl Fn(Resource) -> Resource) {
    cfg.service(build(web::resource(format!(r"/{{version:v\d+\.\d+}}{path}"))));
    cfg.service(build(web::resource(path)));
}

/// The path as the client addressed the Cloud API, without the simulator's own `/simulator` prefix: an
/// error names what the client sent, not where the simulator is mounted.
fn client_path(req: &HttpRequest) -> &str {
    let path = req.path();
    path.strip_prefix(SCOPE).unwrap_or(path)
}

async fn unknown_path(req: HttpRequest) -> Result<HttpResponse, GraphError> {
    Err(GraphError::invalid_parameter(format!(
        "Unknown path components: {}",
        client_path(&req)
    )))
}
