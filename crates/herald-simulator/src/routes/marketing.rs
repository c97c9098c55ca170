//! The Marketing Messages API's own rules (docs/cloud-api.md §1.6): the onboarding state of each business
//! account, played through the control API, and what `POST /{phone_number_id}/marketing_messages` accepts
//! beyond the checks it shares with `/messages`.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::error::GraphError;
use crate::simulator::Simulator;

/// Meta's values of `product_policy`.
const PRODUCT_POLICIES: [&str; 2] = ["CLOUD_API_FALLBACK", "STRICT"];

/// `POST /simulator/control/marketing-messages` body: whether a business account's business has accepted
/// the Marketing Messages API terms.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Onboarding {
    waba_id: String,
    onboarded: bool,
}

/// Sets a business account's onboarding state; 404 for an account the simulator does not serve.
pub(crate) async fn onboarding(simulator: web::Data<Simulator>, body: web::Json<Onboarding>) -> HttpResponse {
    let Onboarding { waba_id, onboarded } = body.into_inner();
    if !simulator.senders().any(|sender| sender.waba_id == waba_id) {
        return HttpResponse::build(StatusCode::NOT_FOUND)
            .json(json!({ "error": "waba_id is not a business account of the simulator" }));
    }
    simulator.state().set_marketing_onboarded(&waba_id, onboarded);
    HttpResponse::Ok().json(json!({ "waba_id": waba_id, "onboarded": onboarded }))
}

/// Meta refuses every send of a business that has not accepted the terms, whatever it carries.
pub(crate) fn check_onboarded(simulator: &Simulator, waba_id: &str) -> Result<(), GraphError> {
    if simulator.state().marketing_onboarded(waba_id) {
        Ok(())
    } else {
        Err(GraphError::marketing_terms_not_accepted())
    }
}

/// Only template messages go on this path, and its own fields have Meta's types.
pub(crate) fn check_fields(kind: &str, fields: &Map<String, Value>) -> Result<(), GraphError> {
    if kind != "template" {
        return Err(GraphError::invalid_parameter(
            "Message must be a template message.",
        ));
    }
    match fields.get("message_activity_sharing") {
        None | Some(Value::Bool(_)) => {}
        Some(_) => {
            return Err(GraphError::invalid_parameter(
                "Param message_activity_sharing must be a boolean",
            ));
        }
    }
    match fields.get("product_policy") {
        None => Ok(()),
        Some(Value::String(policy)) if PRODUCT_POLICIES.contains(&policy.as_str()) => Ok(()),
        Some(_) => Err(GraphError::invalid_parameter(format!(
            "Param product_policy must be one of {}",
            PRODUCT_POLICIES.join(", ")
        ))),
    }
}

/// Utility and authentication templates stay on `/messages`.
pub(crate) fn check_category(category: &str) -> Result<(), GraphError> {
    if category.eq_ignore_ascii_case("marketing") {
        Ok(())
    } else {
        Err(GraphError::marketing_templates_only())
    }
}
