//! Send request bodies (docs/api.md §4.1, §4.2): JSON to a domain [`SendDraft`], by hand.
//!
//! The body is parsed into a [`serde_json::Value`] first and each field is converted on its own through
//! the domain's value constructors, so one wrong field never hides another and every error is reported
//! under the path the client wrote (`variables.buttons[0].values[0]`).

mod broadcast;
mod canonical;
mod contacts;
mod fields;
pub(crate) mod form;
mod interactive;
mod location;
mod media;
mod reaction;
mod template;
#[cfg(test)]
mod tests;

pub(crate) use broadcast::broadcast_draft;
pub(crate) use canonical::fingerprint;

use fields::{json_type, optional_string, present, required, string_at};
use herald_domain::contact::Recipient;
use herald_domain::content::MessageRef;
use herald_domain::marketing::MarketingRoute;
use herald_domain::message::MessageContent;
use herald_domain::organization::MessageKind;
use herald_domain::usecases::SendDraft;
use herald_domain::values::{ClientReference, MessageText, PhoneNumber};
use herald_domain::{FieldError, ValidationErrors};
use media::file_content;
use serde_json::{Map, Value};
use template::template_content;

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
    /// `POST /api/v1/messages/send-interactive`: Meta's `interactive` object.
    Interactive,
    /// `POST /api/v1/messages/send-reaction`.
    Reaction,
    /// `POST /api/v1/messages/send-location`.
    Location,
    /// `POST /api/v1/messages/send-contacts`.
    Contacts,
}

