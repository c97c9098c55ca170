//! The inbound kinds of `POST /simulator/control/inbound` besides text and files, and the `context` and
//! `referral` any inbound message may carry, built into Meta's webhook shapes (docs/cloud-api.md §4.3).

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::state::{Direction, Known};

/// The optional parts of a control inbound call; each content field is one message kind.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Extras {
    /// `{latitude, longitude, name?, address?, url?}`.
    location: Option<Value>,
    /// Contact cards as Meta sends them, each with `name.formatted_name`.
    contacts: Option<Value>,
    /// The tap on a reply button: `{id, title}` (needs `context`).
    button_reply: Option<Value>,
    /// The choice of a list row: `{id, title, description?}` (needs `context`).
    list_reply: Option<Value>,
    /// The tap on a template's quick-reply button: `{payload, text}` (needs `context`).
    button: Option<Value>,
    /// `{message_id, emoji}`; an empty emoji removes the reaction.
    reaction: Option<Value>,
    /// A Flow's answer: `{response_json, body?, name?}` (needs `context`); `response_json` may be an
    /// object, sent as the JSON string Meta sends.
    nfm_reply: Option<Value>,
    /// A message WhatsApp could not pass on: `{}` or `{"type": "edit"}`.
    unsupported: Option<Value>,
    /// `{"message_id": wamid}` for a reply, or `{"forwarded": true}` / `{"frequently_forwarded": true}`.
    context: Option<Value>,
    /// A click-to-WhatsApp ad or post the message came from.
    referral: Option<Value>,
}

/// The error of a message type WhatsApp does not pass on (docs/cloud-api.md §4.3).
fn unsupported_errors() -> Value {
    json!([{
        "code": 131051,
        "title": "Message type unknown",
        "message": "Message type unknown",
        "error_data": { "details": "Message type is currently not supported." },
    }])
}

type Fields = Map<String, Value>;

fn object<'a>(value: &'a Value, name: &str) -> Result<&'a Fields, String> {
    value
        .as_object()
        .ok_or_else(|| format!("{name} must be an object"))
}

fn text<'a>(object: &'a Fields, name: &str, path: &str) -> Result<&'a str, String> {
    match object.get(name).and_then(Value::as_str) {
        Some(text) if !text.is_empty() => Ok(text),
        _ => Err(format!("{path}.{name} must be a non-empty string")),
    }
}

/// Copies the string fields `names` of `from` that are present (and strings) into a new object.
fn pick(from: &Fields, names: &[&str]) -> Fields {
    names
        .iter()
        .filter_map(|name| {
            from.get(*name)
                .filter(|v| v.is_string())
                .map(|v| ((*name).to_owned(), v.clone()))
        })
        .collect()
}

impl Extras {
    /// How many content kinds the call gives (text and file are counted by the caller).
    pub(crate) fn contents(&self) -> usize {
        [
            &self.location,
            &self.contacts,
            &self.button_reply,
            &self.list_reply,
            &self.button,
            &self.reaction,
            &self.nfm_reply,
            &self.unsupported,
        ]
        .iter()
        .filter(|v| v.is_some())
        .count()
    }

