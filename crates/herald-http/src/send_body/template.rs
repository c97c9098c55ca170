//! A template send's `template` and `variables`: the full form (header, body, buttons, offer, cards) and
//! the body shorthands (docs/api.md §4.1).

mod buttons;
mod cards;
mod values;

use super::fields::{json_type, present, required, string_at};
use super::location::location_at;
use herald_domain::attachment::MediaKind;
use herald_domain::message::MessageContent;
use herald_domain::template::{HeaderValue, LanguageCode, TemplateName, TemplateRef, TemplateVariables};
use herald_domain::time::Timestamp;
use herald_domain::{FieldError, ValidationErrors};
use serde_json::{Map, Value};
use values::{body_values, media_header, named, positional};

/// Keys that make a `variables` object the full form rather than the named shorthand. A named template
/// whose variables are called so takes its values in the full form's `body`.
const FULL_FORM_KEYS: [&str; 5] = ["header", "body", "buttons", "offer", "cards"];

pub(super) fn template_content(
    object: &Map<String, Value>,
    errors: &mut ValidationErrors,
) -> Option<MessageContent> {
    for field in ["message", "preview_url"] {
        if present(object, field).is_some() {
            errors.push(FieldError::new(
                field,
                "is only for text messages; set \"type\": \"text\" to send one",
            ));
        }
    }
    let template = template_ref(object, errors);
    let variables = variables_at(object, errors);
    Some(MessageContent::Template {
        template: template?,
        variables: variables?,
    })
}

/// The object's `variables`: the full form or a body shorthand; absent is no variables.
pub(super) fn variables_at(
    object: &Map<String, Value>,
    errors: &mut ValidationErrors,
) -> Option<TemplateVariables> {
    match present(object, "variables") {
        None => Some(TemplateVariables::default()),
        Some(Value::Array(items)) => {
            positional(items, "variables", errors).map(TemplateVariables::positional)
        }
        Some(Value::Object(map)) if map.keys().all(|k| FULL_FORM_KEYS.contains(&k.as_str())) => {
            full_variables(map, errors)
        }
        Some(Value::Object(map)) => named(map, "variables", errors).map(TemplateVariables::named),
        Some(other) => {
            errors.push(FieldError::new(
                "variables",
                format!("must be an array or an object, not {}", json_type(other)),
            ));
            None
        }
    }
}

pub(super) fn template_ref(
    object: &Map<String, Value>,
    errors: &mut ValidationErrors,
) -> Option<TemplateRef> {
    let value = required(object, "template", "template", errors)?;
    let Some(template) = value.as_object() else {
        errors.push(FieldError::new(
            "template",
            format!(
                "must be an object with `name` and `language`, not {}",
                json_type(value)
            ),
        ));
        return None;
    };
    let name = required(template, "name", "template.name", errors)
        .and_then(|v| string_at(v, "template.name", errors))
        .and_then(|s| errors.check("template.name", TemplateName::parse(s)));
    let language = required(template, "language", "template.language", errors)
        .and_then(|v| string_at(v, "template.language", errors))
        .and_then(|s| errors.check("template.language", LanguageCode::parse(s)));
    Some(TemplateRef {
        name: name?,
        language: language?,
    })
}

pub(super) fn full_variables(
    map: &Map<String, Value>,
    errors: &mut ValidationErrors,
) -> Option<TemplateVariables> {
    let header = match present(map, "header") {
        None => Some(None),
        Some(Value::Object(header)) => header_value(header, errors).map(Some),
        Some(other) => {
            errors.push(FieldError::new(
                "variables.header",
                format!("must be an object, not {}", json_type(other)),
            ));
            None
        }
    };
    let body = body_values(present(map, "body"), "variables.body", errors);
    let buttons = buttons::buttons(present(map, "buttons"), "variables.buttons", errors);
    let offer = match present(map, "offer") {
        None => Some(None),
        Some(Value::Object(offer)) => offer_expiration(offer, errors).map(Some),
        Some(other) => {
            errors.push(FieldError::new(
                "variables.offer",
                format!("must be an object with `expires_at`, not {}", json_type(other)),
            ));
            None
        }
    };
    let cards = cards::cards(present(map, "cards"), errors);
    Some(TemplateVariables {
        header: header?,
        body: body?,
        buttons: buttons?,
        offer: offer?,
        cards: cards?,
    })
}

/// `{"expires_at": "2026-12-01T18:00:00Z"}`: when a limited-time offer ends.
fn offer_expiration(offer: &Map<String, Value>, errors: &mut ValidationErrors) -> Option<Timestamp> {
    const FIELD: &str = "variables.offer.expires_at";
    if let Some(key) = offer.keys().find(|k| k.as_str() != "expires_at") {
        errors.push(FieldError::new(
            format!("variables.offer.{key}"),
            "is not a field of an offer; it takes only `expires_at`",
        ));
        return None;
    }
    let text = required(offer, "expires_at", FIELD, errors).and_then(|v| string_at(v, FIELD, errors))?;
    match chrono::DateTime::parse_from_rfc3339(text) {
        Ok(at) => Some(at.to_utc()),
        Err(_) => {
            errors.push(FieldError::new(
                FIELD,
                "must be an RFC 3339 date and time such as 2026-12-01T18:00:00Z",
            ));
            None
        }
    }
}

pub(super) fn header_value(
    header: &Map<String, Value>,
    errors: &mut ValidationErrors,
) -> Option<HeaderValue> {
    let kind = required(header, "type", "variables.header.type", errors)
        .and_then(|v| string_at(v, "variables.header.type", errors))?;
    if kind == "text" {
        return match required(header, "values", "variables.header.values", errors)? {
            Value::Array(items) => {
                positional(items, "variables.header.values", errors).map(HeaderValue::Text)
            }
            Value::Object(values) => {
                named(values, "variables.header.values", errors).map(HeaderValue::NamedText)
            }
            other => {
                errors.push(FieldError::new(
                    "variables.header.values",
                    format!(
                        "must be an array of strings (or an object by name), not {}",
                        json_type(other)
                    ),
                ));
                None
            }
        };
    }
    if kind == "location" {
        return location_at(header, "variables.header.", errors).map(HeaderValue::Location);
    }
    // A template's media header is a document, image or video (the network has no audio or sticker
    // header); an uploaded file of another kind meets the template check as `header_media_mismatch`.
    let Some(kind) = MediaKind::parse(kind).ok().filter(|kind| kind.fits_header()) else {
        errors.push(FieldError::new(
            "variables.header.type",
            format!("must be text, location, document, image or video, not `{kind}`"),
        ));
        return None;
    };
    media_header(header, kind, "variables.header.", errors).map(HeaderValue::Media)
}

#[cfg(test)]
mod tests;
