//! Send request bodies (docs/api.md §4.1, §4.2): JSON to a domain [`SendDraft`], by hand.
//!
//! The body is parsed into a [`serde_json::Value`] first and each field is converted on its own through
//! the domain's value constructors, so one wrong field never hides another and every error is reported
//! under the path the client wrote (`variables.buttons[0].values[0]`).

use crate::multipart::Form;
use herald_domain::ids::MediaId;
use herald_domain::message::{MediaAttachment, MediaKind, MediaSource, MessageContent};
use herald_domain::organization::MessageKind;
use herald_domain::template::{
    BodyValues, ButtonKind, ButtonValue, HeaderValue, LanguageCode, ParamName, TemplateName, TemplateRef,
    TemplateText, TemplateVariables,
};
use herald_domain::usecases::SendDraft;
use herald_domain::values::{
    Caption, ClientReference, FileName, MediaLink, MessageText, PhoneNumber, RequestFingerprint,
};
use herald_domain::{FieldError, ValidationErrors};
use serde_json::{Map, Value};

/// The JSON send operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SendOperation {
    /// `POST /api/v1/messages/send-template`: a template, or a text with `"type": "text"`.
    Template,
    /// `POST /api/v1/messages/send-text`.
    Text,
    /// `POST /api/v1/messages/send-file` with a JSON body: a file uploaded before (`media_id`) or hosted
    /// elsewhere (`link`).
    File,
}

/// Keys that make a `variables` object the full form rather than the named shorthand.
const FULL_FORM_KEYS: [&str; 3] = ["header", "body", "buttons"];

/// The highest button index a template can have (the network allows 10 buttons).
const MAX_BUTTON_INDEX: u64 = 9;

/// The plan category of a request, decided before any field is validated so the plan check comes first
/// (docs/api.md §8): only an explicit `"type": "text"` makes a send-template request a text message.
pub(crate) fn message_kind(operation: SendOperation, body: &Value) -> MessageKind {
    match operation {
        SendOperation::Text => MessageKind::Text,
        SendOperation::File => MessageKind::Media,
        SendOperation::Template => match body.get("type").and_then(Value::as_str) {
            Some("text") => MessageKind::Text,
            _ => MessageKind::Template,
        },
    }
}

/// Converts a send body, collecting every field error.
pub(crate) fn draft(operation: SendOperation, body: &Value) -> Result<SendDraft, ValidationErrors> {
    let Some(object) = body.as_object() else {
        return Err(ValidationErrors::single(
            "body",
            format!("must be a JSON object, not {}", json_type(body)),
        ));
    };
    let mut errors = ValidationErrors::new();
    let to = required(object, "to", "to", &mut errors)
        .and_then(|v| string_at(v, "to", &mut errors))
        .and_then(|s| errors.check("to", PhoneNumber::parse(s)));
    let content = if operation == SendOperation::File {
        file_content(object, &mut errors)
    } else {
        check_type(operation, object, &mut errors);
        match message_kind(operation, body) {
            MessageKind::Text => text_content(object, &mut errors),
            MessageKind::Template | MessageKind::Media => template_content(object, &mut errors),
        }
    };
    finish_draft(object, to, content, errors)
}

/// The common optional fields (`from`, `client_reference`) and the verdict.
fn finish_draft(
    object: &Map<String, Value>,
    to: Option<PhoneNumber>,
    content: Option<MessageContent>,
    mut errors: ValidationErrors,
) -> Result<SendDraft, ValidationErrors> {
    let from = optional_string(object, "from", &mut errors)
        .map(|from| from.and_then(|s| errors.check("from", PhoneNumber::parse(s))));
    let client_reference = optional_string(object, "client_reference", &mut errors)
        .map(|reference| reference.and_then(|s| errors.check("client_reference", ClientReference::parse(s))));
    match (to, content, from, client_reference) {
        (Some(to), Some(content), Some(from), Some(client_reference)) if errors.is_empty() => Ok(SendDraft {
            to,
            from,
            content,
            client_reference,
        }),
        _ => {
            if errors.is_empty() {
                // Every path that drops a value records why; this only keeps the answer meaningful if
                // one ever does not.
                errors.push(FieldError::new("body", "is invalid"));
            }
            Err(errors)
        }
    }
}

