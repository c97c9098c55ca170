//! Creating, editing and deleting templates, and the app's resumable upload for their samples
//! (docs/cloud-api.md §3): the simulator's side of template review.

use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse, web};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::Deserialize;
use serde_json::{Value, json};

use super::graph::GraphPath;
use crate::error::GraphError;
use crate::review::Created;
use crate::seed;
use crate::simulator::Simulator;

/// Whether the simulator serves this business account (every sender, seeded or extra, is in one).
fn known_waba(waba_id: &str) -> bool {
    seed::seeded_senders().iter().any(|s| s.waba_id == waba_id)
}

fn field<'a>(body: &'a Value, name: &str) -> Result<&'a str, GraphError> {
    body.get(name)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| GraphError::invalid_parameter(format!("Param {name} is required")))
}

/// Meta's checks of a definition's shape that decide whether it is even reviewed.
fn check_components(body: &Value, category: &str) -> Result<Vec<Value>, GraphError> {
    let components = body
        .get("components")
        .and_then(Value::as_array)
        .ok_or_else(|| GraphError::invalid_parameter("Param components must be an array"))?;
    let bodies: Vec<&Value> = components
        .iter()
        .filter(|c| {
            c.get("type")
                .and_then(Value::as_str)
                .is_some_and(|t| t.eq_ignore_ascii_case("BODY"))
        })
        .collect();
    let [only] = bodies.as_slice() else {
        return Err(GraphError::invalid_parameter(
            "Param components must hold exactly one BODY",
        ));
    };
    let has_text = only
        .get("text")
        .and_then(Value::as_str)
        .is_some_and(|t| !t.trim().is_empty());
    if category != "AUTHENTICATION" && !has_text {
        return Err(GraphError::invalid_parameter(
            "Param components[BODY]['text'] is required",
        ));
    }
    Ok(components.clone())
}

pub(crate) async fn create(
    req: HttpRequest,
    simulator: web::Data<Simulator>,
    path: GraphPath,
    body: web::Json<Value>,
) -> Result<HttpResponse, GraphError> {
    let GraphPath { version, id: waba_id } = path;
    super::graph::guard(&req, &simulator, &version)?;
    if !known_waba(&waba_id) {
        return Err(GraphError::unknown_object(&waba_id, "post"));
    }
    let body = body.into_inner();
    let name = field(&body, "name")?;
    if name.len() > 512
        || !name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
    {
        return Err(GraphError::invalid_parameter(
            "Param name must be lowercase letters, digits and underscores",
        ));
    }
    let language = field(&body, "language")?;
    let category = field(&body, "category")?.to_ascii_uppercase();
    if !matches!(category.as_str(), "MARKETING" | "UTILITY" | "AUTHENTICATION") {
        return Err(GraphError::invalid_parameter(
            "Param category must be one of {MARKETING, UTILITY, AUTHENTICATION}",
        ));
    }
    let components = check_components(&body, &category)?;
    let named = body
        .get("parameter_format")
        .and_then(Value::as_str)
        .is_some_and(|f| f.eq_ignore_ascii_case("NAMED"));
    let now = chrono::Utc::now();
    let review_ms = simulator.config.template_review_ms;
    let created = {
        let mut state = simulator.state();
        let exists = seed::definition(&waba_id, name, language).is_some()
            || state
                .created
                .iter()
                .any(|t| t.waba_id == waba_id && t.name == name && t.language == language);
        if exists {
            return Err(GraphError::invalid_parameter(format!(
                "Content in this language already exists: {name} ({language})"
            )));
        }
        let mut created = Created {
            id: state.next_template_id(),
            waba_id,
            name: name.to_owned(),
            language: language.to_owned(),
            category: category.clone(),
            named,
            components,
            review_ends: now,
        };
        created.review_from(now, review_ms);
        state.created.push(created.clone());
        created
    };
    simulator.dispatcher.later(created.status_callback(), review_ms);
    Ok(super::graph::ok_json(
        &json!({ "id": created.id, "status": "PENDING", "category": category }),
    ))
}

#[derive(Debug, Deserialize)]
pub(crate) struct DeleteQuery {
    name: Option<String>,
    hsm_id: Option<String>,
}

