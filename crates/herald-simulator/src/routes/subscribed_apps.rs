//! `GET`, `POST` and `DELETE /{v}/{waba_id}/subscribed_apps`: which apps the business account delivers its
//! webhooks to (docs/cloud-api.md §4.7). Meta's answer names apps only, never fields: the fields an app
//! receives are set on the app itself. The simulator's one app is subscribed to every seeded business
//! account until a `DELETE` unsubscribes it (and a `POST` subscribes it again).

use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::json;

use super::graph::GraphPath;
use crate::error::GraphError;
use crate::simulator::Simulator;

/// The id of the simulator's Meta app, as `whatsapp_business_api_data.id` names it.
pub const SIMULATOR_APP_ID: &str = "3000000001";

/// The business account `waba_id` if the simulator serves it.
fn known_account(simulator: &Simulator, waba_id: &str, verb: &str) -> Result<(), GraphError> {
    if simulator.senders().any(|s| s.waba_id == waba_id) {
        Ok(())
    } else {
        Err(GraphError::unknown_object(waba_id, verb))
    }
}

/// `GET`: the subscribed apps, `{ "data": [] }` when none is.
pub(crate) async fn list(
    req: HttpRequest,
    simulator: web::Data<Simulator>,
    path: GraphPath,
) -> Result<HttpResponse, GraphError> {
    let GraphPath { version, id: waba_id } = path;
    super::graph::guard(&req, &simulator, &version)?;
    known_account(&simulator, &waba_id, "get")?;
    let data = if simulator.state().app_unsubscribed(&waba_id) {
        json!([])
    } else {
        json!([{
            "whatsapp_business_api_data": {
                "id": SIMULATOR_APP_ID,
                "link": format!("https://www.facebook.com/games/?app_id={SIMULATOR_APP_ID}"),
                "name": "Herald simulator",
            }
        }])
    };
    Ok(super::graph::ok_json(&json!({ "data": data })))
}

/// `POST`: subscribes the app.
pub(crate) async fn subscribe(
    req: HttpRequest,
    simulator: web::Data<Simulator>,
    path: GraphPath,
) -> Result<HttpResponse, GraphError> {
    set(&req, &simulator, path, true)
}

/// `DELETE`: unsubscribes the app.
pub(crate) async fn unsubscribe(
    req: HttpRequest,
    simulator: web::Data<Simulator>,
    path: GraphPath,
) -> Result<HttpResponse, GraphError> {
    set(&req, &simulator, path, false)
}

fn set(
    req: &HttpRequest,
    simulator: &Simulator,
    path: GraphPath,
    subscribed: bool,
) -> Result<HttpResponse, GraphError> {
    let GraphPath { version, id: waba_id } = path;
    super::graph::guard(req, simulator, &version)?;
    known_account(simulator, &waba_id, if subscribed { "post" } else { "delete" })?;
    simulator.state().set_app_unsubscribed(&waba_id, !subscribed);
    Ok(super::graph::ok_json(&json!({ "success": true })))
}
