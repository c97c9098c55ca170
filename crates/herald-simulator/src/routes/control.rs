//! The control API: drive the simulated network from tests and demos (docs/api.md §13).

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use sha2::{Digest as _, Sha256};

use super::inbound::Extras;
use crate::callbacks::inbound_envelope;
use crate::simulator::Simulator;
use crate::state::{Direction, Media};
use crate::wire;

/// `POST /simulator/control/inbound` body: exactly one content kind — a text (`text`), a file (`media`) or
/// one of the kinds of [`Extras`] — plus, for any of them, an optional `context` and `referral`.
#[derive(Debug, Deserialize)]
pub(crate) struct Inbound {
    /// The user's number; absent for a user who hides it behind a username, who is then named by
    /// `user_id` alone (the envelope carries no `wa_id` and no `from`, as Meta's does for such users).
    from: Option<String>,
    to: String,
    text: Option<String>,
    media: Option<InboundMedia>,
    /// The sender's profile name; a fixed one when absent.
    name: Option<String>,
    /// The sender's business-scoped user id (`US.…`): sent as the contact's `user_id` and the message's
    /// `from_user_id`, as Meta's webhooks carry it; the user's window opens under it too, so the business
    /// can block them by it.
    user_id: Option<String>,
    /// The webhook field the message comes on: `messages` (the default), `standby` (another app, such as
    /// Meta's business agent, holds the conversation) or `smb_message_echoes` (docs/cloud-api.md §4.7).
    field: Option<String>,
    /// The business side's echo instead of the user's message: sent from the business number to `from`,
    /// under `message_echoes`; only on `standby` and `smb_message_echoes` (where it is the default).
    echo: Option<bool>,
    #[serde(flatten)]
    extras: Extras,
}

/// Where an inbound control call's message goes: its webhook field, and whether it is an echo.
struct Route {
    field: &'static str,
    echo: bool,
}

impl Route {
    fn of(field: Option<&str>, echo: Option<bool>) -> Result<Self, &'static str> {
        match (field.unwrap_or("messages"), echo) {
            ("messages", None | Some(false)) => Ok(Self {
                field: "messages",
                echo: false,
            }),
            ("messages", Some(true)) => Err("echoes come on standby or smb_message_echoes, not messages"),
            ("standby", echo) => Ok(Self {
                field: "standby",
                echo: echo.unwrap_or(false),
            }),
            ("smb_message_echoes", None | Some(true)) => Ok(Self {
                field: "smb_message_echoes",
                echo: true,
            }),
            ("smb_message_echoes", Some(false)) => Err("smb_message_echoes carries echoes only"),
            _ => Err("field must be messages, standby or smb_message_echoes"),
        }
    }

    /// Moves the envelope's message to its field; an echo goes under `message_echoes`, from the business
    /// number to the user, without the user's contact entry (Meta's echo envelope has none).
    fn apply(&self, envelope: &mut Value, business_digits: &str) {
        if let Some(Value::Object(change)) = envelope.pointer_mut("/entry/0/changes/0") {
            change.insert("field".to_owned(), json!(self.field));
        }
        if !self.echo {
            return;
        }
        let Some(value) = envelope
            .pointer_mut("/entry/0/changes/0/value")
            .and_then(Value::as_object_mut)
        else {
            return;
        };
        value.remove("contacts");
        let Some(mut messages) = value.remove("messages") else {
            return;
        };
        if let Some(Value::Object(message)) = messages.get_mut(0) {
            if let Some(user) = message.remove("from") {
                message.insert("to".to_owned(), user);
            }
            if let Some(user_id) = message.remove("from_user_id") {
                message.insert("to_user_id".to_owned(), user_id);
            }
            message.insert("from".to_owned(), json!(business_digits));
        }
        value.insert("message_echoes".to_owned(), messages);
    }
}

const ONE_CONTENT: &str = "give exactly one of text, media, location, contacts, button_reply, list_reply, \
                           button, reaction, nfm_reply and unsupported";

