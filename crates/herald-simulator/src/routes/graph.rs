//! What every Graph route shares: the access token and version checks, the base URL handed out, the JSON
//! answer, and the largest file.

use actix_web::{HttpRequest, HttpResponse};

use crate::error::GraphError;
use crate::simulator::{PINNED_GRAPH_VERSION, Simulator};

/// Meta's upload cap for the file (docs/cloud-api.md §2.1); the request may be a little larger.
pub(crate) const MAX_FILE_BYTES: usize = 100 * 1024 * 1024;

/// Checks the Bearer token (Graph also takes `?access_token=`, which clients of this API do not use).
pub(super) fn authorize(req: &HttpRequest, simulator: &Simulator) -> Result<(), GraphError> {
    let token = req
        .headers()
        .get(actix_web::http::header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| {
            let (scheme, token) = value.split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
        });
    match token {
        Some(token) if token == simulator.config.access_token => Ok(()),
        _ => Err(GraphError::invalid_token()),
    }
}

/// Authorizes the request and checks its Graph version segment.
pub(super) fn guard(req: &HttpRequest, simulator: &Simulator, version: &str) -> Result<(), GraphError> {
    authorize(req, simulator)?;
    if simulator.config.graph_version_prefix || version == PINNED_GRAPH_VERSION {
        Ok(())
    } else {
        Err(GraphError::invalid_parameter(format!(
            "Unknown path components: this simulator serves only {PINNED_GRAPH_VERSION}"
        )))
    }
}

/// `scheme://host` of the simulator as the client reached it, for URLs it hands out.
pub(super) fn own_base(req: &HttpRequest) -> String {
    let info = req.connection_info();
    format!("{}://{}", info.scheme(), info.host())
}

pub(super) fn ok_json(value: &serde_json::Value) -> HttpResponse {
    HttpResponse::Ok().json(value)
}
