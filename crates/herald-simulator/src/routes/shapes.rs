//! The message object of a send, checked against Meta's request shapes and limits (docs/cloud-api.md §1).
//!
//! Every refusal is Meta's code 100 (`(#100) Invalid parameter`), HTTP 400, with the offending field named
//! in `error_data.details` the way Graph names it (`interactive['action']['buttons']`).

use serde_json::{Map, Value};

use super::fields::{bad, check_media_ref, optional_text, required_object, required_text};
use super::interactive;
use crate::error::GraphError;

/// Message types and whether their object is a JSON array (only `contacts`) rather than an object.
const TYPES: [(&str, bool); 11] = [
    ("text", false),
    ("image", false),
    ("video", false),
    ("audio", false),
    ("document", false),
    ("sticker", false),
    ("location", false),
    ("contacts", true),
    ("interactive", false),
    ("template", false),
    ("reaction", false),
];

/// Meta's cap on a text message's body and on a media caption.
const TEXT_BODY_MAX: usize = 4096;
const CAPTION_MAX: usize = 1024;
/// One emoji can be several code points (skin tones, ZWJ families, flags); more than this is not one.
const REACTION_EMOJI_MAX: usize = 16;

/// `type` must name a known kind whose object is present and well formed.
pub(crate) fn check_object(kind: &str, fields: &Map<String, Value>) -> Result<(), GraphError> {
    let is_array = TYPES
        .iter()
        .find(|(name, _)| *name == kind)
        .map(|(_, is_array)| *is_array)
        .ok_or_else(|| bad(format!("Unsupported message type: {kind}")))?;
    let object = fields
        .get(kind)
        .ok_or_else(|| bad(format!("Param {kind} is required for a message of type {kind}")))?;
    if is_array {
        return check_contacts(object);
    }
    let object = object
        .as_object()
        .ok_or_else(|| bad(format!("Param {kind} must be an object")))?;
    match kind {
        "text" => match object.get("body").and_then(Value::as_str) {
            Some(body) if !body.is_empty() && body.chars().count() <= TEXT_BODY_MAX => Ok(()),
            _ => Err(bad(format!(
                "Param text['body'] is required and must be 1 to {TEXT_BODY_MAX} characters"
            ))),
        },
        // Meta lists neither a caption nor a filename for audio and stickers (docs/cloud-api.md §1.2). Its
        // answer to one is not documented; the simulator refuses it, so a client that sends one shows up.
        "audio" | "sticker" => {
            check_media_ref(object, kind)?;
            match ["caption", "filename"]
                .into_iter()
                .find(|name| object.contains_key(*name))
            {
                Some(name) => Err(bad(format!(
                    "Param {kind}['{name}'] is not a parameter of a {kind} message"
                ))),
                None => Ok(()),
            }
        }
        "image" | "video" | "document" => {
            check_media_ref(object, kind)?;
            match object.get("caption").and_then(Value::as_str) {
                Some(caption) if caption.chars().count() > CAPTION_MAX => Err(bad(format!(
                    "Param {kind}['caption'] must be at most {CAPTION_MAX} characters"
                ))),
                _ => Ok(()),
            }
        }
        "location" => check_location(object),
        "interactive" => interactive::check(object),
        "reaction" => check_reaction(object),
        _ => Ok(()),
    }
}

fn check_location(object: &Map<String, Value>) -> Result<(), GraphError> {
    let coordinate = |name: &str, limit: f64| {
        object
            .get(name)
            .and_then(Value::as_f64)
            .filter(|v| v.abs() <= limit)
    };
    if coordinate("latitude", 90.0).is_none() || coordinate("longitude", 180.0).is_none() {
        return Err(bad(
            "Params location['latitude'] and location['longitude'] are required numbers in range",
        ));
    }
    optional_text(object, "name", "location['name']", 1000)?;
    optional_text(object, "address", "location['address']", 1000)?;
    Ok(())
}

/// Each contact needs `name.formatted_name`; Meta's only required field of a contact card.
fn check_contacts(object: &Value) -> Result<(), GraphError> {
    let items = match object.as_array() {
        Some(items) if !items.is_empty() => items,
        _ => return Err(bad("Param contacts must be a non-empty array")),
    };
    for (i, contact) in items.iter().enumerate() {
        let contact = contact
            .as_object()
            .ok_or_else(|| bad(format!("Param contacts[{i}] must be an object")))?;
        let name = required_object(contact, "name", &format!("contacts[{i}]['name']"))?;
        required_text(
            name,
            "formatted_name",
            &format!("contacts[{i}]['name']['formatted_name']"),
            usize::MAX,
        )?;
        if let Some(phones) = contact.get("phones")
            && !phones.is_array()
        {
            return Err(bad(format!("Param contacts[{i}]['phones'] must be an array")));
        }
    }
    Ok(())
}

/// `message_id` names the message reacted to; an empty `emoji` removes the reaction.
fn check_reaction(object: &Map<String, Value>) -> Result<(), GraphError> {
    required_text(object, "message_id", "reaction['message_id']", usize::MAX)?;
    match object.get("emoji") {
        Some(Value::String(emoji)) if emoji.chars().count() <= REACTION_EMOJI_MAX => Ok(()),
        Some(Value::String(_)) => Err(bad("Param reaction['emoji'] must be a single emoji")),
        Some(_) => Err(bad("Param reaction['emoji'] must be a string")),
        None => Err(bad("The parameter reaction['emoji'] is required")),
    }
}

/// The wamid a send replies to (`context.message_id`), if it has a context.
pub(crate) fn context_message_id(fields: &Map<String, Value>) -> Result<Option<&str>, GraphError> {
    match fields.get("context") {
        None => Ok(None),
        Some(Value::Object(context)) => {
            required_text(context, "message_id", "context['message_id']", usize::MAX).map(Some)
        }
        Some(_) => Err(bad("Param context must be an object")),
    }
}
