//! The HTTP surface under `/simulator`: Cloud API paths and the control API.

mod block;
mod control;
mod faults;
mod fields;
mod graph;
mod inbound;
mod interactive;
mod media;
mod messages;
mod notices;
mod shapes;
mod template_review;
mod template_send;
mod templates;

use std::sync::Arc;

use actix_web::{HttpRequest, HttpResponse, web};

use crate::error::GraphError;
use crate::simulator::Simulator;
use graph::MAX_FILE_BYTES;

/// The multipart request around a file of [`MAX_FILE_BYTES`]: its other fields and part headers.
const MAX_UPLOAD_BYTES: usize = MAX_FILE_BYTES + 1024 * 1024;
/// A control inbound call carries its file as base64 (4 characters per 3 bytes) inside JSON.
const MAX_INBOUND_BYTES: usize = MAX_FILE_BYTES / 3 * 4 + 1024 * 1024;

pub(crate) fn configure(cfg: &mut web::ServiceConfig, simulator: Arc<Simulator>) {
    // Control and download paths come first: the Graph patterns below would otherwise claim them.
    cfg.service(
        web::scope("/simulator")
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
            .route("/control/faults", web::post().to(faults::set))
            .route("/control/faults", web::get().to(faults::current))
            .route("/media-download/{media_id}", web::get().to(media::download))
            .service(
                web::resource(r"/{version:v\d+\.\d+}/{phone_number_id}/messages")
                    .route(web::post().to(messages::send)),
            )
            .service(
                web::resource(r"/{version:v\d+\.\d+}/{phone_number_id}/block_users")
                    .route(web::post().to(block::block))
                    .route(web::delete().to(block::unblock)),
            )
            .service(
                web::resource(r"/{version:v\d+\.\d+}/{phone_number_id}/media")
                    .app_data(web::PayloadConfig::new(MAX_UPLOAD_BYTES))
                    .route(web::post().to(media::upload)),
            )
            .service(
                web::resource(r"/{version:v\d+\.\d+}/{waba_id}/message_templates")
                    .route(web::get().to(templates::list))
                    .route(web::post().to(template_review::create))
                    .route(web::delete().to(template_review::delete)),
            )
            .service(
                web::resource(r"/{version:v\d+\.\d+}/{app_id}/uploads")
                    .route(web::post().to(template_review::start_upload)),
            )
            .service(
                web::resource(r"/{version:v\d+\.\d+}/{media_id}")
                    .app_data(web::PayloadConfig::new(MAX_UPLOAD_BYTES))
                    .route(web::get().to(media::retrieve))
                    .route(web::delete().to(media::delete))
                    .route(web::post().to(template_review::post_object)),
            )
            .default_service(web::to(unknown_path)),
    );
}

async fn unknown_path(req: HttpRequest) -> Result<HttpResponse, GraphError> {
    Err(GraphError::invalid_parameter(format!(
        "Unknown path components: {}",
        req.path()
    )))
}