/// A file the simulated user sends; it is stored like an upload of the receiving number, so the business
/// can look it up and download it.
#[derive(Debug, Deserialize)]
pub(crate) struct InboundMedia {
    /// `image`, `video`, `document`, `audio` or `sticker`.
    #[serde(rename = "type")]
    kind: String,
    mime_type: String,
    data_base64: String,
    /// Image, video and document only.
    caption: Option<String>,
    /// Document only.
    filename: Option<String>,
    /// Audio only: a voice note (default false).
    voice: Option<bool>,
    /// Sticker only (default false).
    animated: Option<bool>,
}

fn problem(status: StatusCode, message: &str) -> HttpResponse {
    HttpResponse::build(status).json(json!({ "error": message }))
}

pub(crate) async fn inbound(simulator: web::Data<Simulator>, body: web::Json<Inbound>) -> HttpResponse {
    let body = body.into_inner();
    if body
        .user_id
        .as_deref()
        .is_some_and(|id| !super::block::is_user_id(id))
    {
        return problem(
            StatusCode::BAD_REQUEST,
            "user_id must be a business-scoped user id (US.…)",
        );
    }
    // Whom the simulator keys this user by: their number's digits, or their user id when they hide the
    // number.
    let (from, hidden) = match (body.from.as_deref(), body.user_id.as_deref()) {
        (Some(from), _) => match wire::wa_id(from) {
            Some(digits) => (digits, false),
            None => return problem(StatusCode::BAD_REQUEST, "from must be a phone number"),
        },
        (None, Some(user_id)) => (user_id.to_owned(), true),
        (None, None) => {
            return problem(
                StatusCode::BAD_REQUEST,
                "give from (a phone number), user_id, or both",
            );
        }
    };
    let Some(sender) = wire::wa_id(&body.to).and_then(|to| simulator.sender_by_number(&to)) else {
        return problem(
            StatusCode::NOT_FOUND,
            "to is not a business number of the simulator",
        );
    };
    let route = match Route::of(body.field.as_deref(), body.echo) {
        Ok(route) => route,
        Err(message) => return problem(StatusCode::BAD_REQUEST, message),
    };
    let given = usize::from(body.text.is_some()) + usize::from(body.media.is_some()) + body.extras.contents();
    if given != 1 {
        return problem(StatusCode::BAD_REQUEST, ONE_CONTENT);
    }
    let known = |wamid: &str| simulator.state().known(sender.phone_number_id, wamid).cloned();
    let mut media_id = None;
    let (kind, mut fields) = if let Some(text) = body.text {
        ("text", one_field("text", json!({ "body": text })))
    } else if let Some(media) = body.media {
        match media_object(media) {
            Ok((kind, mut object, stored)) => {
                let id = simulator.state().store_media(Media {
                    phone_number_id: sender.phone_number_id.to_owned(),
                    ..stored
                });
                object.insert("id".to_owned(), json!(id));
                media_id = Some(id);
                (kind, one_field(kind, Value::Object(object)))
            }
            Err(message) => return problem(StatusCode::BAD_REQUEST, &message),
        }
    } else {
        match body.extras.content(&from, &known) {
            Ok(Some(content)) => content,
            Ok(None) => return problem(StatusCode::BAD_REQUEST, ONE_CONTENT),
            Err(message) => return problem(StatusCode::BAD_REQUEST, &message),
        }
    };
    if let Err(message) = body.extras.decorate(&mut fields, &from, sender.digits(), &known) {
        return problem(StatusCode::BAD_REQUEST, &message);
    }
    let wamid = wire::wamid(&from);
    {
        let mut state = simulator.state();
        let now = chrono::Utc::now();
        // The business side's echo opens no window: the user wrote nothing.
        if !route.echo {
            state.open_window(sender.phone_number_id, &from, now);
        }
        if let Some(user_id) = body.user_id.as_deref().filter(|_| !hidden && !route.echo) {
            state.open_window(sender.phone_number_id, user_id, now);
            state.learn_user_id(sender.phone_number_id, &from, user_id);
        }
        state.remember(sender.phone_number_id, &wamid, Direction::Inbound, &from);
    }
    let mut envelope = inbound_envelope(
        sender.waba_id,
        sender.digits(),
        sender.phone_number_id,
        &from,
        body.name.as_deref().unwrap_or("Simulated Customer"),
        &wamid,
        kind,
        fields,
    );
    if let Some(user_id) = &body.user_id {
        with_user_id(&mut envelope, user_id);
    }
    if hidden {
        without_number(&mut envelope);
    }
    route.apply(&mut envelope, sender.digits());
    // Delivered before answering, so a caller knows the callback has reached its receiver.
    if !simulator.dispatcher.inbound(envelope).await {
        tracing::warn!(%wamid, "simulator: the inbound callback was not accepted");
    }
    match media_id {
        Some(media_id) => HttpResponse::Ok().json(json!({ "id": wamid, "media_id": media_id })),
        None => HttpResponse::Ok().json(json!({ "id": wamid })),
    }
}

