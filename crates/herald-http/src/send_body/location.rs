//! send-location's body (docs/api.md §4.11): Meta's `location` object, flat, checked by [`Location::parse`].

use super::fields::{json_type, merge, present, text_at};
use herald_domain::content::{Location, LocationDraft};
use herald_domain::message::MessageContent;
use herald_domain::{FieldError, ValidationErrors};
use serde_json::{Map, Value};

/// A coordinate written as a JSON number (as Meta's examples do) or a string of one.
fn degrees(
    object: &Map<String, Value>,
    key: &str,
    prefix: &str,
    errors: &mut ValidationErrors,
) -> Option<String> {
    match present(object, key)? {
        Value::Number(number) => Some(number.to_string()),
        Value::String(text) => Some(text.clone()),
        other => {
            errors.push(FieldError::new(
                format!("{prefix}{key}"),
                format!("must be a number, not {}", json_type(other)),
            ));
            None
        }
    }
}

/// A location object's `latitude`, `longitude`, `name` and `address`, each error under `prefix` + key
/// (`variables.header.latitude` for a template's location header).
pub(super) fn location_at(
    object: &Map<String, Value>,
    prefix: &str,
    errors: &mut ValidationErrors,
) -> Option<Location> {
    let draft = LocationDraft {
        latitude: degrees(object, "latitude", prefix, errors),
        longitude: degrees(object, "longitude", prefix, errors),
        name: text_at(object, "name", &format!("{prefix}name"), errors),
        address: text_at(object, "address", &format!("{prefix}address"), errors),
    };
    let checked = Location::parse(&draft).map_err(|found| found.prefixed(prefix));
    merge(checked, errors)
}

/// `send-location`: `latitude`, `longitude`, `name`, `address` (Meta's `location` object, flat).
pub(super) fn location_content(
    object: &Map<String, Value>,
    errors: &mut ValidationErrors,
) -> Option<MessageContent> {
    location_at(object, "", errors).map(MessageContent::Location)
}
