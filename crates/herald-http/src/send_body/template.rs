//! A template send's `template` and `variables`: the full form and the body shorthands.

use super::fields::{json_type, present, required, string_at};
use super::media::media_source;
use herald_domain::attachment::{MediaAttachment, MediaKind};
use herald_domain::message::MessageContent;
use herald_domain::template::{
    BodyValues, ButtonKind, ButtonValue, HeaderValue, LanguageCode, ParamName, TemplateName, TemplateRef,
    TemplateText, TemplateVariables,
};
use herald_domain::values::FileName;
use herald_domain::{FieldError, ValidationErrors};
use serde_json::{Map, Value};

/// Keys that make a `variables` object the full form rather than the named shorthand.
const FULL_FORM_KEYS: [&str; 3] = ["header", "body", "buttons"];

/// The highest button index a template can have (the network allows 10 buttons).
const MAX_BUTTON_INDEX: u64 = 9;

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
    let variables = match present(object, "variables") {
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
    };
    Some(MessageContent::Template {
        template: template?,
        variables: variables?,
    })
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
    let body = match present(map, "body") {
        None => Some(BodyValues::Positional(Vec::new())),
        Some(Value::Array(items)) => positional(items, "variables.body", errors).map(BodyValues::Positional),
        Some(Value::Object(values)) => named(values, "variables.body", errors).map(BodyValues::Named),
        Some(other) => {
            errors.push(FieldError::new(
                "variables.body",
                format!("must be an array or an object, not {}", json_type(other)),
            ));
            None
        }
    };
    let buttons = match present(map, "buttons") {
        None => Some(Vec::new()),
        Some(Value::Array(items)) => {
            let parsed: Vec<Option<ButtonValue>> = items
                .iter()
                .enumerate()
                .map(|(i, item)| button(item, &format!("variables.buttons[{i}]"), errors))
                .collect();
            parsed.into_iter().collect::<Option<Vec<_>>>()
        }
        Some(other) => {
            errors.push(FieldError::new(
                "variables.buttons",
                format!("must be an array, not {}", json_type(other)),
            ));
            None
        }
    };
    Some(TemplateVariables {
        header: header?,
        body: body?,
        buttons: buttons?,
    })
}

pub(super) fn header_value(
    header: &Map<String, Value>,
    errors: &mut ValidationErrors,
) -> Option<HeaderValue> {
    let kind = required(header, "type", "variables.header.type", errors)
        .and_then(|v| string_at(v, "variables.header.type", errors))?;
    if kind == "text" {
        let values = required(header, "values", "variables.header.values", errors)?;
        let Some(items) = values.as_array() else {
            errors.push(FieldError::new(
                "variables.header.values",
                format!("must be an array of strings, not {}", json_type(values)),
            ));
            return None;
        };
        return positional(items, "variables.header.values", errors).map(HeaderValue::Text);
    }
    // A template's media header is a document, image or video (the network has no audio or sticker
    // header); an uploaded file of another kind meets the template check as `header_media_mismatch`.
    let Some(kind) = MediaKind::parse(kind).ok().filter(|kind| kind.fits_header()) else {
        errors.push(FieldError::new(
            "variables.header.type",
            format!("must be text, document, image or video, not `{kind}`"),
        ));
        return None;
    };
    let source = media_source(header, "variables.header.", errors);
    let filename = match present(header, "filename") {
        None => Some(None),
        Some(_) if kind != MediaKind::Document => {
            errors.push(FieldError::new(
                "variables.header.filename",
                "only document headers take a filename",
            ));
            None
        }
        Some(value) => string_at(value, "variables.header.filename", errors)
            .and_then(|s| errors.check("variables.header.filename", FileName::parse(s)))
            .map(Some),
    };
    Some(HeaderValue::Media(MediaAttachment {
        kind,
        source: source?,
        filename: filename?,
    }))
}

fn button(item: &Value, field: &str, errors: &mut ValidationErrors) -> Option<ButtonValue> {
    let Some(button) = item.as_object() else {
        errors.push(FieldError::new(
            field,
            format!(
                "must be an object with `index`, `sub_type` and `values`, not {}",
                json_type(item)
            ),
        ));
        return None;
    };
    let index_field = format!("{field}.index");
    let index = required(button, "index", &index_field, errors).and_then(|v| {
        match v
            .as_u64()
            .filter(|i| *i <= MAX_BUTTON_INDEX)
            .and_then(|i| u8::try_from(i).ok())
        {
            Some(index) => Some(index),
            None => {
                errors.push(FieldError::new(
                    index_field.as_str(),
                    format!("must be an integer from 0 to {MAX_BUTTON_INDEX}"),
                ));
                None
            }
        }
    });
    let sub_type_field = format!("{field}.sub_type");
    let kind = required(button, "sub_type", &sub_type_field, errors)
        .and_then(|v| string_at(v, &sub_type_field, errors))
        .and_then(|s| errors.check(&sub_type_field, ButtonKind::parse_sub_type(s)));
    let values_field = format!("{field}.values");
    let values = match present(button, "values") {
        None => Some(Vec::new()),
        Some(Value::Array(items)) => positional(items, &values_field, errors),
        Some(other) => {
            errors.push(FieldError::new(
                values_field.as_str(),
                format!("must be an array of strings, not {}", json_type(other)),
            ));
            None
        }
    };
    Some(ButtonValue {
        index: index?,
        kind: kind?,
        values: values?,
    })
}

/// `["Ana", "#1234"]` at `prefix`; errors at `prefix[i]`.
fn positional(items: &[Value], prefix: &str, errors: &mut ValidationErrors) -> Option<Vec<TemplateText>> {
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
fn named(
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