/// Puts the user id where Meta's webhooks carry it: the contact's `user_id` and the message's
/// `from_user_id`.
fn with_user_id(envelope: &mut Value, user_id: &str) {
    let value = envelope
        .pointer_mut("/entry/0/changes/0/value")
        .and_then(Value::as_object_mut);
    if let Some(value) = value {
        if let Some(Value::Object(contact)) = value.get_mut("contacts").and_then(|c| c.get_mut(0)) {
            contact.insert("user_id".to_owned(), json!(user_id));
        }
        if let Some(Value::Object(message)) = value.get_mut("messages").and_then(|m| m.get_mut(0)) {
            message.insert("from_user_id".to_owned(), json!(user_id));
        }
    }
}

/// Takes the number out of an inbound envelope, as Meta's webhooks leave it out for a user who hides it:
/// the contact has no `wa_id` and the message no `from`.
fn without_number(envelope: &mut Value) {
    let value = envelope
        .pointer_mut("/entry/0/changes/0/value")
        .and_then(Value::as_object_mut);
    if let Some(value) = value {
        if let Some(Value::Object(contact)) = value.get_mut("contacts").and_then(|c| c.get_mut(0)) {
            contact.remove("wa_id");
        }
        if let Some(Value::Object(message)) = value.get_mut("messages").and_then(|m| m.get_mut(0)) {
            message.remove("from");
        }
    }
}

/// `POST /simulator/control/user-preferences` body: the user (`from`, a number, and/or `user_id`) stops or
/// resumes (`value`) marketing messages from the business number `to`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct UserPreferences {
    to: String,
    from: Option<String>,
    user_id: Option<String>,
    /// `stop` or `resume`.
    value: String,
}

/// Sends Meta's `user_preferences` webhook (docs/cloud-api.md §4.5) for one user, delivered before the
/// answer.
pub(crate) async fn user_preferences(
    simulator: web::Data<Simulator>,
    body: web::Json<UserPreferences>,
) -> HttpResponse {
    let body = body.into_inner();
    let Some(sender) = wire::wa_id(&body.to).and_then(|to| simulator.sender_by_number(&to)) else {
        return problem(
            StatusCode::NOT_FOUND,
            "to is not a business number of the simulator",
        );
    };
    let detail = match body.value.as_str() {
        "stop" => "User requested to stop marketing messages",
        "resume" => "User requested to resume marketing messages",
        _ => return problem(StatusCode::BAD_REQUEST, "value must be stop or resume"),
    };
    let from = match body.from.as_deref().map(wire::wa_id) {
        None => None,
        Some(Some(digits)) => Some(digits),
        Some(None) => return problem(StatusCode::BAD_REQUEST, "from must be a phone number"),
    };
    if body
        .user_id
        .as_deref()
        .is_some_and(|id| !super::block::is_user_id(id))
    {
        return problem(
            StatusCode::BAD_REQUEST,
            "user_id must be a business-scoped user id (US.…)",
        );
    }
    if from.is_none() && body.user_id.is_none() {
        return problem(StatusCode::BAD_REQUEST, "give from, user_id or both");
    }
    let mut item = json!({
        "detail": detail,
        "category": "marketing_messages",
        "value": body.value,
        "timestamp": chrono::Utc::now().timestamp(),
    });
    let mut contact = json!({});
    if let (Some(item), Some(contact)) = (item.as_object_mut(), contact.as_object_mut()) {
        if let Some(digits) = &from {
            item.insert("wa_id".to_owned(), json!(digits));
            contact.insert("wa_id".to_owned(), json!(digits));
        }
        if let Some(user_id) = &body.user_id {
            item.insert("user_id".to_owned(), json!(user_id));
            contact.insert("user_id".to_owned(), json!(user_id));
        }
    }
    let envelope = json!({
        "object": "whatsapp_business_account",
        "entry": [{
            "id": sender.waba_id,
            "changes": [{
                "field": "user_preferences",
                "value": {
                    "messaging_product": "whatsapp",
                    "metadata": {
                        "display_phone_number": sender.digits(),
                        "phone_number_id": sender.phone_number_id,
                    },
                    "contacts": [contact],
                    "user_preferences": [item],
                },
            }],
        }],
    });
    let delivered = simulator.dispatcher.inbound(envelope.clone()).await;
    if !delivered {
        tracing::warn!("simulator: the user_preferences callback was not accepted");
    }
    HttpResponse::Ok().json(json!({ "delivered": delivered, "envelope": envelope }))
}

