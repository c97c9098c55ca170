//! The `components` of a template send (Meta's "Sending template messages"): header (text, named text,
//! file or location), body, limited-time offer, buttons, and a carousel's cards, each card with its own
//! header, body and buttons. Only the parts that carry parameters are written.

use herald_domain::ports::{NetworkError, NetworkMediaIds};
use herald_domain::template::{
    BodyValues, ButtonKind, ButtonValue, CardValues, HeaderValue, TemplateVariables,
};
use serde_json::{Map, Value, json};

use crate::wire_kinds;
use crate::wire_media::media_object;

fn text_parameter(text: &str) -> Value {
    json!({ "type": "text", "text": text })
}

fn named_parameter(name: &str, text: &str) -> Value {
    json!({ "type": "text", "text": text, "parameter_name": name })
}

/// The template's `components`, in Meta's order: header, body, offer, buttons, carousel.
///
/// # Errors
/// [`NetworkError::Permanent`] (`media_unavailable`) when a stored file was not uploaded for this sender.
pub(crate) fn components(
    variables: &TemplateVariables,
    media: &NetworkMediaIds,
) -> Result<Vec<Value>, NetworkError> {
    let mut components = Vec::new();
    if let Some(header) = header_component(variables.header.as_ref(), media)? {
        components.push(header);
    }
    if let Some(body) = body_component(&variables.body) {
        components.push(body);
    }
    if let Some(expires_at) = variables.offer {
        components.push(json!({
            "type": "limited_time_offer",
            "parameters": [{
                "type": "limited_time_offer",
                "limited_time_offer": { "expiration_time_ms": expires_at.timestamp_millis() },
            }],
        }));
    }
    components.extend(variables.buttons.iter().filter_map(button_component));
    if !variables.cards.is_empty() {
        let cards = variables
            .cards
            .iter()
            .enumerate()
            .map(|(index, card)| card_object(index, card, media))
            .collect::<Result<Vec<_>, _>>()?;
        components.push(json!({ "type": "carousel", "cards": cards }));
    }
    Ok(components)
}

fn header_component(
    header: Option<&HeaderValue>,
    media: &NetworkMediaIds,
) -> Result<Option<Value>, NetworkError> {
    let parameter = match header {
        None => return Ok(None),
        Some(HeaderValue::Text(values)) => match values.first() {
            Some(value) => text_parameter(value.as_str()),
            None => return Ok(None),
        },
        Some(HeaderValue::NamedText(values)) => match values.first() {
            Some((name, value)) => named_parameter(name.as_str(), value.as_str()),
            None => return Ok(None),
        },
        Some(HeaderValue::Media(attachment)) => {
            let kind = attachment.kind.as_str();
            let mut parameter = Map::new();
            parameter.insert("type".into(), Value::from(kind));
            parameter.insert(kind.into(), Value::Object(media_object(attachment, media)?));
            Value::Object(parameter)
        }
        Some(HeaderValue::Location(location)) => {
            json!({ "type": "location", "location": wire_kinds::location(location) })
        }
    };
    Ok(Some(json!({ "type": "header", "parameters": [parameter] })))
}

fn body_component(body: &BodyValues) -> Option<Value> {
    let parameters: Vec<Value> = match body {
        BodyValues::Positional(values) => values.iter().map(|v| text_parameter(v.as_str())).collect(),
        BodyValues::Named(values) => values
            .iter()
            .map(|(name, value)| named_parameter(name.as_str(), value.as_str()))
            .collect(),
    };
    (!parameters.is_empty()).then(|| json!({ "type": "body", "parameters": parameters }))
}

/// One card of a carousel: `{card_index, components: [header, body?, buttons…]}`.
fn card_object(index: usize, card: &CardValues, media: &NetworkMediaIds) -> Result<Value, NetworkError> {
    let mut components = Vec::new();
    let kind = card.header.kind.as_str();
    let mut parameter = Map::new();
    parameter.insert("type".into(), Value::from(kind));
    parameter.insert(kind.into(), Value::Object(media_object(&card.header, media)?));
    components.push(json!({ "type": "header", "parameters": [parameter] }));
    if let Some(body) = body_component(&card.body) {
        components.push(body);
    }
    components.extend(card.buttons.iter().filter_map(button_component));
    Ok(json!({ "card_index": index, "components": components }))
}

/// A button component, or `None` when the button takes nothing at send time.
fn button_component(button: &ButtonValue) -> Option<Value> {
    let value = button.values.first().map(|v| v.as_str());
    let parameter = match button.kind {
        ButtonKind::Url => text_parameter(value?),
        ButtonKind::QuickReply => json!({ "type": "payload", "payload": value? }),
        ButtonKind::CopyCode => json!({ "type": "coupon_code", "coupon_code": value? }),
        ButtonKind::Flow => {
            let mut action = Map::new();
            if let Some(token) = value {
                action.insert("flow_token".into(), Value::from(token));
            }
            // The data was checked to be a JSON object when the message was accepted.
            if let Some(data) = button
                .flow_action_data
                .as_deref()
                .and_then(|data| serde_json::from_str::<Value>(data).ok())
            {
                action.insert("flow_action_data".into(), data);
            }
            if action.is_empty() {
                return None;
            }
            json!({ "type": "action", "action": action })
        }
        ButtonKind::Static => return None,
    };
    Some(json!({
        "type": "button",
        "sub_type": button.kind.sub_type(),
        // Meta's own examples send the index as a string; integers are only reported to work.
        "index": button.index.to_string(),
        "parameters": [parameter],
    }))
}
