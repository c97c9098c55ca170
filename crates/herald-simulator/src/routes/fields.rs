//! Reading the fields of a send's JSON the way Graph checks them: each refusal is Meta's code 100 naming
//! the field as Graph names it.

use serde_json::{Map, Value};

use crate::error::GraphError;

pub(crate) fn bad(details: impl Into<String>) -> GraphError {
    GraphError::invalid_parameter(details)
}

/// The string at `object[name]`: required, 1 to `max` characters; `path` names it in the error.
pub(crate) fn required_text<'a>(
    object: &'a Map<String, Value>,
    name: &str,
    path: &str,
    max: usize,
) -> Result<&'a str, GraphError> {
    match object.get(name) {
        Some(Value::String(text)) if !text.is_empty() => within(text, path, max),
        Some(Value::String(_)) => Err(bad(format!("Param {path} must not be empty"))),
        Some(_) => Err(bad(format!("Param {path} must be a string"))),
        None => Err(bad(format!("The parameter {path} is required"))),
    }
}

/// Like [`required_text`] for a field that may be absent.
pub(crate) fn optional_text<'a>(
    object: &'a Map<String, Value>,
    name: &str,
    path: &str,
    max: usize,
) -> Result<Option<&'a str>, GraphError> {
    if object.contains_key(name) {
        required_text(object, name, path, max).map(Some)
    } else {
        Ok(None)
    }
}

fn within<'a>(text: &'a str, path: &str, max: usize) -> Result<&'a str, GraphError> {
    // Meta counts characters, not bytes: an emoji-laden title is judged by what the user sees.
    let length = text.chars().count();
    if length > max {
        Err(bad(format!(
            "Param {path} is too long: {length} characters, at most {max} are allowed"
        )))
    } else {
        Ok(text)
    }
}

/// The object at `object[name]`, required.
pub(crate) fn required_object<'a>(
    object: &'a Map<String, Value>,
    name: &str,
    path: &str,
) -> Result<&'a Map<String, Value>, GraphError> {
    match object.get(name) {
        Some(Value::Object(inner)) => Ok(inner),
        Some(_) => Err(bad(format!("Param {path} must be an object"))),
        None => Err(bad(format!("The parameter {path} is required"))),
    }
}

/// The array at `object[name]`, required, with `min..=max` items.
pub(crate) fn required_array<'a>(
    object: &'a Map<String, Value>,
    name: &str,
    path: &str,
    (min, max): (usize, usize),
) -> Result<&'a [Value], GraphError> {
    let items = match object.get(name) {
        Some(Value::Array(items)) => items,
        Some(_) => return Err(bad(format!("Param {path} must be an array"))),
        None => return Err(bad(format!("The parameter {path} is required"))),
    };
    if items.len() < min || items.len() > max {
        return Err(bad(format!(
            "Param {path} must have {min} to {max} items, it has {}",
            items.len()
        )));
    }
    Ok(items)
}

/// A media object (message or interactive header): exactly one of `id` and `link`.
pub(crate) fn check_media_ref(object: &Map<String, Value>, path: &str) -> Result<(), GraphError> {
    let has = |name: &str| object.get(name).is_some_and(Value::is_string);
    if has("id") == has("link") {
        return Err(bad(format!("Param {path} must have exactly one of id or link")));
    }
    Ok(())
}
