//! Network callbacks (`POST /webhooks/whatsapp`, docs/cloud-api.md §4.3–4.4) parsed into domain events.
//!
//! The body is walked as loose JSON rather than strict structs: one malformed item must become a note in
//! [`ParsedCallback::skipped`], never a failure of the whole batch, and the network adds fields all the time.

mod notices;
mod preferences;

use crate::errors::classify;
use herald_domain::Timestamp;
use herald_domain::contact::Recipient;
use herald_domain::message::MessageError;
use herald_domain::network::{
    InboundContent, InboundMessage, MAX_UNKNOWN_FIELDS, NetworkEvent, NetworkStatusReport, ParsedCallback,
    ReportedStatus, SourceField,
};
use herald_domain::organization::NetworkRef;
use herald_domain::ports::CallbackDecoder;
use herald_domain::pricing::{Pricing, PricingWord};
use herald_domain::values::PhoneNumber;
use herald_domain::values::UserId;
use serde_json::Value;

/// Why a callback body could not be read at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("the callback body is not JSON: {0}")]
    NotJson(String),
    #[error("the callback body is not a webhook envelope: {0}")]
    NotAnEnvelope(&'static str),
}

/// [`parse_callback`] behind the domain's [`CallbackDecoder`] port.
#[derive(Debug, Default, Clone, Copy)]
pub struct CloudApiDecoder;

impl CallbackDecoder for CloudApiDecoder {
    fn decode(&self, body: &[u8]) -> Result<ParsedCallback, String> {
        parse_callback(body).map_err(|e| e.to_string())
    }
}

/// Parses a callback body (already verified with [`crate::verify_signature`]) into status reports, inbound
/// messages and account notices (templates, numbers, the account). Items that cannot be used, and changes of
/// other fields, are listed in `skipped`.
///
/// # Errors
/// [`ParseError`] only when the body is not JSON or not an envelope with an `entry` list.
pub fn parse_callback(raw_body: &[u8]) -> Result<ParsedCallback, ParseError> {
    let envelope: Value = serde_json::from_slice(raw_body).map_err(|e| ParseError::NotJson(e.to_string()))?;
    let entries = envelope
        .as_object()
        .ok_or(ParseError::NotAnEnvelope("the body is not a JSON object"))?
        .get("entry")
        .and_then(Value::as_array)
        .ok_or(ParseError::NotAnEnvelope("the body has no `entry` list"))?;
    let mut parsed = ParsedCallback::default();
    for (e, entry) in entries.iter().enumerate() {
        let Some(changes) = entry.get("changes").and_then(Value::as_array) else {
            parsed.skipped.push(format!("entry[{e}]: no `changes` list"));
            continue;
        };
        for (c, change) in changes.iter().enumerate() {
            parse_change(&format!("entry[{e}].changes[{c}]"), entry, change, &mut parsed);
        }
    }
    Ok(parsed)
}

/// Fields Meta documents that carry nothing Herald records (docs/cloud-api.md §4.7): acknowledged with a
/// note, never warned about as unknown.
const ACKNOWLEDGED_FIELDS: [&str; 8] = [
    "messaging_handovers",
    "history",
    "smb_app_state_sync",
    "message_template_components_update",
    "business_capability_update",
    "account_review_update",
    "automatic_events",
    "security",
];

/// Longest field name kept in a note or a warning: the name is the network's text.
const MAX_FIELD_NAME_CHARS: usize = 64;

fn parse_change(at: &str, entry: &Value, change: &Value, parsed: &mut ParsedCallback) {
    let field = change.get("field").and_then(Value::as_str).unwrap_or("");
    if notices::NOTICE_FIELDS.contains(&field) {
        let value = change.get("value").unwrap_or(&Value::Null);
        match notices::parse_notice(entry, field, value) {
            Ok(notice) => parsed.events.push(NetworkEvent::Notice(notice)),
            Err(why) => parsed.skipped.push(format!("{at}: {field}: {why}")),
        }
        return;
    }
    if field == preferences::FIELD {
        let value = change.get("value").unwrap_or(&Value::Null);
        for item in preferences::parse_preferences(value) {
            match item {
                Ok(preference) => parsed.events.push(NetworkEvent::Preference(preference)),
                Err(why) => parsed.skipped.push(format!("{at}.value.{why}")),
            }
        }
        return;
    }
    let Some(source) = SourceField::parse(field) else {
        let name: String = field.chars().take(MAX_FIELD_NAME_CHARS).collect();
        parsed
            .skipped
            .push(format!("{at}: field `{name}` is not handled"));
        if !ACKNOWLEDGED_FIELDS.contains(&field)
            && !parsed.unknown_fields.contains(&name)
            && parsed.unknown_fields.len() < MAX_UNKNOWN_FIELDS
        {
            parsed.unknown_fields.push(name);
        }
        return;
    };
    let Some(value) = change.get("value") else {
        parsed.skipped.push(format!("{at}: no `value`"));
        return;
    };
    parse_messaging_value(at, source, value, parsed);
}

