//! The control API: drive the simulated network from tests and demos (api.md §13).

use actix_web::{HttpResponse, web};
use serde::Deserialize;
use serde_json::json;

use crate::callbacks::inbound_envelope;
use crate::{Simulator, seed, wire};

/// `POST /simulator/control/inbound` body.
#[derive(Debug, Deserialize)]
pub(crate) struct Inbound {
    from: String,
    to: String,
    text: String,
    /// The sender's profile name; a fixed one when absent.
    name: Option<String>,
}

fn problem(status: actix_web::http::StatusCode, message: &str) -> HttpResponse {
    HttpResponse::build(status).json(json!({ "error": message }))
}

pub(crate) async fn inbound(simulator: web::Data<Simulator>, body: web::Json<Inbound>) -> HttpResponse {
    use actix_web::http::StatusCode;
    let body = body.into_inner();
    let Some(from) = wire::wa_id(&body.from) else {
        return problem(StatusCode::BAD_REQUEST, "from must be a phone number");
    };
    let Some(sender) = wire::wa_id(&body.to).and_then(|to| seed::sender_by_number(&to)) else {
        return problem(
            StatusCode::NOT_FOUND,
            "to is not a business number of the simulator",
        );
    };
    simulator
        .state()
        .open_window(sender.phone_number_id, &from, chrono::Utc::now());
    let wamid = wire::wamid(&from);
    let envelope = inbound_envelope(
        sender.waba_id,
        sender.digits(),
        sender.phone_number_id,
        &from,
        body.name.as_deref().unwrap_or("Simulated Customer"),
        &wamid,
        &body.text,
    );
    // Delivered before answering, so a caller knows the callback has reached its receiver.
    if !simulator.dispatcher.inbound(envelope).await {
        tracing::warn!(%wamid, "simulator: the inbound callback was not accepted");
    }
    HttpResponse::Ok().json(json!({ "id": wamid }))
}

pub(crate) async fn sent(simulator: web::Data<Simulator>) -> HttpResponse {
    HttpResponse::Ok().json(simulator.sent())
}