/// Adds the `Idempotency-Key` header's error to the body's, so all are reported together and only after
/// the plan and rate checks.
pub(crate) fn with_header_error(
    draft: Result<SendDraft, ValidationErrors>,
    header_error: Option<FieldError>,
) -> Result<SendDraft, ValidationErrors> {
    match (draft, header_error) {
        (draft, None) => draft,
        (Ok(_), Some(error)) => Err(ValidationErrors::from(error)),
        (Err(mut errors), Some(error)) => {
            errors.push(error);
            Err(errors)
        }
    }
}

/// The request's meaning for idempotency: the operation's path and the body re-serialized with sorted
/// keys and no whitespace, so formatting and key order do not make a retry look different.
pub(crate) fn fingerprint(path: &str, body: &Value) -> RequestFingerprint {
    RequestFingerprint::of(format!("{path}\n{}", canonical_json(body)).as_bytes())
}

/// Compact JSON with object keys sorted at every level. Sorted explicitly rather than relying on
/// serde_json's default map, which another crate could switch to insertion order (`preserve_order`).
pub(crate) fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(item, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

fn check_type(operation: SendOperation, object: &Map<String, Value>, errors: &mut ValidationErrors) {
    let Some(value) = present(object, "type") else {
        return;
    };
    let allowed: &[&str] = match operation {
        SendOperation::Template => &["text", "template"],
        SendOperation::Text => &["text"],
        SendOperation::File => &["document", "image", "video"],
    };
    if !value.as_str().is_some_and(|t| allowed.contains(&t)) {
        let message = match operation {
            SendOperation::Template => "must be `text` or `template`",
            SendOperation::Text => "must be `text` (or left out) on send-text",
            SendOperation::File => "must be `document`, `image` or `video`",
        };
        errors.push(FieldError::new("type", message));
    }
}

fn text_content(object: &Map<String, Value>, errors: &mut ValidationErrors) -> Option<MessageContent> {
    for field in ["template", "variables"] {
        if present(object, field).is_some() {
            errors.push(FieldError::new(field, "is only for template messages"));
        }
    }
    let body = required(object, "message", "message", errors)
        .and_then(|v| string_at(v, "message", errors))
        .and_then(|s| errors.check("message", MessageText::parse(s)));
    let preview_url = match present(object, "preview_url") {
        None => Some(false),
        Some(Value::Bool(flag)) => Some(*flag),
        Some(other) => {
            errors.push(FieldError::new(
                "preview_url",
                format!("must be a boolean, not {}", json_type(other)),
            ));
            None
        }
    };
    Some(MessageContent::Text {
        body: body?,
        preview_url: preview_url?,
    })
}

fn template_content(object: &Map<String, Value>, errors: &mut ValidationErrors) -> Option<MessageContent> {
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

fn template_ref(object: &Map<String, Value>, errors: &mut ValidationErrors) -> Option<TemplateRef> {
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

fn full_variables(map: &Map<String, Value>, errors: &mut ValidationErrors) -> Option<TemplateVariables> {
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

fn header_value(header: &Map<String, Value>, errors: &mut ValidationErrors) -> Option<HeaderValue> {
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
    let Ok(kind) = MediaKind::parse(kind) else {
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

/// Exactly one of `media_id` (an upload of this organization, checked by the use case) and `link` (an
/// absolute `https://` URL the network fetches), reported under `prefix`.
fn media_source(
    object: &Map<String, Value>,
    prefix: &str,
    errors: &mut ValidationErrors,
) -> Option<MediaSource> {
    let id_field = format!("{prefix}media_id");
    let link_field = format!("{prefix}link");
    match (present(object, "media_id"), present(object, "link")) {
        (Some(_), Some(_)) => {
            errors.push(FieldError::new(
                link_field,
                "give either `media_id` or `link`, not both",
            ));
            None
        }
        (None, None) => {
            errors.push(FieldError::new(id_field, "is required (or give a `link`)"));
            None
        }
        (Some(id), None) => string_at(id, &id_field, errors)
            .and_then(|s| errors.check(&id_field, MediaId::parse(s)))
            .map(MediaSource::Stored),
        (None, Some(link)) => string_at(link, &link_field, errors)
            .and_then(|s| {
                let link = if s.starts_with("https://") {
                    MediaLink::parse(s)
                } else {
                    Err(herald_domain::error::InvalidValue::new(
                        "link must be an absolute https:// URL",
                    ))
                };
                errors.check(&link_field, link)
            })
            .map(MediaSource::Link),
    }
}

/// `send-file`'s JSON form: `media_id` (the upload decides the kind) or `link` with its `type`, and an
/// optional `caption` and (documents) `filename`.
fn file_content(object: &Map<String, Value>, errors: &mut ValidationErrors) -> Option<MessageContent> {
    for field in ["message", "preview_url", "template", "variables"] {
        if present(object, field).is_some() {
            errors.push(FieldError::new(field, "is not a field of send-file"));
        }
    }
    let source = media_source(object, "", errors);
    let declared = match present(object, "type") {
        None => Some(None),
        Some(value) => string_at(value, "type", errors).and_then(|s| match MediaKind::parse(s) {
            Ok(kind) => Some(Some(kind)),
            Err(_) => {
                errors.push(FieldError::new("type", "must be `document`, `image` or `video`"));
                None
            }
        }),
    };
    // A link's bytes are not seen before the network fetches them, so its kind must be declared; an
    // upload's kind is known (the use case takes it from the stored file).
    let kind = match (&source, declared) {
        (Some(MediaSource::Link(_)), Some(None)) => {
            errors.push(FieldError::new("type", "is required with a `link`"));
            None
        }
        (_, Some(Some(kind))) => Some(kind),
        (_, Some(None)) => Some(MediaKind::Document),
        (_, None) => None,
    };
    let caption = optional_string(object, "caption", errors)
        .map(|caption| caption.and_then(|s| errors.check("caption", Caption::parse(s))));
    let filename = optional_string(object, "filename", errors)
        .map(|name| name.and_then(|s| errors.check("filename", FileName::parse(s))));
    if let (Some(Some(_)), Some(kind)) = (&filename, kind)
        && kind != MediaKind::Document
        && matches!(source, Some(MediaSource::Link(_)))
    {
        errors.push(FieldError::new("filename", "only documents take a filename"));
    }
    Some(MessageContent::Media {
        media: MediaAttachment {
            kind: kind?,
            source: source?,
            filename: filename?,
        },
        caption: caption?,
    })
}

/// `send-file`'s multipart form (docs/api.md §4.3): parts `to`, `file`, `caption`, `from`,
/// `client_reference`. The file's kind was judged from its bytes while it streamed in.
pub(crate) fn multipart_file_draft(form: &Form) -> Result<SendDraft, ValidationErrors> {
    let mut errors = form.errors.clone();
    let to = match form.fields.get("to") {
        Some(to) => errors.check("to", PhoneNumber::parse(to)),
        None => {
            errors.push(FieldError::new("to", "is required"));
            None
        }
    };
    let caption = form
        .fields
        .get("caption")
        .map(|caption| errors.check("caption", Caption::parse(caption)));
    let media = upload_attachment(form, &mut errors);
    let content = match (media, caption) {
        (Some(media), None) => Some(MessageContent::Media { media, caption: None }),
        (Some(media), Some(Some(caption))) => Some(MessageContent::Media {
            media,
            caption: Some(caption),
        }),
        _ => None,
    };
    let object: Map<String, Value> = form
        .fields
        .iter()
        .filter(|(name, _)| matches!(name.as_str(), "from" | "client_reference"))
        .map(|(name, value)| (name.clone(), Value::String(value.clone())))
        .collect();
    finish_draft(&object, to, content, errors)
}

/// `send-template-media`'s multipart form (docs/api.md §4.4): part `template` holds §4.1's template form as
/// JSON, part `file` the header's file.
pub(crate) fn multipart_template_draft(form: &Form) -> Result<SendDraft, ValidationErrors> {
    let mut errors = form.errors.clone();
    let media = upload_attachment(form, &mut errors);
    let Some(text) = form.fields.get("template") else {
        errors.push(FieldError::new(
            "template",
            "is required: the template form of send-template, as JSON",
        ));
        return Err(errors);
    };
    let body: Value = match serde_json::from_str(text) {
        Ok(body) => body,
        Err(error) => {
            errors.push(FieldError::new("template", format!("is not valid JSON: {error}")));
            return Err(errors);
        }
    };
    if body.get("type").and_then(Value::as_str) == Some("text") {
        errors.push(FieldError::new("template.type", "must be `template` here"));
    }
    let mut parsed = draft(SendOperation::Template, &body);
    if let Ok(draft) = &mut parsed
        && let MessageContent::Template { variables, .. } = &mut draft.content
    {
        if variables.header.is_some() {
            errors.push(FieldError::new(
                "template.variables.header",
                "the header's file is the `file` part; leave the header out",
            ));
        } else if let Some(media) = media {
            variables.header = Some(HeaderValue::Media(media));
        }
    }
    match parsed {
        Ok(draft) if errors.is_empty() => Ok(draft),
        Ok(_) => Err(errors),
        Err(body_errors) => {
            for error in body_errors.errors() {
                errors.push(FieldError::new(
                    format!("template.{}", error.field),
                    error.message.clone(),
                ));
            }
            Err(errors)
        }
    }
}

/// The uploaded file as the draft's attachment, named [`MediaSource::Upload`] until it is stored.
fn upload_attachment(form: &Form, errors: &mut ValidationErrors) -> Option<MediaAttachment> {
    let Some(file) = &form.file else {
        if !errors.errors().iter().any(|e| e.field == "file") {
            errors.push(FieldError::new("file", "is required"));
        }
        return None;
    };
    let kind = file.staged.content().kind;
    // Only a document's name reaches the recipient; a bad name on an image is not worth a refusal.
    let filename = match (&file.filename, kind) {
        (Some(name), MediaKind::Document) => Some(errors.check("file", FileName::parse(name))?),
        _ => None,
    };
    Some(MediaAttachment {
        kind,
        source: MediaSource::Upload,
        filename,
    })
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

/// A field's value; `null` counts as absent.
fn present<'a>(object: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    object.get(key).filter(|v| !v.is_null())
}

fn required<'a>(
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
fn optional_string<'a>(
    object: &'a Map<String, Value>,
    key: &str,
    errors: &mut ValidationErrors,
) -> Option<Option<&'a str>> {
    match present(object, key) {
        None => Some(None),
        Some(value) => string_at(value, key, errors).map(Some),
    }
}

fn string_at<'a>(value: &'a Value, field: &str, errors: &mut ValidationErrors) -> Option<&'a str> {
    let text = value.as_str();
    if text.is_none() {
        errors.push(FieldError::new(
            field,
            format!("must be a string, not {}", json_type(value)),
        ));
    }
    text
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn template_draft(body: Value) -> SendDraft {
        draft(SendOperation::Template, &body).unwrap()
    }

    fn fields(result: Result<SendDraft, ValidationErrors>) -> Vec<String> {
        result
            .unwrap_err()
            .errors()
            .iter()
            .map(|e| e.field.clone())
            .collect()
    }

    fn texts(values: &[&str]) -> Vec<TemplateText> {
        values.iter().map(|v| TemplateText::parse(v).unwrap()).collect()
    }

    fn variables(draft: &SendDraft) -> &TemplateVariables {
        match &draft.content {
            MessageContent::Template { variables, .. } => variables,
            other => panic!("not a template: {other:?}"),
        }
    }

    #[test]
    fn kind_comes_from_operation_type_and_template() {
        use SendOperation::*;
        assert_eq!(message_kind(Text, &json!({})), MessageKind::Text);
        assert_eq!(
            message_kind(Text, &json!({"type": "template"})),
            MessageKind::Text
        );
        assert_eq!(
            message_kind(Template, &json!({"type": "text"})),
            MessageKind::Text
        );
        assert_eq!(
            message_kind(Template, &json!({"type": "template"})),
            MessageKind::Template
        );
        assert_eq!(
            message_kind(Template, &json!({"template": {}})),
            MessageKind::Template
        );
        assert_eq!(message_kind(Template, &json!({"type": 3})), MessageKind::Template);
        assert_eq!(message_kind(Template, &json!([1])), MessageKind::Template);
    }

    #[test]
    fn the_seed_text_form() {
        let draft = template_draft(json!({
            "to": "+15551234567", "type": "text", "message": "Your order has shipped 📦",
            "from": "+15550001111", "client_reference": "order-1234"
        }));
        assert_eq!(draft.to.as_str(), "+15551234567");
        assert_eq!(draft.from.unwrap().as_str(), "+15550001111");
        assert_eq!(draft.client_reference.unwrap().as_str(), "order-1234");
        assert_eq!(
            draft.content,
            MessageContent::Text {
                body: MessageText::parse("Your order has shipped 📦").unwrap(),
                preview_url: false
            }
        );
    }

    #[test]
    fn send_text_takes_preview_url() {
        let draft = draft(
            SendOperation::Text,
            &json!({"to": "+15551234567", "message": "Hi", "preview_url": true}),
        )
        .unwrap();
        assert_eq!(
            draft.content,
            MessageContent::Text {
                body: MessageText::parse("Hi").unwrap(),
                preview_url: true
            }
        );
        assert!(draft.from.is_none() && draft.client_reference.is_none());
    }

    #[test]
    fn the_full_template_form() {
        let draft = template_draft(json!({
            "to": "+15551234567",
            "type": "template",
            "template": {"name": "order_shipped", "language": "en_US"},
            "variables": {
                "header": {"type": "text", "values": ["#1234"]},
                "body": ["Ana", "#1234", "Friday"],
                "buttons": [{"index": 0, "sub_type": "url", "values": ["track/1234"]}]
            }
        }));
        let MessageContent::Template { template, variables } = draft.content else {
            panic!("not a template")
        };
        assert_eq!(template.name.as_str(), "order_shipped");
        assert_eq!(template.language.as_str(), "en_US");
        assert_eq!(
            variables,
            TemplateVariables {
                header: Some(HeaderValue::Text(texts(&["#1234"]))),
                body: BodyValues::Positional(texts(&["Ana", "#1234", "Friday"])),
                buttons: vec![ButtonValue {
                    index: 0,
                    kind: ButtonKind::Url,
                    values: texts(&["track/1234"])
                }],
            }
        );
    }

    #[test]
    fn the_positional_shorthand() {
        let draft = template_draft(json!({
            "to": "+15551234567",
            "template": {"name": "order_shipped", "language": "en_US"},
            "variables": ["Ana", "#1234", "Friday"]
        }));
        assert_eq!(
            variables(&draft),
            &TemplateVariables::positional(texts(&["Ana", "#1234", "Friday"]))
        );
    }

    #[test]
    fn the_named_shorthand_and_named_full_body() {
        let expected = TemplateVariables::named(vec![
            (
                ParamName::parse("customer").unwrap(),
                TemplateText::parse("Ana").unwrap(),
            ),
            (
                ParamName::parse("date").unwrap(),
                TemplateText::parse("Friday").unwrap(),
            ),
        ]);
        let short = template_draft(json!({
            "to": "+15551234567",
            "template": {"name": "appointment_named", "language": "en_US"},
            "variables": {"date": "Friday", "customer": "Ana"}
        }));
        let mut got = variables(&short).clone();
        if let BodyValues::Named(values) = &mut got.body {
            values.sort_by(|a, b| a.0.cmp(&b.0));
        }
        assert_eq!(got, expected);
        let full = template_draft(json!({
            "to": "+15551234567",
            "template": {"name": "appointment_named", "language": "en_US"},
            "variables": {"body": {"customer": "Ana", "date": "Friday"}}
        }));
        let mut got = variables(&full).clone();
        if let BodyValues::Named(values) = &mut got.body {
            values.sort_by(|a, b| a.0.cmp(&b.0));
        }
        assert_eq!(got, expected);
    }

    #[test]
    fn no_variables_and_empty_object_mean_none() {
        for body in [
            json!({"to": "+15551234567", "template": {"name": "hello_world", "language": "en_US"}}),
            json!({"to": "+15551234567", "template": {"name": "hello_world", "language": "en_US"}, "variables": {}}),
            json!({"to": "+15551234567", "template": {"name": "hello_world", "language": "en_US"}, "variables": null}),
        ] {
            assert_eq!(variables(&template_draft(body)), &TemplateVariables::default());
        }
    }

    #[test]
    fn media_headers_by_link() {
        let draft = template_draft(json!({
            "to": "+15551234567",
            "template": {"name": "invoice_ready", "language": "en_US"},
            "variables": {
                "header": {"type": "document", "link": "https://example.com/i.pdf", "filename": "invoice.pdf"},
                "body": ["INV-1"]
            }
        }));
        assert_eq!(
            variables(&draft).header,
            Some(HeaderValue::Media(MediaAttachment {
                kind: MediaKind::Document,
                source: MediaSource::Link(MediaLink::parse("https://example.com/i.pdf").unwrap()),
                filename: Some(FileName::parse("invoice.pdf").unwrap()),
            }))
        );
    }

    #[test]
    fn a_header_names_an_upload_by_media_id() {
        let draft = template_draft(json!({
            "to": "+15551234567",
            "template": {"name": "promo_image", "language": "en_US"},
            "variables": {"header": {"type": "image", "media_id": "med_01JD0000000000000000000000"}}
        }));
        assert_eq!(
            variables(&draft).header,
            Some(HeaderValue::Media(MediaAttachment {
                kind: MediaKind::Image,
                source: MediaSource::Stored(MediaId::parse("med_01JD0000000000000000000000").unwrap()),
                filename: None,
            }))
        );
    }

    #[test]
    fn send_file_takes_a_media_id_or_a_typed_link() {
        let file = |body: Value| draft(SendOperation::File, &body);
        let by_id = file(
            json!({"to": "+15551234567", "media_id": "med_01JD0000000000000000000000", "caption": "Hi"}),
        )
        .unwrap();
        let MessageContent::Media { media, caption } = by_id.content else {
            panic!("not a media message");
        };
        assert_eq!(
            media.source,
            MediaSource::Stored(MediaId::parse("med_01JD0000000000000000000000").unwrap())
        );
        assert_eq!(caption.unwrap().as_str(), "Hi");
        let by_link =
            file(json!({"to": "+15551234567", "link": "https://e.com/a.mp4", "type": "video"})).unwrap();
        assert!(matches!(
            by_link.content,
            MessageContent::Media {
                media: MediaAttachment {
                    kind: MediaKind::Video,
                    ..
                },
                ..
            }
        ));
        let cases = [
            (
                json!({"to": "+15551234567", "link": "https://e.com/a.pdf"}),
                "type",
            ),
            (json!({"to": "+15551234567"}), "media_id"),
            (
                json!({"to": "+15551234567", "media_id": "msg_01JD0000000000000000000000"}),
                "media_id",
            ),
            (
                json!({"to": "+15551234567", "media_id": "med_01JD0000000000000000000000", "link": "https://e.com/a"}),
                "link",
            ),
            (
                json!({"to": "+15551234567", "link": "https://e.com/a.png", "type": "image", "filename": "a.png"}),
                "filename",
            ),
            (
                json!({"to": "+15551234567", "link": "https://e.com/a", "type": "audio"}),
                "type",
            ),
            (
                json!({"to": "+15551234567", "media_id": "med_01JD0000000000000000000000", "caption": ""}),
                "caption",
            ),
            (
                json!({"to": "+15551234567", "media_id": "med_01JD0000000000000000000000", "message": "hi"}),
                "message",
            ),
        ];
        for (body, field) in cases {
            assert_eq!(fields(file(body.clone())), vec![field.to_owned()], "{body}");
        }
        assert_eq!(message_kind(SendOperation::File, &json!({})), MessageKind::Media);
    }

    #[test]
    fn header_rules() {
        let body = |header: Value| json!({"to": "+15551234567", "template": {"name": "x", "language": "en"}, "variables": {"header": header}});
        let cases = [
            (
                json!({"type": "image", "link": "http://example.com/a.png"}),
                "variables.header.link",
            ),
            (json!({"type": "image"}), "variables.header.media_id"),
            (
                json!({"type": "image", "link": "https://e.com/a.png", "filename": "a.png"}),
                "variables.header.filename",
            ),
            (
                json!({"type": "audio", "link": "https://e.com/a"}),
                "variables.header.type",
            ),
            (json!({"values": ["x"]}), "variables.header.type"),
            (json!({"type": "text"}), "variables.header.values"),
            (
                json!({"type": "text", "values": [1]}),
                "variables.header.values[0]",
            ),
            (json!("text"), "variables.header"),
        ];
        for (header, field) in cases {
            assert_eq!(
                fields(draft(SendOperation::Template, &body(header.clone()))),
                vec![field.to_owned()],
                "{header}"
            );
        }
    }

    #[test]
    fn every_field_error_is_collected_with_its_path() {
        let result = draft(
            SendOperation::Template,
            &json!({
                "to": "15551234567",
                "type": "template",
                "template": {"name": "Order Shipped", "language": "english"},
                "variables": {
                    "body": ["Ana", "", "Friday"],
                    "buttons": [{"index": 0, "sub_type": "url", "values": [42]}, {"index": 12, "sub_type": "phone"}]
                },
                "from": 15550001111u64,
                "client_reference": "r".repeat(129),
            }),
        );
        assert_eq!(
            fields(result),
            [
                "to",
                "template.name",
                "template.language",
                "variables.body[1]",
                "variables.buttons[0].values[0]",
                "variables.buttons[1].index",
                "variables.buttons[1].sub_type",
                "from",
                "client_reference",
            ]
        );
    }

    #[test]
    fn text_field_errors() {
        let result = draft(
            SendOperation::Template,
            &json!({"to": 15551234567u64, "type": "text", "message": "", "preview_url": "yes", "template": {"name": "x"}}),
        );
        assert_eq!(fields(result), ["to", "template", "message", "preview_url"]);
        let result = draft(SendOperation::Text, &json!({"type": "template"}));
        assert_eq!(fields(result), ["to", "type", "message"]);
        let result = draft(
            SendOperation::Text,
            &json!({"to": "+15551234567", "message": "a".repeat(4097)}),
        );
        let errors = result.unwrap_err();
        assert_eq!(errors.errors()[0].field, "message");
        assert!(errors.errors()[0].message.contains("4096"));
    }

    #[test]
    fn template_shape_errors() {
        let base = |extra: Value| {
            let mut body = json!({"to": "+15551234567"});
            for (k, v) in extra.as_object().unwrap() {
                body[k] = v.clone();
            }
            fields(draft(SendOperation::Template, &body))
        };
        assert_eq!(base(json!({})), ["template"]);
        assert_eq!(base(json!({"type": "image"})), ["type", "template"]);
        assert_eq!(base(json!({"template": "order_shipped"})), ["template"]);
        assert_eq!(
            base(json!({"template": {}})),
            ["template.name", "template.language"]
        );
        assert_eq!(
            base(json!({"template": {"name": "a", "language": "en"}, "message": "hi"})),
            ["message"]
        );
        assert_eq!(
            base(json!({"template": {"name": "a", "language": "en"}, "variables": "Ana"})),
            ["variables"]
        );
        assert_eq!(
            base(json!({"template": {"name": "a", "language": "en"}, "variables": ["ok", 3, "a\tb"]})),
            ["variables[1]", "variables[2]"]
        );
        assert_eq!(
            base(
                json!({"template": {"name": "a", "language": "en"}, "variables": {"Bad Name": "x", "ok": 1}})
            ),
            ["variables.Bad Name", "variables.ok"]
        );
        assert_eq!(
            base(
                json!({"template": {"name": "a", "language": "en"}, "variables": {"body": "x", "buttons": {}}})
            ),
            ["variables.body", "variables.buttons"]
        );
        assert_eq!(
            base(json!({"template": {"name": "a", "language": "en"}, "variables": {"buttons": ["x"]}})),
            ["variables.buttons[0]"]
        );
    }

    #[test]
    fn a_body_that_is_not_an_object() {
        assert_eq!(fields(draft(SendOperation::Text, &json!([1, 2]))), ["body"]);
    }

    #[test]
    fn header_errors_join_body_errors() {
        let header = Some(FieldError::new("Idempotency-Key", "bad"));
        let ok = draft(
            SendOperation::Text,
            &json!({"to": "+15551234567", "message": "Hi"}),
        );
        assert_eq!(fields(with_header_error(ok, header.clone())), ["Idempotency-Key"]);
        let bad = draft(SendOperation::Text, &json!({"message": "Hi"}));
        assert_eq!(fields(with_header_error(bad, header)), ["to", "Idempotency-Key"]);
        let ok = draft(
            SendOperation::Text,
            &json!({"to": "+15551234567", "message": "Hi"}),
        );
        assert!(with_header_error(ok, None).is_ok());
    }

    #[test]
    fn fingerprints_ignore_key_order_and_whitespace() {
        let a: Value =
            serde_json::from_str(r#"{"to":"+1555","variables":{"b":"2","a":"1"},"x":[1,{"z":1,"y":2}]}"#)
                .unwrap();
        let b: Value = serde_json::from_str(
            "{ \"x\" : [ 1 , { \"y\":2, \"z\":1 } ],\n \"variables\": {\"a\": \"1\", \"b\": \"2\"}, \"to\": \"+1555\" }",
        )
        .unwrap();
        let path = "/api/v1/messages/send-text";
        assert_eq!(fingerprint(path, &a), fingerprint(path, &b));
        assert_eq!(
            canonical_json(&a),
            r#"{"to":"+1555","variables":{"a":"1","b":"2"},"x":[1,{"y":2,"z":1}]}"#
        );
        assert_ne!(
            fingerprint("/api/v1/messages/send-template", &a),
            fingerprint(path, &a)
        );
        let c: Value =
            serde_json::from_str(r#"{"to":"+1556","variables":{"b":"2","a":"1"},"x":[1,{"z":1,"y":2}]}"#)
                .unwrap();
        assert_ne!(fingerprint(path, &a), fingerprint(path, &c));
        let reordered: Value =
            serde_json::from_str(r#"{"to":"+1555","variables":{"b":"2","a":"1"},"x":[{"z":1,"y":2},1]}"#)
                .unwrap();
        assert_ne!(
            fingerprint(path, &a),
            fingerprint(path, &reordered),
            "array order is meaning"
        );
    }
}
