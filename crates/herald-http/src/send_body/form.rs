//! The multipart forms of send-file and send-template-media, to a draft.

use super::{SendOperation, draft, finish_draft};
use crate::multipart::Form;
use herald_domain::attachment::{MediaAttachment, MediaKind, MediaSource};
use herald_domain::contact::Recipient;
use herald_domain::message::MessageContent;
use herald_domain::template::HeaderValue;
use herald_domain::usecases::SendDraft;
use herald_domain::values::{Caption, FileName};
use herald_domain::{FieldError, ValidationErrors};
use serde_json::{Map, Value};

/// `send-file`'s multipart form (docs/api.md §4.3): parts `to`, `file`, `caption`, `from`,
/// `client_reference`, `reply_to`, `send_at`. The file's kind was judged from its bytes while it streamed in.
pub(crate) fn multipart_file_draft(form: &Form) -> Result<SendDraft, ValidationErrors> {
    let mut errors = form.errors.clone();
    let to = match form.fields.get("to") {
        Some(to) => errors.check("to", Recipient::parse(to)),
        None => {
            errors.push(FieldError::new("to", "is required"));
            None
        }
    };
    let caption = form
        .fields
        .get("caption")
        .map(|caption| errors.check("caption", Caption::parse(caption)));
    let media = upload_attachment(form, &mut errors);
    let content = match (media, caption) {
        (Some(media), None) => Some(MessageContent::Media { media, caption: None }),
        (Some(media), Some(Some(caption))) => Some(MessageContent::Media {
            media,
            caption: Some(caption),
        }),
        _ => None,
    };
    let object: Map<String, Value> = form
        .fields
        .iter()
        .filter(|(name, _)| {
            matches!(
                name.as_str(),
                "from" | "client_reference" | "reply_to" | "send_at"
            )
        })
        .map(|(name, value)| (name.clone(), Value::String(value.clone())))
        .collect();
    finish_draft(&object, to, content, errors)
}

/// `send-template-media`'s multipart form (docs/api.md §4.4): part `template` holds §4.1's template form as
/// JSON, part `file` the header's file.
pub(crate) fn multipart_template_draft(form: &Form) -> Result<SendDraft, ValidationErrors> {
    let mut errors = form.errors.clone();
    let media = upload_attachment(form, &mut errors);
    let Some(text) = form.fields.get("template") else {
        errors.push(FieldError::new(
            "template",
            "is required: the template form of send-template, as JSON",
        ));
        return Err(errors);
    };
    let body: Value = match serde_json::from_str(text) {
        Ok(body) => body,
        Err(error) => {
            errors.push(FieldError::new("template", format!("is not valid JSON: {error}")));
            return Err(errors);
        }
    };
    if body.get("type").and_then(Value::as_str) == Some("text") {
        errors.push(FieldError::new("template.type", "must be `template` here"));
    }
    let mut parsed = draft(SendOperation::Template, &body);
    if let Ok(draft) = &mut parsed
        && let MessageContent::Template { variables, .. } = &mut draft.content
    {
        if variables.header.is_some() {
            errors.push(FieldError::new(
                "template.variables.header",
                "the header's file is the `file` part; leave the header out",
            ));
        } else if let Some(media) = media {
            variables.header = Some(HeaderValue::Media(media));
        }
    }
    match parsed {
        Ok(draft) if errors.is_empty() => Ok(draft),
        Ok(_) => Err(errors),
        Err(body_errors) => {
            errors.append(body_errors.prefixed("template."));
            Err(errors)
        }
    }
}

/// The uploaded file as the draft's attachment, named [`MediaSource::Upload`] until it is stored.
fn upload_attachment(form: &Form, errors: &mut ValidationErrors) -> Option<MediaAttachment> {
    let Some(file) = &form.file else {
        if !errors.errors().iter().any(|e| e.field == "file") {
            errors.push(FieldError::new("file", "is required"));
        }
        return None;
    };
    let kind = file.staged.content().kind;
    // Only a document's name reaches the recipient; a bad name on an image is not worth a refusal.
    let filename = match (&file.filename, kind) {
        (Some(name), MediaKind::Document) => Some(errors.check("file", FileName::parse(name))?),
        _ => None,
    };
    Some(MediaAttachment {
        kind,
        source: MediaSource::Upload,
        filename,
    })
}
