//! The values of a template send's parts, each error under the path the client wrote: text values by
//! position or by name, a body, and a media header's file.

use super::super::fields::{json_type, present, string_at};
use super::super::media::media_source;
use herald_domain::attachment::{MediaAttachment, MediaKind};
use herald_domain::template::{BodyValues, ParamName, TemplateText};
use herald_domain::values::FileName;
use herald_domain::{FieldError, ValidationErrors};
use serde_json::{Map, Value};

/// A body's values at `field`: an array by position, an object by name, nothing for none.
pub(super) fn body_values(
    value: Option<&Value>,
    field: &str,
    errors: &mut ValidationErrors,
) -> Option<BodyValues> {
    match value {
        None => Some(BodyValues::Positional(Vec::new())),
        Some(Value::Array(items)) => positional(items, field, errors).map(BodyValues::Positional),
        Some(Value::Object(values)) => named(values, field, errors).map(BodyValues::Named),
        Some(other) => {
            errors.push(FieldError::new(
                field,
                format!("must be an array or an object, not {}", json_type(other)),
            ));
            None
        }
    }
}

/// A media header's file at `prefix` (`variables.header.`, `variables.cards[1].header.`).
pub(super) fn media_header(
    header: &Map<String, Value>,
    kind: MediaKind,
    prefix: &str,
    errors: &mut ValidationErrors,
) -> Option<MediaAttachment> {
    let source = media_source(header, prefix, errors);
    let filename_field = format!("{prefix}filename");
    let filename = match present(header, "filename") {
        None => Some(None),
        Some(_) if kind != MediaKind::Document => {
            errors.push(FieldError::new(
                filename_field.as_str(),
                "only document headers take a filename",
            ));
            None
        }
        Some(value) => string_at(value, &filename_field, errors)
            .and_then(|s| errors.check(&filename_field, FileName::parse(s)))
            .map(Some),
    };
    Some(MediaAttachment {
        kind,
        source: source?,
        filename: filename?,
    })
}

/// `["Ana", "#1234"]` at `prefix`; errors at `prefix[i]`.
pub(super) fn positional(
    items: &[Value],
    prefix: &str,
    errors: &mut ValidationErrors,
) -> Option<Vec<TemplateText>> {
    let parsed: Vec<Option<TemplateText>> = items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let field = format!("{prefix}[{i}]");
            string_at(item, &field, errors).and_then(|s| errors.check(&field, TemplateText::parse(s)))
        })
        .collect();
    parsed.into_iter().collect()
}

/// `{"customer": "Ana"}` at `prefix`; errors at `prefix.name`.
pub(super) fn named(
    map: &Map<String, Value>,
    prefix: &str,
    errors: &mut ValidationErrors,
) -> Option<Vec<(ParamName, TemplateText)>> {
    let parsed: Vec<Option<(ParamName, TemplateText)>> = map
        .iter()
        .map(|(key, item)| {
            let field = format!("{prefix}.{key}");
            let name = errors.check(&field, ParamName::parse(key));
            let value =
                string_at(item, &field, errors).and_then(|s| errors.check(&field, TemplateText::parse(s)));
            Some((name?, value?))
        })
        .collect();
    parsed.into_iter().collect()
}
