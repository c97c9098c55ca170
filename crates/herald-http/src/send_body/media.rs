//! The file of a send: an upload named by `media_id`, or a `link`, and send-file's JSON form.

use super::fields::{optional_string, present, string_at};
use herald_domain::attachment::{MediaAttachment, MediaKind, MediaSource};
use herald_domain::ids::MediaId;
use herald_domain::message::MessageContent;
use herald_domain::values::{Caption, FileName, MediaLink};
use herald_domain::{FieldError, ValidationErrors};
use serde_json::{Map, Value};

/// Exactly one of `media_id` (an upload of this organization, checked by the use case) and `link` (an
/// absolute `https://` URL the network fetches), reported under `prefix`.
pub(super) fn media_source(
    object: &Map<String, Value>,
    prefix: &str,
    errors: &mut ValidationErrors,
) -> Option<MediaSource> {
    let id_field = format!("{prefix}media_id");
    let link_field = format!("{prefix}link");
    match (present(object, "media_id"), present(object, "link")) {
        (Some(_), Some(_)) => {
            errors.push(FieldError::new(
                link_field,
                "give either `media_id` or `link`, not both",
            ));
            None
        }
        (None, None) => {
            errors.push(FieldError::new(id_field, "is required (or give a `link`)"));
            None
        }
        (Some(id), None) => string_at(id, &id_field, errors)
            .and_then(|s| errors.check(&id_field, MediaId::parse(s)))
            .map(MediaSource::Stored),
        (None, Some(link)) => string_at(link, &link_field, errors)
            .and_then(|s| {
                let link = if s.starts_with("https://") {
                    MediaLink::parse(s)
                } else {
                    Err(herald_domain::error::InvalidValue::new(
                        "link must be an absolute https:// URL",
                    ))
                };
                errors.check(&link_field, link)
            })
            .map(MediaSource::Link),
    }
}

/// `send-file`'s JSON form: `media_id` (the upload decides the kind) or `link` with its `type`, and an
/// optional `caption` and (documents) `filename`. A caption or filename on audio or a sticker is refused
/// by the send use case, which alone knows an upload's kind (`MessageContent::file_field_errors`).
pub(super) fn file_content(
    object: &Map<String, Value>,
    errors: &mut ValidationErrors,
) -> Option<MessageContent> {
    for field in ["message", "preview_url", "template", "variables"] {
        if present(object, field).is_some() {
            errors.push(FieldError::new(field, "is not a field of send-file"));
        }
    }
    let source = media_source(object, "", errors);
    let declared = match present(object, "type") {
        None => Some(None),
        Some(value) => string_at(value, "type", errors).and_then(|s| match MediaKind::parse(s) {
            Ok(kind) => Some(Some(kind)),
            Err(_) => {
                errors.push(FieldError::new(
                    "type",
                    "must be `document`, `image`, `video`, `audio` or `sticker`",
                ));
                None
            }
        }),
    };
    // A link's bytes are not seen before the network fetches them, so its kind must be declared; an
    // upload's kind is known (the use case takes it from the stored file).
    let kind = match (&source, declared) {
        (Some(MediaSource::Link(_)), Some(None)) => {
            errors.push(FieldError::new("type", "is required with a `link`"));
            None
        }
        (_, Some(Some(kind))) => Some(kind),
        (_, Some(None)) => Some(MediaKind::Document),
        (_, None) => None,
    };
    let caption = optional_string(object, "caption", errors)
        .map(|caption| caption.and_then(|s| errors.check("caption", Caption::parse(s))));
    let filename = optional_string(object, "filename", errors)
        .map(|name| name.and_then(|s| errors.check("filename", FileName::parse(s))));
    if let (Some(Some(_)), Some(kind)) = (&filename, kind)
        && kind != MediaKind::Document
        && matches!(source, Some(MediaSource::Link(_)))
    {
        errors.push(FieldError::new("filename", "only documents take a filename"));
    }
    Some(MessageContent::Media {
        media: MediaAttachment {
            kind: kind?,
            source: source?,
            filename: filename?,
        },
        caption: caption?,
    })
}