    /// The message type and its fields for the content kind given, if it is one of these; `known`
    /// looks a wamid up among this business number's messages.
    pub(crate) fn content(
        &self,
        from: &str,
        known: &dyn Fn(&str) -> Option<Known>,
    ) -> Result<Option<(&'static str, Fields)>, String> {
        let mut fields = Fields::new();
        let kind = if let Some(location) = &self.location {
            let location = object(location, "location")?;
            let coordinate = |name: &str, limit: f64| {
                location
                    .get(name)
                    .and_then(Value::as_f64)
                    .filter(|v| v.abs() <= limit)
            };
            let (Some(latitude), Some(longitude)) =
                (coordinate("latitude", 90.0), coordinate("longitude", 180.0))
            else {
                return Err("location.latitude and location.longitude must be numbers in range".to_owned());
            };
            let mut value = pick(location, &["name", "address", "url"]);
            value.insert("latitude".to_owned(), json!(latitude));
            value.insert("longitude".to_owned(), json!(longitude));
            fields.insert("location".to_owned(), Value::Object(value));
            "location"
        } else if let Some(contacts) = &self.contacts {
            let cards = contacts
                .as_array()
                .filter(|cards| !cards.is_empty())
                .ok_or("contacts must be a non-empty array")?;
            for (i, card) in cards.iter().enumerate() {
                let name = card.get("name").and_then(Value::as_object);
                if name
                    .and_then(|n| n.get("formatted_name"))
                    .and_then(Value::as_str)
                    .is_none()
                {
                    return Err(format!("contacts[{i}].name.formatted_name is required"));
                }
            }
            fields.insert("contacts".to_owned(), contacts.clone());
            "contacts"
        } else if let Some(reply) = &self.button_reply {
            let reply = object(reply, "button_reply")?;
            text(reply, "id", "button_reply")?;
            text(reply, "title", "button_reply")?;
            let reply = pick(reply, &["id", "title"]);
            fields.insert(
                "interactive".to_owned(),
                json!({ "type": "button_reply", "button_reply": reply }),
            );
            "interactive"
        } else if let Some(reply) = &self.list_reply {
            let reply = object(reply, "list_reply")?;
            text(reply, "id", "list_reply")?;
            text(reply, "title", "list_reply")?;
            let reply = pick(reply, &["id", "title", "description"]);
            fields.insert(
                "interactive".to_owned(),
                json!({ "type": "list_reply", "list_reply": reply }),
            );
            "interactive"
        } else if let Some(button) = &self.button {
            let button = object(button, "button")?;
            text(button, "payload", "button")?;
            text(button, "text", "button")?;
            fields.insert(
                "button".to_owned(),
                Value::Object(pick(button, &["payload", "text"])),
            );
            "button"
        } else if let Some(reaction) = &self.reaction {
            let reaction = object(reaction, "reaction")?;
            let message_id = text(reaction, "message_id", "reaction")?;
            let emoji = reaction
                .get("emoji")
                .and_then(Value::as_str)
                .ok_or("reaction.emoji must be a string (empty to remove the reaction)")?;
            if known(message_id).is_none_or(|k| k.wa_id != from) {
                return Err(format!(
                    "reaction.message_id {message_id} is not a message of this conversation"
                ));
            }
            fields.insert(
                "reaction".to_owned(),
                json!({ "message_id": message_id, "emoji": emoji }),
            );
            "reaction"
        } else if let Some(reply) = &self.nfm_reply {
            let reply = object(reply, "nfm_reply")?;
            // Meta sends the Flow's answer as a JSON document inside a string.
            let response_json = match reply.get("response_json") {
                Some(Value::String(text)) => text.clone(),
                Some(value @ Value::Object(_)) => value.to_string(),
                _ => return Err("nfm_reply.response_json must be an object or a JSON string".to_owned()),
            };
            let body = reply.get("body").and_then(Value::as_str).unwrap_or("Sent");
            let name = reply.get("name").and_then(Value::as_str).unwrap_or("flow");
            fields.insert(
                "interactive".to_owned(),
                json!({
                    "type": "nfm_reply",
                    "nfm_reply": { "name": name, "body": body, "response_json": response_json },
                }),
            );
            "interactive"
        } else if let Some(unsupported) = &self.unsupported {
            let unsupported = object(unsupported, "unsupported")?;
            if let Some(kind) = unsupported.get("type") {
                let kind = kind.as_str().ok_or("unsupported.type must be a string")?;
                fields.insert("unsupported".to_owned(), json!({ "type": kind }));
            }
            fields.insert("errors".to_owned(), unsupported_errors());
            "unsupported"
        } else {
            return Ok(None);
        };
        Ok(Some((kind, fields)))
    }

    /// Adds `context` and `referral` to a message's fields. A reply's `context.from` is the business number;
    /// replies to a button, list, template button or Flow must name a message the business sent.
    pub(crate) fn decorate(
        &self,
        fields: &mut Fields,
        from: &str,
        business_number: &str,
        known: &dyn Fn(&str) -> Option<Known>,
    ) -> Result<(), String> {
        let answers_business = self.button_reply.is_some()
            || self.list_reply.is_some()
            || self.button.is_some()
            || self.nfm_reply.is_some();
        let context = match &self.context {
            None if answers_business => {
                return Err("context.message_id is required: it names the message answered".to_owned());
            }
            None => None,
            Some(context) => {
                let context = object(context, "context")?;
                if let Some(message_id) = context.get("message_id") {
                    let message_id = message_id.as_str().ok_or("context.message_id must be a string")?;
                    let fits = known(message_id).is_some_and(|k| {
                        k.wa_id == from && (!answers_business || k.direction == Direction::Outbound)
                    });
                    if !fits {
                        return Err(format!(
                            "context.message_id {message_id} is not a message of this conversation{}",
                            if answers_business {
                                " sent by the business"
                            } else {
                                ""
                            }
                        ));
                    }
                    Some(json!({ "from": business_number, "id": message_id }))
                } else if answers_business {
                    return Err("context.message_id is required: it names the message answered".to_owned());
                } else {
                    let flag = ["forwarded", "frequently_forwarded"]
                        .into_iter()
                        .find(|flag| context.get(*flag) == Some(&Value::Bool(true)))
                        .ok_or("context needs message_id, forwarded: true or frequently_forwarded: true")?;
                    let mut forwarded = Fields::new();
                    forwarded.insert(flag.to_owned(), Value::Bool(true));
                    Some(Value::Object(forwarded))
                }
            }
        };
        if let Some(context) = context {
            fields.insert("context".to_owned(), context);
        }
        if let Some(referral) = &self.referral {
            let referral = object(referral, "referral")?;
            for name in ["source_url", "source_id", "source_type"] {
                text(referral, name, "referral")?;
            }
            let value = pick(
                referral,
                &[
                    "source_url",
                    "source_id",
                    "source_type",
                    "headline",
                    "body",
                    "media_type",
                    "image_url",
                    "video_url",
                    "thumbnail_url",
                    "ctwa_clid",
                ],
            );
            fields.insert("referral".to_owned(), Value::Object(value));
        }
        Ok(())
    }
}