pub(crate) async fn delete(
    req: HttpRequest,
    simulator: web::Data<Simulator>,
    path: GraphPath,
    query: web::Query<DeleteQuery>,
) -> Result<HttpResponse, GraphError> {
    let GraphPath { version, id: waba_id } = path;
    super::graph::guard(&req, &simulator, &version)?;
    let name = query
        .name
        .as_deref()
        .ok_or_else(|| GraphError::invalid_parameter("Param name is required"))?;
    if seed::definitions(&waba_id)
        .iter()
        .any(|t| t.get("name").and_then(Value::as_str) == Some(name))
    {
        return Err(GraphError::invalid_parameter(
            "The simulator's seeded templates cannot be deleted",
        ));
    }
    let mut state = simulator.state();
    let before = state.created.len();
    state.created.retain(|t| {
        !(t.waba_id == waba_id && t.name == name && query.hsm_id.as_deref().is_none_or(|id| t.id == id))
    });
    if state.created.len() == before {
        return Err(GraphError::invalid_parameter(format!(
            "Template {name} was not found"
        )));
    }
    Ok(super::graph::ok_json(&json!({ "success": true })))
}

/// `POST /{v}/{id}`: the bytes of a resumable upload session (`upload:…`), or an edit of a template.
pub(crate) async fn post_object(
    req: HttpRequest,
    simulator: web::Data<Simulator>,
    path: GraphPath,
    body: Bytes,
) -> Result<HttpResponse, GraphError> {
    let GraphPath { version, id } = path;
    if id.starts_with("upload:") {
        return upload_bytes(&req, &simulator, &version, &id, &body);
    }
    super::graph::guard(&req, &simulator, &version)?;
    let edit: Value =
        serde_json::from_slice(&body).map_err(|_| GraphError::invalid_parameter("The body must be JSON"))?;
    let now = chrono::Utc::now();
    let review_ms = simulator.config.template_review_ms;
    let edited = {
        let mut state = simulator.state();
        let Some(template) = state.created.iter_mut().find(|t| t.id == id) else {
            return Err(GraphError::unknown_object(&id, "post"));
        };
        if let Some(category) = edit.get("category").and_then(Value::as_str) {
            template.category = category.to_ascii_uppercase();
        }
        template.components = check_components(&edit, &template.category)?;
        template.review_from(now, review_ms);
        template.clone()
    };
    simulator.dispatcher.later(edited.status_callback(), review_ms);
    Ok(super::graph::ok_json(&json!({ "success": true })))
}

/// `POST /{v}/{app-id}/uploads`: opens a resumable upload session.
pub(crate) async fn start_upload(
    req: HttpRequest,
    simulator: web::Data<Simulator>,
    path: GraphPath,
) -> Result<HttpResponse, GraphError> {
    let GraphPath { version, .. } = path;
    super::graph::guard(&req, &simulator, &version)?;
    let query = req.query_string();
    for required in ["file_length=", "file_type="] {
        if !query.split('&').any(|pair| pair.starts_with(required)) {
            return Err(GraphError::invalid_parameter(format!(
                "Param {} is required",
                required.trim_end_matches('=')
            )));
        }
    }
    let mut state = simulator.state();
    let session = format!(
        "upload:{}",
        STANDARD.encode(format!("session-{}", state.upload_sessions.len() + 1))
    )
    .replace(['/', '+', '='], "");
    state.upload_sessions.push(session.clone());
    Ok(super::graph::ok_json(&json!({ "id": session })))
}

/// The session's bytes, authorized with `OAuth <token>` as Meta's resumable upload wants; answers the handle.
fn upload_bytes(
    req: &HttpRequest,
    simulator: &Simulator,
    version: &str,
    session: &str,
    bytes: &[u8],
) -> Result<HttpResponse, GraphError> {
    let token = req
        .headers()
        .get(actix_web::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("OAuth "));
    if token != Some(simulator.config.access_token.as_str()) {
        return Err(GraphError::invalid_token());
    }
    if version != crate::simulator::PINNED_GRAPH_VERSION && !simulator.config.graph_version_prefix {
        return Err(GraphError::invalid_parameter("Unknown path components"));
    }
    if !simulator.state().upload_sessions.iter().any(|s| s == session) {
        return Err(GraphError::unknown_object(session, "post"));
    }
    if bytes.is_empty() {
        return Err(GraphError::invalid_parameter("The upload has no bytes"));
    }
    let handle = format!(
        "4::{}",
        STANDARD.encode(session.strip_prefix("upload:").unwrap_or(session))
    );
    Ok(super::graph::ok_json(&json!({ "h": handle })))
}