/// The value of a field that carries messages (`messages`, `standby`, `smb_message_echoes`): all three
/// use the `messages` field's shape, the customer's messages under `messages` and the business side's
/// echoes under `message_echoes`.
fn parse_messaging_value(at: &str, source: SourceField, value: &Value, parsed: &mut ParsedCallback) {
    let statuses = list(value, "statuses");
    let messages = list(value, "messages");
    let echoes = list(value, "message_echoes");
    // Errors about the whole payload come next to (or instead of) the items; keep them visible.
    for (i, error) in list(value, "errors").iter().enumerate() {
        let (code, details) = error_fields(error);
        parsed.skipped.push(format!(
            "{at}.value.errors[{i}]: the network reported error {} ({details})",
            code.map_or_else(|| "without a code".to_owned(), |c| c.to_string())
        ));
    }
    let phone_number_id = match value
        .get("metadata")
        .and_then(|m| m.get("phone_number_id"))
        .and_then(Value::as_str)
        .map(NetworkRef::parse)
    {
        Some(Ok(id)) => id,
        other => {
            let why = match other {
                Some(Err(e)) => format!("metadata.phone_number_id {e}"),
                _ => "no metadata.phone_number_id".to_owned(),
            };
            for (key, items) in [
                ("statuses", statuses),
                ("messages", messages),
                ("message_echoes", echoes),
            ] {
                for i in 0..items.len() {
                    parsed.skipped.push(format!("{at}.value.{key}[{i}]: {why}"));
                }
            }
            return;
        }
    };
    for (i, status) in statuses.iter().enumerate() {
        match parse_status(&phone_number_id, status) {
            Ok(report) => parsed.events.push(NetworkEvent::Status(report)),
            Err(why) => parsed.skipped.push(format!("{at}.value.statuses[{i}]: {why}")),
        }
    }
    let contacts = list(value, "contacts");
    for (key, items, echo) in [("messages", messages, false), ("message_echoes", echoes, true)] {
        let origin = Origin { source, echo };
        for (i, message) in items.iter().enumerate() {
            match parse_message(&phone_number_id, contacts, message, origin) {
                Ok(inbound) => parsed.events.push(NetworkEvent::Inbound(inbound)),
                Err(why) => parsed.skipped.push(format!("{at}.value.{key}[{i}]: {why}")),
            }
        }
    }
}

/// Where a message came from: its webhook field, and whether it is the business side's echo.
#[derive(Debug, Clone, Copy)]
struct Origin {
    source: SourceField,
    echo: bool,
}

fn list<'a>(value: &'a Value, key: &str) -> &'a [Value] {
    value
        .get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn str_field<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

fn required<'a>(value: &'a Value, key: &str) -> Result<&'a str, String> {
    str_field(value, key)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| format!("no `{key}`"))
}

/// Unix seconds, written by the network as a string (a number is accepted too).
fn timestamp(value: &Value) -> Result<Timestamp, String> {
    let raw = value.get("timestamp").ok_or("no `timestamp`")?;
    let seconds = match raw {
        Value::String(s) => s.trim().parse::<i64>().ok(),
        Value::Number(n) => n.as_i64(),
        _ => None,
    }
    .ok_or_else(|| format!("`timestamp` {raw} is not unix seconds"))?;
    chrono::DateTime::from_timestamp(seconds, 0)
        .ok_or_else(|| format!("`timestamp` {seconds} is out of range"))
}

/// `(code, details)` of a webhook error object; details fall back to the message, then the title.
fn error_fields(error: &Value) -> (Option<i64>, String) {
    let code = error.get("code").and_then(Value::as_i64);
    let details = error
        .get("error_data")
        .and_then(|d| str_field(d, "details"))
        .or_else(|| str_field(error, "message"))
        .or_else(|| str_field(error, "title"))
        .unwrap_or_default()
        .to_owned();
    (code, details)
}

fn map_error(error: &Value) -> MessageError {
    match error_fields(error) {
        (Some(code), details) => classify(code, &details).error,
        (None, details) => MessageError {
            code: "network_error".into(),
            title: "The network reported a failure".into(),
            detail: details,
            network_code: None,
        },
    }
}

