//! send-location's body (docs/api.md §4.8): Meta's `location` object, flat, checked by [`Location::parse`].

use super::fields::{json_type, merge, present, text_at};
use herald_domain::content::{Location, LocationDraft};
use herald_domain::message::MessageContent;
use herald_domain::{FieldError, ValidationErrors};
use serde_json::{Map, Value};

/// A coordinate written as a JSON number (as Meta's examples do) or a string of one.
fn degrees(object: &Map<String, Value>, key: &str, errors: &mut ValidationErrors) -> Option<String> {
    match present(object, key)? {
        Value::Number(number) => Some(number.to_string()),
        Value::String(text) => Some(text.clone()),
        other => {
            errors.push(FieldError::new(
                key,
                format!("must be a number, not {}", json_type(other)),
            ));
            None
        }
    }
}

/// `send-location`: `latitude`, `longitude`, `name`, `address` (Meta's `location` object, flat).
pub(super) fn location_content(
    object: &Map<String, Value>,
    errors: &mut ValidationErrors,
) -> Option<MessageContent> {
    let draft = LocationDraft {
        latitude: degrees(object, "latitude", errors),
        longitude: degrees(object, "longitude", errors),
        name: text_at(object, "name", "name", errors),
        address: text_at(object, "address", "address", errors),
    };
    merge(Location::parse(&draft), errors).map(MessageContent::Location)
}