/// The plan category of a request, decided before any field is validated so the plan check comes first
/// (docs/api.md §8): only an explicit `"type": "text"` makes a send-template request a text message.
pub(crate) fn message_kind(operation: SendOperation, body: &Value) -> MessageKind {
    match operation {
        SendOperation::Text | SendOperation::Reaction | SendOperation::Location | SendOperation::Contacts => {
            MessageKind::Text
        }
        SendOperation::File => MessageKind::Media,
        SendOperation::Interactive => interactive::interactive_kind(body),
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
    refuse_unknown_fields(operation, object, &mut errors);
    let to = required(object, "to", "to", &mut errors)
        .and_then(|v| string_at(v, "to", &mut errors))
        .and_then(|s| errors.check("to", Recipient::parse(s)));
    let content = match operation {
        SendOperation::File => file_content(object, &mut errors),
        // `type` is the interactive message's own kind, checked with it.
        SendOperation::Interactive => interactive::interactive_content(object, &mut errors),
        SendOperation::Reaction => {
            check_type(operation, object, &mut errors);
            reaction::reaction_content(object, &mut errors)
        }
        SendOperation::Location => {
            check_type(operation, object, &mut errors);
            location::location_content(object, &mut errors)
        }
        SendOperation::Contacts => {
            check_type(operation, object, &mut errors);
            contacts::contacts_content(object, &mut errors)
        }
        SendOperation::Template | SendOperation::Text => {
            check_type(operation, object, &mut errors);
            match message_kind(operation, body) {
                MessageKind::Text => text_content(object, &mut errors),
                MessageKind::Template | MessageKind::Media => template_content(object, &mut errors),
            }
        }
    };
    finish_draft(object, to, content, errors)
}

/// The common optional fields (`from`, `client_reference`, `reply_to`, `send_at`) and the verdict.
pub(super) fn finish_draft(
    object: &Map<String, Value>,
    to: Option<Recipient>,
    content: Option<MessageContent>,
    mut errors: ValidationErrors,
) -> Result<SendDraft, ValidationErrors> {
    let from = optional_string(object, "from", &mut errors)
        .map(|from| from.and_then(|s| errors.check("from", PhoneNumber::parse(s))));
    let client_reference = optional_string(object, "client_reference", &mut errors)
        .map(|reference| reference.and_then(|s| errors.check("client_reference", ClientReference::parse(s))));
    // Only its form is checked here; the use case looks it up in the conversation.
    let reply_to = optional_string(object, "reply_to", &mut errors)
        .map(|reply_to| reply_to.and_then(|s| errors.check("reply_to", MessageRef::parse(s))));
    let send_at = send_at(object, &mut errors);
    let marketing_route = marketing_route(object, &mut errors);
    let activity_sharing = activity_sharing(object, &mut errors);
    match (to, content, from, client_reference, reply_to, send_at) {
        (Some(to), Some(content), Some(from), Some(client_reference), Some(reply_to), Some(send_at))
            if errors.is_empty() =>
        {
            Ok(SendDraft {
                to,
                from,
                content,
                reply_to,
                client_reference,
                send_at,
                marketing_route,
                activity_sharing,
            })
        }
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

/// The optional `marketing_route` (docs/api.md §4.11): one of its words exactly; anything else is recorded.
fn marketing_route(object: &Map<String, Value>, errors: &mut ValidationErrors) -> Option<MarketingRoute> {
    let word = optional_string(object, "marketing_route", errors).flatten()?;
    let route = MarketingRoute::parse(word);
    if route.is_none() {
        errors.push(FieldError::new(
            "marketing_route",
            "must be auto, cloud_api or marketing_messages",
        ));
    }
    route
}

/// The optional `message_activity_sharing`: a boolean.
fn activity_sharing(object: &Map<String, Value>, errors: &mut ValidationErrors) -> Option<bool> {
    let value = present(object, "message_activity_sharing")?;
    if value.is_boolean() {
        value.as_bool()
    } else {
        errors.push(FieldError::new(
            "message_activity_sharing",
            format!("must be a boolean, not {}", json_type(value)),
        ));
        None
    }
}

/// The optional `send_at`: `Some(None)` when absent, `None` (error recorded) when not an RFC 3339 time.
/// Only its form here; how far ahead it may be is the use case's rule (it has the clock).
pub(super) fn send_at(
    object: &Map<String, Value>,
    errors: &mut ValidationErrors,
) -> Option<Option<herald_domain::Timestamp>> {
    optional_string(object, "send_at", errors).map(|send_at| {
        send_at.and_then(|s| match chrono::DateTime::parse_from_rfc3339(s) {
            // Second 60 (a leap second) is refused: stored times have none, so it would read back a
            // second later than the answer echoed it.
            Ok(at) if chrono::Timelike::nanosecond(&at) >= 1_000_000_000 => {
                errors.push(FieldError::new(
                    "send_at",
                    "must not name second 60 (a leap second); use :59 or the next minute's :00",
                ));
                None
            }
            Ok(at) => Some(at.with_timezone(&chrono::Utc)),
            Err(_) => {
                errors.push(FieldError::new(
                    "send_at",
                    "must be an RFC 3339 time with its offset, e.g. 2026-12-01T09:00:00Z",
                ));
                None
            }
        })
    })
}

/// Adds the `Idempotency-Key` header's error to the body's, so all are reported together and only after
/// the plan and rate checks.
pub(crate) fn with_header_error<T>(
    draft: Result<T, ValidationErrors>,
    header_error: Option<FieldError>,
) -> Result<T, ValidationErrors> {
    match (draft, header_error) {
        (draft, None) => draft,
        (Ok(_), Some(error)) => Err(ValidationErrors::from(error)),
        (Err(mut errors), Some(error)) => {
            errors.push(error);
            Err(errors)
        }
    }
}

/// The fields every JSON send takes (docs/api.md §4), its `type` included.
const COMMON_FIELDS: [&str; 6] = ["to", "from", "client_reference", "reply_to", "send_at", "type"];

/// The fields an operation takes besides [`COMMON_FIELDS`]. A field refused with its own reason elsewhere
/// (a template's fields on send-text) is listed, so it is reported once, with that reason.
fn operation_fields(operation: SendOperation) -> &'static [&'static str] {
    match operation {
        SendOperation::Template => &[
            "template",
            "variables",
            "message",
            "preview_url",
            "marketing_route",
            "message_activity_sharing",
        ],
        SendOperation::Text => &["template", "variables", "message", "preview_url"],
        SendOperation::File => &[
            "media_id",
            "link",
            "caption",
            "filename",
            "message",
            "preview_url",
            "template",
            "variables",
        ],
        SendOperation::Interactive => &["header", "body", "footer", "action"],
        SendOperation::Reaction => &["message_id", "emoji"],
        SendOperation::Location => &["latitude", "longitude", "name", "address"],
        SendOperation::Contacts => &["contacts"],
    }
}

/// Refuses every top-level field the operation does not take, each under its own name.
fn refuse_unknown_fields(
    operation: SendOperation,
    object: &Map<String, Value>,
    errors: &mut ValidationErrors,
) {
    let known = operation_fields(operation);
    for key in object.keys() {
        let key = key.as_str();
        if !COMMON_FIELDS.contains(&key) && !known.contains(&key) {
            errors.push(FieldError::new(key, "is not a field of this operation"));
        }
    }
}

fn check_type(operation: SendOperation, object: &Map<String, Value>, errors: &mut ValidationErrors) {
    let Some(value) = present(object, "type") else {
        return;
    };
    let allowed: &[&str] = match operation {
        SendOperation::Template => &["text", "template"],
        SendOperation::Text => &["text"],
        SendOperation::File => &["document", "image", "video", "audio", "sticker"],
        SendOperation::Reaction => &["reaction"],
        SendOperation::Location => &["location"],
        SendOperation::Contacts => &["contacts"],
        SendOperation::Interactive => &[],
    };
    if !value.as_str().is_some_and(|t| allowed.contains(&t)) {
        let message = match operation {
            SendOperation::Template => "must be `text` or `template`",
            SendOperation::Text => "must be `text` (or left out) on send-text",
            SendOperation::File => "must be `document`, `image`, `video`, `audio` or `sticker`",
            SendOperation::Reaction => "must be `reaction` (or left out) on send-reaction",
            SendOperation::Location => "must be `location` (or left out) on send-location",
            SendOperation::Contacts => "must be `contacts` (or left out) on send-contacts",
            SendOperation::Interactive => "is the interactive message's kind",
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
