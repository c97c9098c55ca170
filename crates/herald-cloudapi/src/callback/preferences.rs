//! The `user_preferences` webhook field (docs/cloud-api.md §4.5): a WhatsApp user stopped or resumed the
//! business's marketing messages. Meta's documented shape: `value.metadata.phone_number_id` names the
//! business number, and each `value.user_preferences[]` item has `wa_id` (and, since business-scoped user
//! ids, `user_id`; either may be missing), `category: "marketing_messages"`, `value: "stop"|"resume"`,
//! `detail` and a unix `timestamp`.

use super::{list, str_field, timestamp};
use herald_domain::contact::MarketingPreference;
use herald_domain::network::UserPreference;
use herald_domain::organization::NetworkRef;
use herald_domain::values::PhoneNumber;
use herald_domain::values::UserId;
use serde_json::Value;
use sha2::{Digest, Sha256};

pub(super) const FIELD: &str = "user_preferences";

/// Every item of one `user_preferences` change: the parsed ones, and a note for each that is not usable.
pub(super) fn parse_preferences(value: &Value) -> Vec<Result<UserPreference, String>> {
    let phone_number_id = match value
        .get("metadata")
        .and_then(|m| m.get("phone_number_id"))
        .and_then(Value::as_str)
        .map(NetworkRef::parse)
    {
        Some(Ok(id)) => id,
        Some(Err(e)) => return vec![Err(format!("metadata.phone_number_id {e}"))],
        None => return vec![Err("no metadata.phone_number_id".to_owned())],
    };
    let contacts = list(value, "contacts");
    list(value, FIELD)
        .iter()
        .enumerate()
        .map(|(i, item)| {
            parse_item(&phone_number_id, contacts, item)
                .map_err(|why| format!("user_preferences[{i}]: {why}"))
        })
        .collect()
}

fn parse_item(
    phone_number_id: &NetworkRef,
    contacts: &[Value],
    item: &Value,
) -> Result<UserPreference, String> {
    let category = str_field(item, "category").unwrap_or_default();
    if category != "marketing_messages" {
        return Err(format!("category `{category}` is not handled"));
    }
    let preference = match str_field(item, "value") {
        Some("stop") => MarketingPreference::Stopped,
        Some("resume") => MarketingPreference::Allowed,
        other => return Err(format!("unknown `value` {other:?}")),
    };
    let wa_id = str_field(item, "wa_id").filter(|w| !w.is_empty());
    let number = wa_id
        .map(|digits| PhoneNumber::from_digits(digits).map_err(|e| format!("`wa_id` {digits}: {e}")))
        .transpose()?;
    // The item may carry the user id itself; otherwise its contact (matched by `wa_id`) may.
    let user_id = str_field(item, "user_id")
        .or_else(|| {
            contacts
                .iter()
                .find(|c| wa_id.is_some() && str_field(c, "wa_id") == wa_id)
                .and_then(|c| str_field(c, "user_id"))
        })
        .filter(|id| !id.is_empty())
        .map(|id| UserId::parse(id).map_err(|e| format!("`user_id` {id}: {e}")))
        .transpose()?;
    if number.is_none() && user_id.is_none() {
        return Err("neither `wa_id` nor `user_id`".to_owned());
    }
    let occurred_at = timestamp(item)?;
    let mut digest = Sha256::new();
    for part in [
        "user_preferences",
        phone_number_id.as_str(),
        number.as_ref().map_or("", PhoneNumber::as_str),
        user_id.as_ref().map_or("", UserId::as_str),
        preference.as_str(),
        &occurred_at.timestamp().to_string(),
    ] {
        digest.update(part.as_bytes());
        digest.update([0]);
    }
    Ok(UserPreference {
        phone_number_id: phone_number_id.clone(),
        number,
        user_id,
        preference,
        occurred_at,
        dedupe_key: format!("{:x}", digest.finalize()),
    })
}
