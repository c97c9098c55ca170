//! What every Graph route shares: the path's version and object id, the access token and version checks,
//! parameters in the query string, the base URL handed out, the JSON answer, and the largest file.

use std::collections::HashMap;
use std::future::{Ready, ready};

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, HttpResponse, web};

use crate::error::GraphError;
use crate::simulator::{PINNED_GRAPH_VERSION, Simulator};

/// Meta's upload cap for the file (docs/cloud-api.md §2.1); the request may be a little larger.
pub(crate) const MAX_FILE_BYTES: usize = 100 * 1024 * 1024;

/// The path of a Graph call: its version segment and the object id it addresses.
///
/// Graph's version segment is optional: a call without one goes to the oldest version the app can use
/// (docs/cloud-api.md §8.1), which for this simulator is [`PINNED_GRAPH_VERSION`].
#[derive(Debug)]
pub(crate) struct GraphPath {
    pub(crate) version: String,
    pub(crate) id: String,
}

impl FromRequest for GraphPath {
    type Error = GraphError;
    type Future = Ready<Result<Self, GraphError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let info = req.match_info();
        ready(Ok(GraphPath {
            version: info.get("version").unwrap_or(PINNED_GRAPH_VERSION).to_owned(),
            id: info.get("id").unwrap_or_default().to_owned(),
        }))
    }
}

/// A parameter given in the query string. Graph reads a POST's parameters from the query string as well as
/// from the body, so a client may put `messaging_product` there (docs/cloud-api.md §8.1).
pub(super) fn query_param(req: &HttpRequest, name: &str) -> Option<String> {
    web::Query::<HashMap<String, String>>::from_query(req.query_string())
        .ok()?
        .into_inner()
        .remove(name)
}

/// Whether the call names `messaging_product` `whatsapp`, in its JSON body or in the query string.
pub(super) fn names_whatsapp(req: &HttpRequest, body: &serde_json::Value) -> bool {
    match body.get("messaging_product") {
        Some(value) => value.as_str() == Some("whatsapp"),
        None => query_param(req, "messaging_product").as_deref() == Some("whatsapp"),
    }
}

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
