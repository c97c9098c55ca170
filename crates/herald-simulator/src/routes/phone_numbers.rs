//! `GET /{v}/{phone_number_id}` and `GET /{v}/{waba_id}/phone_numbers`: the business phone numbers as
//! Graph shows them (docs/cloud-api.md §8.2). A `GET` on any other id is a media object (§2.2).

use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Map, Value, json};

use super::graph::GraphPath;
use crate::error::GraphError;
use crate::seed::Sender;
use crate::simulator::Simulator;

/// The fields Graph returns when the call names none.
const DEFAULT_FIELDS: [&str; 7] = [
    "verified_name",
    "code_verification_status",
    "display_phone_number",
    "quality_rating",
    "platform_type",
    "throughput",
    "id",
];

/// The fields Meta documents for a business phone number. The simulator answers those it models and leaves
/// out the others, as Graph leaves out a field with no value; `fields=` naming one not in this list is
/// refused as Graph refuses it. pywa asks for all of them.
const KNOWN_FIELDS: [&str; 29] = [
    "id",
    "display_phone_number",
    "verified_name",
    "quality_rating",
    "code_verification_status",
    "platform_type",
    "throughput",
    "name_status",
    "messaging_limit_tier",
    "is_official_business_account",
    "account_mode",
    "status",
    "conversational_automation",
    "quality_score",
    "webhook_configuration",
    "new_name_status",
    "is_on_biz_app",
    "is_pin_enabled",
    "is_preverified_number",
    "search_visibility",
    "eligibility_for_api_business_global_search",
    "health_status",
    "certificate",
    "new_certificate",
    "last_onboarded_time",
    "country_code",
    "country_dial_code",
    "whatsapp_business_manager_messaging_limit",
    "username",
];

/// The most fields one `fields=` may name: more than there are, so no list a client sends grows the work.
const MAX_FIELDS: usize = 32;

/// Meta's throughput levels: `STANDARD` is 80 messages a second, `HIGH` up to 1,000.
const STANDARD_THROUGHPUT: u32 = 80;

/// `GET /{v}/{id}`: a phone number id answers the phone number, any other id the media object.
pub(crate) async fn object(
    req: HttpRequest,
    simulator: web::Data<Simulator>,
    path: GraphPath,
) -> Result<HttpResponse, GraphError> {
    let GraphPath { version, id } = path;
    super::graph::guard(&req, &simulator, &version)?;
    match simulator.sender_by_id(&id) {
        Some(sender) => {
            let fields = requested_fields(&req)?;
            Ok(super::graph::ok_json(&phone_number(&simulator, sender, &fields)))
        }
        None => {
            let owner = super::graph::query_param(&req, "phone_number_id");
            super::media::retrieve(&req, &simulator, &id, owner.as_deref())
        }
    }
}

/// `GET /{v}/{waba_id}/phone_numbers`: every number of the business account, in one page.
pub(crate) async fn list(
    req: HttpRequest,
    simulator: web::Data<Simulator>,
    path: GraphPath,
) -> Result<HttpResponse, GraphError> {
    let GraphPath { version, id: waba_id } = path;
    super::graph::guard(&req, &simulator, &version)?;
    let fields = requested_fields(&req)?;
    let data: Vec<Value> = simulator
        .senders()
        .filter(|s| s.waba_id == waba_id)
        .map(|s| phone_number(&simulator, s, &fields))
        .collect();
    if data.is_empty() {
        return Err(GraphError::unknown_object(&waba_id, "get"));
    }
    // Every number fits one page (two seeded plus at most 1,000 extra), so the cursors name its ends.
    let cursor = |at: Option<&Value>| at.and_then(|n| n.get("id")).cloned().unwrap_or(Value::Null);
    let paging = json!({ "cursors": { "before": cursor(data.first()), "after": cursor(data.last()) } });
    Ok(super::graph::ok_json(&json!({ "data": data, "paging": paging })))
}

/// The `fields` parameter, or Graph's default fields; a field the simulator does not know is refused.
fn requested_fields(req: &HttpRequest) -> Result<Vec<String>, GraphError> {
    let Some(raw) = super::graph::query_param(req, "fields") else {
        return Ok(DEFAULT_FIELDS.iter().map(|f| (*f).to_owned()).collect());
    };
    let fields: Vec<String> = raw
        .split(',')
        .map(str::trim)
        .filter(|f| !f.is_empty())
        .take(MAX_FIELDS + 1)
        .map(str::to_owned)
        .collect();
    if fields.len() > MAX_FIELDS {
        return Err(GraphError::invalid_parameter(format!(
            "Param fields names more than {MAX_FIELDS} fields"
        )));
    }
    if let Some(unknown) = fields.iter().find(|f| !KNOWN_FIELDS.contains(&f.as_str())) {
        return Err(GraphError::invalid_parameter(format!(
            "Tried accessing nonexisting field ({unknown}) on node type (WhatsAppBusinessPhoneNumber)"
        )));
    }
    Ok(fields)
}

/// The phone number object with the asked `fields` (Graph always adds `id`).
fn phone_number(simulator: &Simulator, sender: Sender<'_>, fields: &[String]) -> Value {
    let per_second = simulator.config.throughput_per_sender;
    let level = if per_second == 0 || per_second > STANDARD_THROUGHPUT {
        "HIGH"
    } else {
        "STANDARD"
    };
    let mut object = Map::new();
    for field in fields.iter().map(String::as_str).chain(std::iter::once("id")) {
        let value = match field {
            "id" => json!(sender.phone_number_id),
            "display_phone_number" => json!(display(sender.display_phone_number)),
            "verified_name" => json!("Herald Simulator"),
            "quality_rating" => json!("GREEN"),
            "code_verification_status" => json!("VERIFIED"),
            "platform_type" => json!("CLOUD_API"),
            "throughput" => json!({ "level": level }),
            "name_status" => json!("APPROVED"),
            "messaging_limit_tier" => json!("TIER_UNLIMITED"),
            "is_official_business_account" => json!(false),
            "account_mode" => json!("LIVE"),
            "status" => json!("CONNECTED"),
            "country_code" => json!(country(sender.display_phone_number).0),
            "country_dial_code" => json!(country(sender.display_phone_number).1),
            "is_pin_enabled" => json!(false),
            "is_on_biz_app" => json!(false),
            _ => continue,
        };
        object.insert(field.to_owned(), value);
    }
    Value::Object(object)
}

/// The number's country and dialling code, for the North American numbers the simulator serves.
fn country(e164: &str) -> (&'static str, &'static str) {
    if e164.starts_with("+1") {
        ("US", "1")
    } else {
        ("", "")
    }
}

/// The number as Graph displays a North American one (`+1 555-000-1111`); others as they are.
fn display(e164: &str) -> String {
    let digits = e164.trim_start_matches('+');
    match (digits.strip_prefix('1'), digits.len()) {
        (Some(rest), 11) => match (rest.get(..3), rest.get(3..6), rest.get(6..)) {
            (Some(area), Some(exchange), Some(line)) => format!("+1 {area}-{exchange}-{line}"),
            _ => e164.to_owned(),
        },
        _ => e164.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::display;

    #[test]
    fn north_american_numbers_are_displayed_as_graph_displays_them() {
        assert_eq!(display("+15550001111"), "+1 555-000-1111");
        assert_eq!(display("+447700900123"), "+447700900123");
    }
}