/// Checks an inbound file and builds its webhook object (without the id, given once stored) in the shape
/// of Meta's webhooks (docs/cloud-api.md §4.3): `sha256` is base64 there, as in real payloads.
fn one_field(name: &str, value: Value) -> Map<String, Value> {
    let mut fields = Map::new();
    fields.insert(name.to_owned(), value);
    fields
}

fn media_object(media: InboundMedia) -> Result<(&'static str, Map<String, Value>, Media), String> {
    let kind = match media.kind.as_str() {
        "image" => "image",
        "video" => "video",
        "document" => "document",
        "audio" => "audio",
        "sticker" => "sticker",
        _ => return Err("media.type must be image, video, document, audio or sticker".to_owned()),
    };
    if media.caption.is_some() && !matches!(kind, "image" | "video" | "document") {
        return Err("media.caption is only for image, video and document".to_owned());
    }
    if media.filename.is_some() && kind != "document" {
        return Err("media.filename is only for document".to_owned());
    }
    if media.voice.is_some() && kind != "audio" {
        return Err("media.voice is only for audio".to_owned());
    }
    if media.animated.is_some() && kind != "sticker" {
        return Err("media.animated is only for sticker".to_owned());
    }
    let mime_type = media.mime_type.trim().to_owned();
    if mime_type.is_empty() {
        return Err("media.mime_type is required".to_owned());
    }
    let bytes = STANDARD
        .decode(media.data_base64.as_bytes())
        .map_err(|e| format!("media.data_base64 is not base64: {e}"))?;
    if bytes.is_empty() || bytes.len() > super::graph::MAX_FILE_BYTES {
        return Err(format!(
            "media.data_base64 must hold 1 to {} bytes",
            super::graph::MAX_FILE_BYTES
        ));
    }
    let digest = Sha256::digest(&bytes);
    let mut object = Map::new();
    object.insert("mime_type".to_owned(), json!(mime_type));
    object.insert("sha256".to_owned(), json!(STANDARD.encode(digest)));
    if let Some(caption) = media.caption {
        object.insert("caption".to_owned(), json!(caption));
    }
    if let Some(filename) = media.filename {
        object.insert("filename".to_owned(), json!(filename));
    }
    if kind == "audio" {
        object.insert("voice".to_owned(), json!(media.voice.unwrap_or(false)));
    }
    if kind == "sticker" {
        object.insert("animated".to_owned(), json!(media.animated.unwrap_or(false)));
    }
    let stored = Media {
        phone_number_id: String::new(),
        mime_type,
        sha256: hex::encode(digest),
        bytes: bytes.into(),
    };
    Ok((kind, object, stored))
}

pub(crate) async fn sent(simulator: web::Data<Simulator>) -> HttpResponse {
    HttpResponse::Ok().json(simulator.sent())
}
