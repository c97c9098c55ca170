//! `POST|DELETE /{v}/{phone_number_id}/block_users` (docs/cloud-api.md §2.4): the number's block list, with
//! Meta's rules — at most 1,000 users per request, and only users who wrote to the number in the last 24
//! hours can be blocked (unblocking has no such rule). Each user is answered on its own: the ones done in
//! `added_users`/`removed_users`, the others in `failed_users`, and then the whole answer is a 400 with
//! error 139100.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Value, json};

use super::graph::GraphPath;
use crate::error::GraphError;
use crate::simulator::Simulator;
use crate::wire;

/// The most users one request may name.
const BATCH: usize = 1_000;

pub(crate) async fn block(
    req: HttpRequest,
    simulator: web::Data<Simulator>,
    path: GraphPath,
    body: web::Bytes,
) -> Result<HttpResponse, GraphError> {
    change(req, simulator, path, body, true).await
}

pub(crate) async fn unblock(
    req: HttpRequest,
    simulator: web::Data<Simulator>,
    path: GraphPath,
    body: web::Bytes,
) -> Result<HttpResponse, GraphError> {
    change(req, simulator, path, body, false).await
}

/// Whether `text` has the shape of a business-scoped user id: a two-letter upper-case country code, then
/// `.`-separated segments of letters and digits.
pub(crate) fn is_user_id(text: &str) -> bool {
    let mut segments = text.split('.');
    let country = segments.next().unwrap_or_default();
    let rest: Vec<&str> = segments.collect();
    text.len() <= 160
        && country.len() == 2
        && country.bytes().all(|b| b.is_ascii_uppercase())
        && !rest.is_empty()
        && rest
            .iter()
            .all(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric()))
}

/// A user as the list keeps them: a number's digits (its wa_id), or a business-scoped user id as given.
fn user_key(user: &str) -> Option<String> {
    if is_user_id(user) {
        Some(user.to_owned())
    } else {
        wire::wa_id(user)
    }
}

async fn change(
    req: HttpRequest,
    simulator: web::Data<Simulator>,
    path: GraphPath,
    body: web::Bytes,
    block: bool,
) -> Result<HttpResponse, GraphError> {
    let GraphPath {
        version,
        id: phone_number_id,
    } = path;
    super::graph::guard(&req, &simulator, &version)?;
    simulator
        .sender_by_id(&phone_number_id)
        .ok_or_else(|| GraphError::unknown_object(&phone_number_id, if block { "post" } else { "delete" }))?;
    let request: Value = serde_json::from_slice(&body)
        .map_err(|e| GraphError::invalid_parameter(format!("The request body is not valid JSON: {e}")))?;
    if !super::graph::names_whatsapp(&req, &request) {
        return Err(GraphError::invalid_parameter(
            "The parameter messaging_product is required and must be \"whatsapp\"",
        ));
    }
    let users = request
        .get("block_users")
        .and_then(Value::as_array)
        .ok_or_else(|| GraphError::invalid_parameter("The parameter block_users is required"))?;
    if users.is_empty() || users.len() > BATCH {
        return Err(GraphError::invalid_parameter(format!(
            "block_users must name 1 to {BATCH} users"
        )));
    }
    let now = chrono::Utc::now();
    let mut done = Vec::new();
    let mut failed = Vec::new();
    {
        let mut state = simulator.state();
        for user in users {
            let input = user.get("user").and_then(Value::as_str).unwrap_or_default();
            let Some(key) = user_key(input) else {
                failed.push(json!({
                    "input": input,
                    "errors": [{ "message": "Invalid parameter", "code": 100,
                                 "error_data": { "details": "The user is not a phone number or a user id" } }],
                }));
                continue;
            };
            if block && !state.window_open(&phone_number_id, &key, now) {
                failed.push(json!({
                    "input": input,
                    "wa_id": key,
                    "errors": [{ "message": "Re-engagement required", "code": 131047,
                                 "error_data": { "details": "User has not messaged in the last 24 hours" } }],
                }));
                continue;
            }
            if block {
                state.block(&phone_number_id, &key);
            } else {
                state.unblock(&phone_number_id, &key);
            }
            done.push(json!({ "input": input, "wa_id": key }));
        }
    }
    let list = if block { "added_users" } else { "removed_users" };
    if failed.is_empty() {
        return Ok(HttpResponse::Ok().json(json!({
            "messaging_product": "whatsapp",
            "block_users": { list: done },
        })));
    }
    Ok(HttpResponse::build(StatusCode::BAD_REQUEST).json(json!({
        "messaging_product": "whatsapp",
        "block_users": { list: done, "failed_users": failed },
        "error": {
            "message": "(#139100) Failed to block/unblock users",
            "type": "OAuthException",
            "code": 139100,
            "error_data": { "details": "Failed to block some users, see the block_users response list for details" },
        },
    })))
}
