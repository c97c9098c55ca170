//! `POST /simulator/control/notice`: the network's news about a business account on demand — a template's
//! quality or category, a number's quality and messaging limit, the account itself — delivered as Meta's
//! webhook (docs/api.md §13), so tests drive them through the real callback path.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::seed::{SIMULATOR_WABA_ID, definition};
use crate::simulator::Simulator;

/// The body: Meta's webhook `field` and its `value` object, for the business account `waba_id` (default
/// the seeded one).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Notice {
    field: String,
    value: Map<String, Value>,
    waba_id: Option<String>,
}

/// The fields taken, each with the keys its value must carry (Meta's documented required parts).
const FIELDS: [(&str, &[&str]); 6] = [
    (
        "message_template_status_update",
        &["event", "message_template_name", "message_template_language"],
    ),
    (
        "message_template_quality_update",
        &[
            "new_quality_score",
            "message_template_name",
            "message_template_language",
        ],
    ),
    (
        "template_category_update",
        &[
            "new_category",
            "message_template_name",
            "message_template_language",
        ],
    ),
    ("phone_number_quality_update", &["display_phone_number", "event"]),
    ("account_update", &["event"]),
    ("account_alerts", &["entity_type", "entity_id", "alert_info"]),
];

fn problem(message: &str) -> HttpResponse {
    HttpResponse::build(StatusCode::BAD_REQUEST).json(json!({ "error": message }))
}

pub(crate) async fn notice(simulator: web::Data<Simulator>, body: web::Json<Notice>) -> HttpResponse {
    let Notice {
        field,
        mut value,
        waba_id,
    } = body.into_inner();
    let Some((_, required)) = FIELDS.iter().find(|(name, _)| *name == field) else {
        let names: Vec<&str> = FIELDS.iter().map(|(name, _)| *name).collect();
        return problem(&format!("field must be one of {}", names.join(", ")));
    };
    if let Some(missing) = required.iter().find(|key| !value.contains_key(**key)) {
        return problem(&format!("{field} needs `{missing}` in value"));
    }
    let waba_id = waba_id.unwrap_or_else(|| SIMULATOR_WABA_ID.to_owned());
    if waba_id.is_empty() || !waba_id.bytes().all(|b| b.is_ascii_digit()) {
        return problem("waba_id must be digits");
    }
    // A template the simulator knows gets its id, as the network's own notices carry it.
    if field.contains("template")
        && !value.contains_key("message_template_id")
        && let (Some(Value::String(name)), Some(Value::String(language))) = (
            value.get("message_template_name"),
            value.get("message_template_language"),
        )
        && let Some(id) = template_id(&simulator, &waba_id, name, &language.replace('-', "_"))
    {
        value.insert("message_template_id".to_owned(), json!(id));
    }
    let envelope = json!({
        "object": "whatsapp_business_account",
        "entry": [{
            "id": waba_id,
            "time": chrono::Utc::now().timestamp(),
            "changes": [{ "field": field, "value": value }],
        }],
    });
    // Delivered before answering, so a caller knows the callback has reached its receiver.
    let delivered = simulator.dispatcher.inbound(envelope.clone()).await;
    if !delivered {
        tracing::warn!(%field, "simulator: the notice callback was not accepted");
    }
    HttpResponse::Ok().json(json!({ "delivered": delivered, "envelope": envelope }))
}

/// The id of the account's template of that name and language, created through the simulator or seeded.
fn template_id(simulator: &Simulator, waba_id: &str, name: &str, language: &str) -> Option<u64> {
    let created = simulator
        .state()
        .created
        .iter()
        .find(|t| t.waba_id == waba_id && t.name == name && t.language == language)
        .map(|t| t.id.clone());
    created
        .or_else(|| {
            definition(waba_id, name, language)
                .and_then(|t| t.get("id").and_then(Value::as_str).map(str::to_owned))
        })
        .and_then(|id| id.parse().ok())
}
