//! The send request body of the Cloud API (docs/cloud-api.md §1), built from a domain [`Message`].

use herald_domain::contact::Recipient;
use herald_domain::message::{Message, MessageContent, MessageError};
use herald_domain::ports::{NetworkError, NetworkMediaIds};
use serde_json::{Map, Value, json};

use crate::wire_kinds;
use crate::wire_media::media_object;
use crate::wire_template::components;

/// The JSON body of `POST /{v}/{phone_number_id}/messages` for `message`.
///
/// Files stored in Herald go by the network ids in `media` (docs/cloud-api.md §1.2: `id` or `link`, never both).
///
/// # Errors
/// [`NetworkError::Permanent`] with code `media_unavailable` when the message names a stored file that
/// `media` does not map, or a file of the request itself ([`MediaSource::Upload`], which must have become a
/// stored file long before dispatch).
pub(crate) fn send_body(message: &Message, media: &NetworkMediaIds) -> Result<Value, NetworkError> {
    if let (MessageContent::Erased(_), _) | (_, Recipient::Erased(_)) = (&message.content, &message.to) {
        return Err(erased());
    }
    let (kind, object) = match &message.content {
        MessageContent::Text { body, preview_url } => (
            "text",
            json!({ "preview_url": preview_url, "body": body.as_str() }),
        ),
        MessageContent::Media {
            media: attachment,
            caption,
        } => {
            let mut object = media_object(attachment, media)?;
            // Audio and stickers take no caption on the network (docs/cloud-api.md §1.2); the domain
            // refuses one, and the wire never carries one either.
            if let Some(caption) = caption
                && attachment.kind.takes_caption()
            {
                object.insert("caption".into(), Value::from(caption.as_str()));
            }
            (attachment.kind.as_str(), Value::Object(object))
        }
        MessageContent::Template { template, variables } => {
            let mut object = Map::new();
            object.insert("name".into(), Value::from(template.name.as_str()));
            object.insert("language".into(), json!({ "code": template.language.as_str() }));
            let components = components(variables, media)?;
            // The network wants only the parts that carry parameters; an empty list is left out entirely.
            if !components.is_empty() {
                object.insert("components".into(), Value::Array(components));
            }
            ("template", Value::Object(object))
        }
        MessageContent::Interactive(interactive) => {
            ("interactive", wire_kinds::interactive(interactive, media)?)
        }
        MessageContent::Reaction(reaction) => {
            let network_id = target_network_id(reaction.target.network_message_id.as_deref())?;
            (
                "reaction",
                wire_kinds::reaction(network_id, reaction.emoji.as_str()),
            )
        }
        MessageContent::Location(location) => ("location", wire_kinds::location(location)),
        MessageContent::Contacts(cards) => ("contacts", wire_kinds::contacts(cards)),
        MessageContent::Erased(_) => return Err(erased()),
    };
    let mut body = Map::new();
    body.insert("messaging_product".into(), Value::from("whatsapp"));
    body.insert("recipient_type".into(), Value::from("individual"));
    // A business-scoped user id goes in `recipient`, with no `to` (docs/cloud-api.md §1: `to` would win).
    match &message.to {
        Recipient::Number(number) => body.insert("to".into(), Value::from(number.as_str())),
        Recipient::User(id) => body.insert("recipient".into(), Value::from(id.as_str())),
        Recipient::Erased(_) => return Err(erased()),
    };
    body.insert("type".into(), Value::from(kind));
    body.insert(kind.into(), object);
    if let Some(reply_to) = &message.reply_to {
        let network_id = target_network_id(reply_to.network_message_id.as_deref())?;
        body.insert("context".into(), wire_kinds::context(network_id));
    }
    body.insert(
        "biz_opaque_callback_data".into(),
        Value::from(message.id.to_string()),
    );
    Ok(Value::Object(body))
}

/// A read receipt for an inbound message (docs/cloud-api.md: "Mark messages as read"), with the typing
/// indicator when asked: `POST /{phone_number_id}/messages`.
pub(crate) fn read_body(network_message_id: &str, typing: bool) -> Value {
    let mut body = json!({
        "messaging_product": "whatsapp",
        "status": "read",
        "message_id": network_message_id,
    });
    if typing && let Some(fields) = body.as_object_mut() {
        fields.insert("typing_indicator".to_owned(), json!({ "type": "text" }));
    }
    body
}

/// A message whose person was erased while it was being sent (or retried): nothing is left to send.
fn erased() -> NetworkError {
    NetworkError::Permanent(MessageError {
        code: "recipient_erased".into(),
        title: "The recipient was erased".into(),
        detail: "the person this message was for was erased (docs/api.md §7.2); nothing was sent".into(),
        network_code: None,
    })
}

/// The network id of a reply's or a reaction's target, filled in when the message was accepted.
fn target_network_id(network_id: Option<&str>) -> Result<&str, NetworkError> {
    network_id.ok_or_else(|| {
        NetworkError::Permanent(MessageError {
            code: "target_unavailable".into(),
            title: "The message replied or reacted to has no network id".into(),
            detail: "the target's network id was not recorded when the message was accepted".into(),
            network_code: None,
        })
    })
}
