//! The send request body of the Cloud API (cloud-api.md §1), built from a domain [`Message`].

use herald_domain::message::{MediaAttachment, MediaSource, Message, MessageContent, MessageError};
use herald_domain::network::NetworkError;
use herald_domain::template::{BodyValues, ButtonKind, ButtonValue, HeaderValue, TemplateVariables};
use serde_json::{Map, Value, json};

/// The JSON body of `POST /{v}/{phone_number_id}/messages` for `message`.
///
/// # Errors
/// [`NetworkError::Permanent`] with code `media_unavailable` when the message needs a file stored in Herald:
/// sending by media id needs the upload step, which this client does not do yet.
pub(crate) fn send_body(message: &Message) -> Result<Value, NetworkError> {
    let (kind, object) = match &message.content {
        MessageContent::Text { body, preview_url } => (
            "text",
            json!({ "preview_url": preview_url, "body": body.as_str() }),
        ),
        MessageContent::Media { media, caption } => {
            let mut object = media_object(media)?;
            if let Some(caption) = caption {
                object.insert("caption".into(), Value::from(caption.as_str()));
            }
            (media.kind.as_str(), Value::Object(object))
        }
        MessageContent::Template { template, variables } => {
            let mut object = Map::new();
            object.insert("name".into(), Value::from(template.name.as_str()));
            object.insert("language".into(), json!({ "code": template.language.as_str() }));
            let components = components(variables)?;
            // The network wants only the parts that carry parameters; an empty list is left out entirely.
            if !components.is_empty() {
                object.insert("components".into(), Value::Array(components));
            }
            ("template", Value::Object(object))
        }
    };
    let mut body = Map::new();
    body.insert("messaging_product".into(), Value::from("whatsapp"));
    body.insert("recipient_type".into(), Value::from("individual"));
    body.insert("to".into(), Value::from(message.to.as_str()));
    body.insert("type".into(), Value::from(kind));
    body.insert(kind.into(), object);
    body.insert(
        "biz_opaque_callback_data".into(),
        Value::from(message.id.to_string()),
    );
    Ok(Value::Object(body))
}

/// `{"link": …}` plus a document's `filename`.
fn media_object(media: &MediaAttachment) -> Result<Map<String, Value>, NetworkError> {
    let link = match &media.source {
        MediaSource::Link(link) => link.as_str(),
        MediaSource::Stored(id) => {
            return Err(NetworkError::Permanent(MessageError {
                code: "media_unavailable".into(),
                title: "The media file cannot be sent yet".into(),
                detail: format!(
                    "media {id} is stored in Herald; sending stored media needs the network upload, which is not available yet"
                ),
                network_code: None,
            }));
        }
    };
    let mut object = Map::new();
    object.insert("link".into(), Value::from(link));
    if let Some(filename) = &media.filename {
        object.insert("filename".into(), Value::from(filename.as_str()));
    }
    Ok(object)
}

fn text_parameter(text: &str) -> Value {
    json!({ "type": "text", "text": text })
}

fn components(variables: &TemplateVariables) -> Result<Vec<Value>, NetworkError> {
    let mut components = Vec::new();
    match &variables.header {
        Some(HeaderValue::Text(values)) if !values.is_empty() => {
            let parameters: Vec<Value> = values.iter().map(|v| text_parameter(v.as_str())).collect();
            components.push(json!({ "type": "header", "parameters": parameters }));
        }
        Some(HeaderValue::Media(media)) => {
            let kind = media.kind.as_str();
            let mut parameter = Map::new();
            parameter.insert("type".into(), Value::from(kind));
            parameter.insert(kind.into(), Value::Object(media_object(media)?));
            components.push(json!({ "type": "header", "parameters": [parameter] }));
        }
        Some(HeaderValue::Text(_)) | None => {}
    }
    let body: Vec<Value> = match &variables.body {
        BodyValues::Positional(values) => values.iter().map(|v| text_parameter(v.as_str())).collect(),
        BodyValues::Named(values) => values
            .iter()
            .map(|(name, value)| {
                json!({ "type": "text", "text": value.as_str(), "parameter_name": name.as_str() })
            })
            .collect(),
    };
    if !body.is_empty() {
        components.push(json!({ "type": "body", "parameters": body }));
    }
    for button in &variables.buttons {
        if let Some(component) = button_component(button) {
            components.push(component);
        }
    }
    Ok(components)
}

/// A button component, or `None` when the button takes nothing at send time.
fn button_component(button: &ButtonValue) -> Option<Value> {
    let parameters: Vec<Value> = button
        .values
        .iter()
        .filter_map(|value| {
            let value = value.as_str();
            match button.kind {
                ButtonKind::Url => Some(text_parameter(value)),
                ButtonKind::QuickReply => Some(json!({ "type": "payload", "payload": value })),
                ButtonKind::CopyCode => Some(json!({ "type": "coupon_code", "coupon_code": value })),
                ButtonKind::Flow => Some(json!({ "type": "action", "action": { "flow_token": value } })),
                ButtonKind::Static => None,
            }
        })
        .collect();
    if parameters.is_empty() {
        return None;
    }
    Some(json!({
        "type": "button",
        "sub_type": button.kind.sub_type(),
        // Meta's own examples send the index as a string; integers are only reported to work.
        "index": button.index.to_string(),
        "parameters": parameters,
    }))
}
