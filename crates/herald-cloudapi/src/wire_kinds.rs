//! The Cloud API objects of the message kinds beside text, files and templates (docs/cloud-api.md §1.4):
//! `interactive`, `location`, `contacts`, `reaction`, and the `context` of a reply. Each function gives the
//! object that goes under the send body's `type` key, in Meta's exact shape.

use herald_domain::content::{CardAddress, CardEntry, ContactCard, Field, Location};
use herald_domain::interactive::{FlowAction, FlowRef, Interactive, InteractiveAction, InteractiveHeader};
use herald_domain::ports::{NetworkError, NetworkMediaIds};
use serde_json::{Map, Value, json};

use crate::wire_media::media_object;

/// Meta's `interactive` object; stored header files go by their network media id.
///
/// # Errors
/// [`NetworkError::Permanent`] (`media_unavailable`) when a header file was not uploaded for this sender.
pub(crate) fn interactive(message: &Interactive, media: &NetworkMediaIds) -> Result<Value, NetworkError> {
    let mut object = Map::new();
    object.insert("type".into(), Value::from(message.action.wire_type()));
    match &message.header {
        Some(InteractiveHeader::Text(text)) => {
            object.insert("header".into(), json!({ "type": "text", "text": text.as_str() }));
        }
        Some(InteractiveHeader::Media(attachment)) => {
            let kind = attachment.kind.as_str();
            let mut header = Map::new();
            header.insert("type".into(), Value::from(kind));
            header.insert(kind.into(), Value::Object(media_object(attachment, media)?));
            object.insert("header".into(), Value::Object(header));
        }
        None => {}
    }
    if let Some(body) = &message.body {
        object.insert("body".into(), json!({ "text": body.as_str() }));
    }
    if let Some(footer) = &message.footer {
        object.insert("footer".into(), json!({ "text": footer.as_str() }));
    }
    object.insert("action".into(), action(&message.action));
    Ok(Value::Object(object))
}

fn action(action: &InteractiveAction) -> Value {
    match action {
        InteractiveAction::Buttons(buttons) => json!({
            "buttons": buttons
                .iter()
                .map(|b| json!({ "type": "reply", "reply": { "id": b.id.as_str(), "title": b.title.as_str() } }))
                .collect::<Vec<_>>()
        }),
        InteractiveAction::List { button, sections } => json!({
            "button": button.as_str(),
            "sections": sections
                .iter()
                .map(|section| {
                    let rows: Vec<Value> = section
                        .rows
                        .iter()
                        .map(|row| {
                            let mut object = Map::new();
                            object.insert("id".into(), Value::from(row.id.as_str()));
                            object.insert("title".into(), Value::from(row.title.as_str()));
                            if let Some(description) = &row.description {
                                object.insert("description".into(), Value::from(description.as_str()));
                            }
                            Value::Object(object)
                        })
                        .collect();
                    match &section.title {
                        Some(title) => json!({ "title": title.as_str(), "rows": rows }),
                        None => json!({ "rows": rows }),
                    }
                })
                .collect::<Vec<_>>()
        }),
        InteractiveAction::CtaUrl { display_text, url } => json!({
            "name": "cta_url",
            "parameters": { "display_text": display_text.as_str(), "url": url.as_str() }
        }),
        InteractiveAction::LocationRequest => json!({ "name": "send_location" }),
        InteractiveAction::Flow(flow) => {
            let mut parameters = Map::new();
            parameters.insert("flow_message_version".into(), Value::from("3"));
            match &flow.flow {
                FlowRef::Id(id) => parameters.insert("flow_id".into(), Value::from(id.as_str())),
                FlowRef::Name(name) => parameters.insert("flow_name".into(), Value::from(name.as_str())),
            };
            parameters.insert("flow_cta".into(), Value::from(flow.cta.as_str()));
            if let Some(token) = &flow.token {
                parameters.insert("flow_token".into(), Value::from(token.as_str()));
            }
            if flow.draft {
                parameters.insert("mode".into(), Value::from("draft"));
            }
            match &flow.action {
                FlowAction::Navigate { screen, data } => {
                    parameters.insert("flow_action".into(), Value::from("navigate"));
                    let mut payload = Map::new();
                    payload.insert("screen".into(), Value::from(screen.as_str()));
                    // The data was checked to be a JSON object when the message was accepted.
                    if let Some(data) = data
                        .as_deref()
                        .and_then(|d| serde_json::from_str::<Value>(d).ok())
                    {
                        payload.insert("data".into(), data);
                    }
                    parameters.insert("flow_action_payload".into(), Value::Object(payload));
                }
                FlowAction::DataExchange => {
                    parameters.insert("flow_action".into(), Value::from("data_exchange"));
                }
            }
            json!({ "name": "flow", "parameters": parameters })
        }
    }
}

