//! A template definition in the shape of Meta's `message_templates` body (docs/cloud-api.md §3): what
//! submitting and editing a template send. Sample files stored in Herald go by the upload handle the network
//! gave them just before.

use crate::wire_media::media_unavailable;
use herald_domain::attachment::MediaKind;
use herald_domain::ports::{NetworkError, SampleHandles};
use herald_domain::template::definition::{
    BodyDefinition, ButtonDefinition, Card, Component, ExampleText, Examples, FlowTarget, FooterDefinition,
    HeaderDefinition, MediaSample, ParameterFormat, TemplateDefinition,
};
use serde_json::{Map, Value, json};

/// The body of `POST /{waba-id}/message_templates`.
///
/// # Errors
/// [`NetworkError::Permanent`] (`media_unavailable`) when a sample stored in Herald has no handle.
pub(crate) fn submit_body(
    definition: &TemplateDefinition,
    samples: &SampleHandles,
) -> Result<Value, NetworkError> {
    let mut body = Map::new();
    body.insert("name".into(), Value::from(definition.name.as_str()));
    body.insert("language".into(), Value::from(definition.language.as_str()));
    body.insert("category".into(), Value::from(definition.category.as_str()));
    if definition.parameter_format == ParameterFormat::Named {
        body.insert("parameter_format".into(), Value::from("NAMED"));
    }
    if definition.allow_category_change {
        body.insert("allow_category_change".into(), Value::Bool(true));
    }
    body.insert("components".into(), components(definition, samples)?);
    Ok(Value::Object(body))
}

/// The body of `POST /{template-id}`: an edit replaces the components and may change the category.
///
/// # Errors
/// As [`submit_body`].
pub(crate) fn edit_body(
    definition: &TemplateDefinition,
    samples: &SampleHandles,
) -> Result<Value, NetworkError> {
    Ok(json!({
        "category": definition.category.as_str(),
        "components": components(definition, samples)?,
    }))
}

fn components(definition: &TemplateDefinition, samples: &SampleHandles) -> Result<Value, NetworkError> {
    let mut out = Vec::new();
    for component in &definition.components {
        out.push(match component {
            Component::Header(header) => header_object(header, samples)?,
            Component::Body(BodyDefinition::Text(text)) => text_object("BODY", text, "body_text"),
            Component::Body(BodyDefinition::Authentication {
                add_security_recommendation,
            }) => json!({ "type": "BODY", "add_security_recommendation": add_security_recommendation }),
            Component::Footer(FooterDefinition::Text(text)) => json!({ "type": "FOOTER", "text": text }),
            Component::Footer(FooterDefinition::CodeExpiration(minutes)) => {
                json!({ "type": "FOOTER", "code_expiration_minutes": minutes })
            }
            Component::Buttons(buttons) => buttons_object(buttons),
            Component::Carousel(cards) => json!({
                "type": "CAROUSEL",
                "cards": cards.iter().map(|card| card_object(card, samples)).collect::<Result<Vec<_>, _>>()?,
            }),
            Component::LimitedTimeOffer { text, has_expiration } => json!({
                "type": "LIMITED_TIME_OFFER",
                "limited_time_offer": { "text": text, "has_expiration": has_expiration },
            }),
        });
    }
    Ok(Value::Array(out))
}

fn header_object(header: &HeaderDefinition, samples: &SampleHandles) -> Result<Value, NetworkError> {
    Ok(match header {
        HeaderDefinition::Text(text) => {
            let mut object = text_object("HEADER", text, "header_text");
            if let Value::Object(map) = &mut object {
                map.insert("format".into(), Value::from("TEXT"));
            }
            object
        }
        HeaderDefinition::Media { kind, sample } => media_header(*kind, sample, samples)?,
        HeaderDefinition::Location => json!({ "type": "HEADER", "format": "LOCATION" }),
    })
}

