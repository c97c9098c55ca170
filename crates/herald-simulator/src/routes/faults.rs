//! `POST /simulator/control/faults`: make the network answer every send with a server error for a while.

use std::time::{Duration, Instant};

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use serde::Deserialize;
use serde_json::json;

use crate::simulator::Simulator;

/// The longest fault one call may set, so a forgotten trial cannot leave the network down for good.
const MAX_SECONDS: u64 = 3_600;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FaultRequest {
    /// The HTTP status every send answers (500–599).
    send_status: u16,
    /// How long; 0 ends the fault now.
    seconds: u64,
}

pub(crate) async fn set(simulator: web::Data<Simulator>, body: web::Json<FaultRequest>) -> HttpResponse {
    let body = body.into_inner();
    if !(500..=599).contains(&body.send_status) || body.seconds > MAX_SECONDS {
        return HttpResponse::BadRequest().json(json!({
            "error": format!("send_status must be 500–599 and seconds at most {MAX_SECONDS}")
        }));
    }
    let now = Instant::now();
    simulator
        .faults
        .fail_sends(body.send_status, Duration::from_secs(body.seconds), now);
    tracing::warn!(
        status = body.send_status,
        seconds = body.seconds,
        "simulator: sends fail"
    );
    current(simulator).await
}

pub(crate) async fn current(simulator: web::Data<Simulator>) -> HttpResponse {
    let now = Instant::now();
    HttpResponse::Ok().json(json!({
        "send_status": simulator.faults.send_status(now),
        "remaining_seconds": simulator.faults.remaining(now).as_secs_f64(),
    }))
}

/// The Graph error a send answers while the fault lasts: Meta's generic transient error with that status.
pub(crate) fn injected(status: u16) -> crate::error::GraphError {
    let mut error = crate::error::GraphError::something_went_wrong();
    error.status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    error
}