fn put(object: &mut Map<String, Value>, key: &str, value: Option<&Field>) {
    if let Some(value) = value {
        object.insert(key.into(), Value::from(value.as_str()));
    }
}

/// Meta's `location` object. Coordinates go out as numbers, as Meta's examples send them.
pub(crate) fn location(location: &Location) -> Value {
    let mut object = Map::new();
    object.insert("latitude".into(), json!(location.latitude.value()));
    object.insert("longitude".into(), json!(location.longitude.value()));
    put(&mut object, "name", location.name.as_ref());
    put(&mut object, "address", location.address.as_ref());
    Value::Object(object)
}

fn entries(entries: &[CardEntry], key: &str) -> Value {
    entries
        .iter()
        .map(|entry| {
            let mut object = Map::new();
            object.insert(key.into(), Value::from(entry.value.as_str()));
            put(&mut object, "type", entry.label.as_ref());
            Value::Object(object)
        })
        .collect()
}

fn address(address: &CardAddress) -> Value {
    let mut object = Map::new();
    put(&mut object, "street", address.street.as_ref());
    put(&mut object, "city", address.city.as_ref());
    put(&mut object, "state", address.state.as_ref());
    put(&mut object, "zip", address.zip.as_ref());
    put(&mut object, "country", address.country.as_ref());
    put(&mut object, "country_code", address.country_code.as_ref());
    put(&mut object, "type", address.label.as_ref());
    Value::Object(object)
}

/// Meta's `contacts` array; empty lists are left out, as in Meta's examples.
pub(crate) fn contacts(cards: &[ContactCard]) -> Value {
    cards
        .iter()
        .map(|card| {
            let mut object = Map::new();
            let mut name = Map::new();
            put(&mut name, "formatted_name", card.name.formatted_name.as_ref());
            put(&mut name, "first_name", card.name.first_name.as_ref());
            put(&mut name, "last_name", card.name.last_name.as_ref());
            put(&mut name, "middle_name", card.name.middle_name.as_ref());
            put(&mut name, "prefix", card.name.prefix.as_ref());
            put(&mut name, "suffix", card.name.suffix.as_ref());
            object.insert("name".into(), Value::Object(name));
            for (key, list, value_key) in [
                ("phones", &card.phones, "phone"),
                ("emails", &card.emails, "email"),
                ("urls", &card.urls, "url"),
            ] {
                if !list.is_empty() {
                    object.insert(key.into(), entries(list, value_key));
                }
            }
            if !card.addresses.is_empty() {
                object.insert("addresses".into(), card.addresses.iter().map(address).collect());
            }
            if let Some(org) = &card.org {
                let mut value = Map::new();
                put(&mut value, "company", org.company.as_ref());
                put(&mut value, "department", org.department.as_ref());
                put(&mut value, "title", org.title.as_ref());
                object.insert("org".into(), Value::Object(value));
            }
            put(&mut object, "birthday", card.birthday.as_ref());
            Value::Object(object)
        })
        .collect()
}

/// Meta's `reaction` object: the network id of the message reacted to, and the emoji ("" removes it).
pub(crate) fn reaction(network_message_id: &str, emoji: &str) -> Value {
    json!({ "message_id": network_message_id, "emoji": emoji })
}

/// Meta's `context` of a reply: the network id of the message replied to.
pub(crate) fn context(network_message_id: &str) -> Value {
    json!({ "message_id": network_message_id })
}

#[cfg(test)]
mod tests;