fn parse_status(phone_number_id: &NetworkRef, status: &Value) -> Result<NetworkStatusReport, String> {
    let network_message_id = required(status, "id")?.to_owned();
    let reported = match required(status, "status")? {
        "sent" => ReportedStatus::Sent,
        "delivered" => ReportedStatus::Delivered,
        "read" => ReportedStatus::Read,
        "failed" => ReportedStatus::Failed,
        "played" => ReportedStatus::Played,
        other => return Err(format!("unknown status `{other}`")),
    };
    let error = list(status, "errors").first().map(map_error);
    Ok(NetworkStatusReport {
        phone_number_id: phone_number_id.clone(),
        network_message_id,
        callback_data: str_field(status, "biz_opaque_callback_data").map(str::to_owned),
        status: reported,
        occurred_at: timestamp(status)?,
        recipient: str_field(status, "recipient_id").map(str::to_owned),
        // A malformed id is left out rather than failing the report: the status matters more.
        recipient_user_id: str_field(status, "recipient_user_id").and_then(|id| UserId::parse(id).ok()),
        error,
        pricing: status.get("pricing").map(pricing).filter(|p| !p.is_empty()),
    })
}

/// The status's `pricing` object. A field that is missing or not a pricing word is left out rather than
/// failing the report: the status matters more than its price.
fn pricing(object: &Value) -> Pricing {
    let word = |key: &str| str_field(object, key).and_then(|v| PricingWord::parse(v).ok());
    Pricing {
        model: word("pricing_model"),
        category: word("category"),
        kind: word("type"),
        billable: object.get("billable").and_then(Value::as_bool),
    }
}

/// The content of a message of type `kind`. A kind Herald does not know, `unsupported`, and an
/// `interactive` of an unknown subtype become [`InboundContent::Other`] (the raw object is kept); a known
/// kind whose object is malformed is an error for this item only.
fn inbound_content(kind: &str, message: &Value) -> Result<InboundContent, String> {
    let object = || {
        message
            .get(kind)
            .filter(|o| o.is_object())
            .ok_or_else(|| format!("a {kind} message without its `{kind}` object"))
    };
    let owned = |object: &Value, key: &str| str_field(object, key).map(str::to_owned);
    let text = |object: &Value, key: &str| {
        required(object, key)
            .map(str::to_owned)
            .map_err(|e| format!("{kind}: {e}"))
    };
    Ok(match kind {
        "text" => {
            let body = message
                .get("text")
                .and_then(|t| str_field(t, "body"))
                .ok_or("a text message without `text.body`")?;
            InboundContent::Text {
                body: body.to_owned(),
            }
        }
        kind if MEDIA_KINDS.contains(&kind) => {
            let object = object()?;
            let flag = |key: &str| object.get(key).and_then(Value::as_bool);
            InboundContent::Media {
                kind: kind.to_owned(),
                network_media_id: text(object, "id")?,
                mime_type: owned(object, "mime_type"),
                sha256: owned(object, "sha256"),
                caption: owned(object, "caption"),
                filename: owned(object, "filename"),
                voice: if kind == "audio" { flag("voice") } else { None },
                animated: if kind == "sticker" { flag("animated") } else { None },
            }
        }
        "location" => {
            let object = object()?;
            // The coordinates stay the JSON numbers the network wrote: no rounding through a float.
            let degrees = |key: &str, limit: f64| match object.get(key) {
                Some(Value::Number(n)) if n.as_f64().is_some_and(|v| v.abs() <= limit) => Ok(n.to_string()),
                _ => Err(format!("location: `{key}` is not a number of degrees")),
            };
            InboundContent::Location {
                latitude: degrees("latitude", 90.0)?,
                longitude: degrees("longitude", 180.0)?,
                name: owned(object, "name"),
                address: owned(object, "address"),
                url: owned(object, "url"),
            }
        }
        "contacts" => {
            let cards = message
                .get("contacts")
                .filter(|c| c.is_array())
                .ok_or("a contacts message without its `contacts` list")?;
            InboundContent::Contacts {
                cards_json: cards.to_string(),
            }
        }
        "reaction" => {
            let object = object()?;
            InboundContent::Reaction {
                network_message_id: text(object, "message_id")?,
                // No emoji at all is a removal too, as an empty one is.
                emoji: owned(object, "emoji").unwrap_or_default(),
            }
        }
        "button" => {
            let object = object()?;
            InboundContent::QuickReply {
                payload: owned(object, "payload").unwrap_or_default(),
                text: text(object, "text")?,
            }
        }
        "interactive" => interactive(message)?,
        "order" => InboundContent::Order {
            order_json: object()?.to_string(),
        },
        "system" => {
            let object = object()?;
            InboundContent::System {
                body: owned(object, "body"),
                system_type: owned(object, "type"),
                wa_id: owned(object, "wa_id"),
            }
        }
        _ => InboundContent::Other,
    })
}

