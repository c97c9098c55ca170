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

/// The string under `key`, if present; a value of another type is recorded under `path` and read as absent.
pub(super) fn text_at(
    object: &Map<String, Value>,
    key: &str,
    path: &str,
    errors: &mut ValidationErrors,
) -> Option<String> {
    present(object, key).and_then(|value| string_at(value, path, errors).map(str::to_owned))
}

/// The object under `key`, if present; anything else is recorded under `path`.
pub(super) fn object_at<'a>(
    object: &'a Map<String, Value>,
    key: &str,
    path: &str,
    errors: &mut ValidationErrors,
) -> Option<&'a Map<String, Value>> {
    let value = present(object, key)?;
    let found = value.as_object();
    if found.is_none() {
        errors.push(FieldError::new(
            path,
            format!("must be an object, not {}", json_type(value)),
        ));
    }
    found
}

/// The array under `key`, if present; anything else is recorded under `path`.
pub(super) fn array_at<'a>(
    object: &'a Map<String, Value>,
    key: &str,
    path: &str,
    errors: &mut ValidationErrors,
) -> Option<&'a Vec<Value>> {
    let value = present(object, key)?;
    let found = value.as_array();
    if found.is_none() {
        errors.push(FieldError::new(
            path,
            format!("must be an array, not {}", json_type(value)),
        ));
    }
    found
}

/// Adds the domain's verdict to the adapter's: a field the adapter already refused (a wrong JSON type), or
/// a part of it, is not reported a second time as missing.
pub(super) fn merge<T>(checked: Result<T, ValidationErrors>, errors: &mut ValidationErrors) -> Option<T> {
    match checked {
        Ok(value) => Some(value),
        Err(found) => {
            // Those the domain only counted cannot be matched against the adapter's: counted as they are.
            errors.count_more(found.unkept());
            for error in found.into_errors() {
                let covered = errors.errors().iter().any(|e| {
                    error.field == e.field
                        || error
                            .field
                            .strip_prefix(e.field.as_str())
                            .is_some_and(|rest| rest.starts_with(['.', '[']))
                });
                if !covered {
                    errors.push(error);
                }
            }
            None
        }
    }
}
