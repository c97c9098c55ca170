//! The webhook fields about a business account rather than a message (docs/cloud-api.md §4.5), in Meta's
//! documented shapes: `message_template_status_update`, `message_template_quality_update`,
//! `template_category_update`, `phone_number_quality_update`, `account_update` and `account_alerts`. The
//! entry's `id` is the business account (WABA) and its `time` when the change happened.

use super::{required, str_field};
use herald_domain::Timestamp;
use herald_domain::network::{AccountNotice, NoticeChange, NoticeInfo, NoticeTemplate, QualityScore};
use herald_domain::organization::NetworkRef;
use herald_domain::template::{LanguageCode, TemplateHealth, TemplateName, TemplateStatus};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The fields read here.
pub(super) const NOTICE_FIELDS: [&str; 6] = [
    "message_template_status_update",
    "message_template_quality_update",
    "template_category_update",
    "phone_number_quality_update",
    "account_update",
    "account_alerts",
];

/// One change of a notice field, with its entry.
///
/// # Errors
/// Why the change cannot be used (the caller lists it as skipped).
pub(super) fn parse_notice(entry: &Value, field: &str, value: &Value) -> Result<AccountNotice, String> {
    let waba_id = match entry.get("id") {
        Some(Value::String(id)) => NetworkRef::parse(id).map_err(|e| format!("entry id {e}"))?,
        Some(Value::Number(id)) => NetworkRef::parse(&id.to_string()).map_err(|e| format!("entry id {e}"))?,
        _ => return Err("no entry `id` (the business account)".to_owned()),
    };
    let time = entry.get("time").ok_or("no entry `time`")?;
    let occurred_at = unix_seconds(time).ok_or_else(|| format!("entry `time` {time} is not unix seconds"))?;
    if !value.is_object() {
        return Err("`value` is not an object".to_owned());
    }
    let change = match field {
        "message_template_status_update" => {
            let event = upper(value, "event")?;
            NoticeChange::TemplateStatus {
                template: template(value)?,
                status: TemplateStatus::parse(&event).map_err(|e| format!("`event` {event}: {e}"))?,
                reason: TemplateHealth::reason(str_field(value, "reason")),
                info: value
                    .get("other_info")
                    .filter(|o| o.is_object())
                    .map(|o| NoticeInfo {
                        title: str_field(o, "title").map(str::to_owned),
                        description: str_field(o, "description").map(str::to_owned),
                    }),
            }
        }
        "message_template_quality_update" => NoticeChange::TemplateQuality {
            template: template(value)?,
            previous: str_field(value, "previous_quality_score").and_then(|q| QualityScore::parse(q).ok()),
            quality: quality(value, "new_quality_score")?,
        },
        "template_category_update" => NoticeChange::TemplateCategory {
            template: template(value)?,
            previous: str_field(value, "previous_category").map(str::to_owned),
            category: upper(value, "new_category")?,
            correct: str_field(value, "correct_category").map(str::to_owned),
        },
        "phone_number_quality_update" => NoticeChange::SenderQuality {
            display_phone_number: required(value, "display_phone_number")?.to_owned(),
            event: upper(value, "event")?,
            current_limit: str_field(value, "current_limit").map(str::to_owned),
            old_limit: str_field(value, "old_limit").map(str::to_owned),
        },
        "account_update" => NoticeChange::Account {
            field: field.to_owned(),
            event: upper(value, "event")?,
            details_json: value.to_string(),
        },
        "account_alerts" => {
            // Meta nests the alert in `alert_info`; a flat value is read the same way.
            let alert = value.get("alert_info").filter(|a| a.is_object()).unwrap_or(value);
            NoticeChange::Account {
                field: field.to_owned(),
                event: upper(alert, "alert_type")?,
                details_json: value.to_string(),
            }
        }
        other => return Err(format!("field `{other}` is not a notice")),
    };
    Ok(AccountNotice {
        dedupe_key: dedupe_key(&waba_id, field, time, value),
        waba_id,
        occurred_at,
        change,
    })
}

/// Unix seconds, a number or a string of one.
fn unix_seconds(raw: &Value) -> Option<Timestamp> {
    let seconds = match raw {
        Value::String(s) => s.trim().parse::<i64>().ok(),
        Value::Number(n) => n.as_i64(),
        _ => None,
    }?;
    chrono::DateTime::from_timestamp(seconds, 0)
}

fn upper(value: &Value, key: &str) -> Result<String, String> {
    let raw = required(value, key)?;
    Ok(raw.trim().to_ascii_uppercase())
}

fn quality(value: &Value, key: &str) -> Result<QualityScore, String> {
    let raw = upper(value, key)?;
    QualityScore::parse(&raw).map_err(|e| format!("`{key}` {raw}: {e}"))
}

/// The template named by `message_template_id`, `_name` and `_language`. Meta's examples write the
/// language with a dash (`en-US`) where its listing writes `en_US`; Herald's copies use the listing's form.
fn template(value: &Value) -> Result<NoticeTemplate, String> {
    let name = required(value, "message_template_name")?;
    let language = required(value, "message_template_language")?.replace('-', "_");
    let network_id = match value.get("message_template_id") {
        Some(Value::Number(id)) => Some(id.to_string()),
        Some(Value::String(id)) if !id.is_empty() => Some(id.clone()),
        _ => None,
    };
    Ok(NoticeTemplate {
        network_id,
        name: TemplateName::parse(name).map_err(|e| format!("`message_template_name` {name}: {e}"))?,
        language: LanguageCode::parse(&language)
            .map_err(|e| format!("`message_template_language` {language}: {e}"))?,
    })
}

/// The same for every delivery of one notice: its account, field, time and value. The network sends a
/// redelivery with the same entry; a stored callback reprocessed is the same bytes.
fn dedupe_key(waba_id: &NetworkRef, field: &str, time: &Value, value: &Value) -> String {
    let mut digest = Sha256::new();
    for part in [waba_id.as_str(), field, &time.to_string(), &value.to_string()] {
        digest.update(part.as_bytes());
        digest.update([0]);
    }
    hex::encode(digest.finalize())
}