/// An `interactive` answer: a reply button, a list row or a Flow. An interactive message without a
/// known answer (the network sends one with an error) is kept as it came.
fn interactive(message: &Value) -> Result<InboundContent, String> {
    let Some(object) = message.get("interactive") else {
        return Ok(InboundContent::Other);
    };
    let subtype = str_field(object, "type").unwrap_or_default();
    let Some(answer) = object.get(subtype).filter(|a| a.is_object()) else {
        return Ok(InboundContent::Other);
    };
    let owned = |key: &str| str_field(answer, key).map(str::to_owned);
    let text = |key: &str| {
        required(answer, key)
            .map(str::to_owned)
            .map_err(|e| format!("interactive.{subtype}: {e}"))
    };
    Ok(match subtype {
        "button_reply" => InboundContent::ButtonReply {
            id: text("id")?,
            title: text("title")?,
        },
        "list_reply" => InboundContent::ListReply {
            id: text("id")?,
            title: text("title")?,
            description: owned("description"),
        },
        "nfm_reply" => InboundContent::FlowReply {
            name: owned("name"),
            body: owned("body"),
            // Meta sends the answer as a JSON document inside a string; an object is taken as it is.
            response_json: match answer.get("response_json") {
                Some(Value::String(json)) => json.clone(),
                Some(object @ Value::Object(_)) => object.to_string(),
                _ => return Err("interactive.nfm_reply: no `response_json`".to_owned()),
            },
        },
        _ => InboundContent::Other,
    })
}

/// Kinds whose object carries a downloadable file.
const MEDIA_KINDS: [&str; 5] = ["image", "video", "document", "audio", "sticker"];

/// A message of the user (`from` names them), or an echo of the business side's (`to` names the user).
fn parse_message(
    phone_number_id: &NetworkRef,
    contacts: &[Value],
    message: &Value,
    origin: Origin,
) -> Result<InboundMessage, String> {
    let network_message_id = required(message, "id")?.to_owned();
    // The user is the one the business talks with: the sender of a message, the recipient of an echo.
    let (user_key, user_id_key) = if origin.echo {
        ("to", "to_user_id")
    } else {
        ("from", "from_user_id")
    };
    let from_user_id = str_field(message, user_id_key)
        .filter(|id| !id.is_empty())
        .map(|id| UserId::parse(id).map_err(|e| format!("`{user_id_key}` {id}: {e}")))
        .transpose()?;
    // An echo's `to` is the number as the business app wrote it, which may start with `+`.
    let from_digits = str_field(message, user_key)
        .map(|number| number.strip_prefix('+').unwrap_or(number))
        .filter(|f| !f.is_empty());
    let received_at = timestamp(message)?;
    let message_type = required(message, "type")?.to_owned();
    let content = inbound_content(&message_type, message)?;
    // The contact entry of this user: by number, or by user id for a user who hides their number.
    let contact = contacts.iter().find(|c| match from_digits {
        Some(digits) => str_field(c, "wa_id") == Some(digits),
        None => from_user_id
            .as_ref()
            .is_some_and(|id| str_field(c, "user_id") == Some(id.as_str())),
    });
    let from_name = contact
        .and_then(|c| c.get("profile"))
        .and_then(|p| str_field(p, "name"))
        .map(str::to_owned);
    // The user id is on the message (`from_user_id`) or on its contact (`user_id`); a malformed one on
    // the contact is dropped rather than losing the message.
    let from_user_id = from_user_id.or_else(|| {
        contact
            .and_then(|c| str_field(c, "user_id"))
            .and_then(|id| UserId::parse(id).ok())
    });
    let from = match (from_digits, &from_user_id) {
        (Some(digits), _) => Recipient::Number(
            PhoneNumber::from_digits(digits).map_err(|e| format!("`{user_key}` {digits}: {e}"))?,
        ),
        // A user who hides their number behind a username: the message names them by user id only.
        (None, Some(user_id)) => Recipient::User(user_id.clone()),
        (None, None) => return Err(format!("neither `{user_key}` nor `{user_id_key}`")),
    };
    let context_message_id = message
        .get("context")
        .and_then(|c| str_field(c, "id"))
        .map(str::to_owned);
    Ok(InboundMessage {
        phone_number_id: phone_number_id.clone(),
        network_message_id,
        from,
        from_user_id,
        from_name,
        received_at,
        message_type,
        content,
        context_message_id,
        referral: message
            .get("referral")
            .filter(|r| r.is_object())
            .map(Value::to_string),
        raw: message.to_string(),
        source_field: origin.source,
        echo: origin.echo,
    })
}
