//! Reading one field of a JSON object, with its error recorded under the field's path.

use herald_domain::{FieldError, ValidationErrors};
use serde_json::{Map, Value};

/// A field's value; `null` counts as absent.
pub(super) fn present<'a>(object: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    object.get(key).filter(|v| !v.is_null())
}

pub(super) fn required<'a>(
    object: &'a Map<String, Value>,
    key: &str,
    field: &str,
    errors: &mut ValidationErrors,
) -> Option<&'a Value> {
    let value = present(object, key);
    if value.is_none() {
        errors.push(FieldError::new(field, "is required"));
    }
    value
}

/// `Some(None)` when absent, `Some(Some(s))` for a string, `None` (error recorded) otherwise.
pub(super) fn optional_string<'a>(
    object: &'a Map<String, Value>,
    key: &str,
    errors: &mut ValidationErrors,
) -> Option<Option<&'a str>> {
    match present(object, key) {
        None => Some(None),
        Some(value) => string_at(value, key, errors).map(Some),
    }
}

pub(super) fn string_at<'a>(value: &'a Value, field: &str, errors: &mut ValidationErrors) -> Option<&'a str> {
    let text = value.as_str();
    if text.is_none() {
        errors.push(FieldError::new(
            field,
            format!("must be a string, not {}", json_type(value)),
        ));
    }
    text
}

pub(super) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