fn media_header(
    kind: MediaKind,
    sample: &MediaSample,
    samples: &SampleHandles,
) -> Result<Value, NetworkError> {
    let handle = match sample {
        MediaSample::Handle(handle) => handle.clone(),
        MediaSample::Upload(id) => samples.get(id).cloned().ok_or_else(|| {
            media_unavailable(format!("sample {id} was not uploaded to the network for review"))
        })?,
    };
    Ok(json!({
        "type": "HEADER",
        "format": kind.as_str().to_ascii_uppercase(),
        "example": { "header_handle": [handle] },
    }))
}

/// `{type, text, example?}` with the examples under `<key>` or `<key>_named_params`.
fn text_object(kind: &str, text: &ExampleText, key: &str) -> Value {
    let mut object = Map::new();
    object.insert("type".into(), Value::from(kind));
    object.insert("text".into(), Value::from(text.text.as_str()));
    match &text.examples {
        Examples::None => {}
        Examples::Positional(values) => {
            // A body's examples are one row of values; a header's, a flat list.
            let values = if key == "body_text" {
                json!([values])
            } else {
                json!(values)
            };
            object.insert("example".into(), json!({ key: values }));
        }
        Examples::Named(pairs) => {
            let params: Vec<Value> = pairs
                .iter()
                .map(|(name, example)| json!({ "param_name": name.as_str(), "example": example }))
                .collect();
            object.insert("example".into(), json!({ format!("{key}_named_params"): params }));
        }
    }
    Value::Object(object)
}

fn buttons_object(buttons: &[ButtonDefinition]) -> Value {
    json!({ "type": "BUTTONS", "buttons": buttons.iter().map(button_object).collect::<Vec<_>>() })
}

fn button_object(button: &ButtonDefinition) -> Value {
    let mut object = Map::new();
    object.insert("type".into(), Value::from(button.wire_type()));
    let mut put = |key: &str, value: Value| {
        object.insert(key.into(), value);
    };
    match button {
        ButtonDefinition::QuickReply { text } | ButtonDefinition::VoiceCall { text } => {
            put("text", json!(text))
        }
        ButtonDefinition::Url { text, url, example } => {
            put("text", json!(text));
            put("url", json!(url));
            if let Some(example) = example {
                put("example", json!([example]));
            }
        }
        ButtonDefinition::PhoneNumber { text, phone_number } => {
            put("text", json!(text));
            put("phone_number", json!(phone_number));
        }
        ButtonDefinition::CopyCode { example } => put("example", json!(example)),
        ButtonDefinition::Otp {
            kind,
            text,
            autofill_text,
            apps,
            zero_tap_terms_accepted,
        } => {
            put("otp_type", json!(kind.as_str()));
            if let Some(text) = text {
                put("text", json!(text));
            }
            if let Some(autofill) = autofill_text {
                put("autofill_text", json!(autofill));
            }
            if !apps.is_empty() {
                let apps: Vec<Value> = apps
                    .iter()
                    .map(|a| json!({ "package_name": a.package_name, "signature_hash": a.signature_hash }))
                    .collect();
                put("supported_apps", Value::Array(apps));
            }
            if *zero_tap_terms_accepted {
                put("zero_tap_terms_accepted", Value::Bool(true));
            }
        }
        ButtonDefinition::Flow {
            text,
            flow,
            action,
            navigate_screen,
        } => {
            put("text", json!(text));
            match flow {
                FlowTarget::Id(id) => put("flow_id", json!(id)),
                FlowTarget::Name(name) => put("flow_name", json!(name)),
            }
            if let Some(action) = action {
                put("flow_action", json!(action));
            }
            if let Some(screen) = navigate_screen {
                put("navigate_screen", json!(screen));
            }
        }
    }
    Value::Object(object)
}

fn card_object(card: &Card, samples: &SampleHandles) -> Result<Value, NetworkError> {
    let (kind, sample) = &card.header;
    Ok(json!({ "components": [
        media_header(*kind, sample, samples)?,
        text_object("BODY", &card.body, "body_text"),
        buttons_object(&card.buttons),
    ] }))
}

#[cfg(test)]
mod tests;
