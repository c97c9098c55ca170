//! The multipart front of the file operations (docs/api.md §4.3–§4.5).
//!
//! The form is read as a stream: small text parts are collected (each held to a few KiB), and the one
//! `file` part goes chunk by chunk into an [`Upload`] of the media store, which judges the kind from the
//! first bytes and stops at the kind's limit. So an oversized or disguised file is refused while it
//! arrives, and no upload is ever held whole in memory. Nothing here decides anything about the send:
//! the parts are handed to the use case, which runs the checks in their documented order.

use crate::error::ApiError;
use actix_multipart::{Multipart, MultipartError};
use actix_web::HttpRequest;
use actix_web::http::header::{self, HeaderMap};
use actix_web::web;
use futures::StreamExt as _;
use herald_domain::attachment::MediaKind;
use herald_domain::media::StagedFile;
use herald_domain::ports::{MediaStore, Upload};
use herald_domain::values::RequestFingerprint;
use herald_domain::{FieldError, ValidationErrors};
use std::collections::BTreeMap;

/// The most a text part may hold: the `template` part carries a whole §4.1 JSON body.
const TEXT_PART_LIMIT: usize = 64 * 1024;

/// More parts than any operation takes is a broken or hostile form.
const MAX_PARTS: usize = 16;

/// The kind with the highest limit of the network's: no form carries more than one such file.
const LARGEST_FILE_KIND: MediaKind = MediaKind::Document;

/// What a part's boundary and headers may add to the form's size in the budget.
const PART_HEADERS_LIMIT: usize = 1024;

/// Whether a request body is a multipart form, judged from its `Content-Type`.
pub(crate) fn is_multipart(req: &HttpRequest) -> bool {
    content_type(req.headers())
        .is_some_and(|value| value.to_ascii_lowercase().starts_with("multipart/form-data"))
}

/// Whether a request body is JSON, judged from its `Content-Type`.
pub(crate) fn is_json(req: &HttpRequest) -> bool {
    content_type(req.headers()).is_some_and(|value| {
        let essence = value
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        essence == "application/json" || (essence.starts_with("application/") && essence.ends_with("+json"))
    })
}

fn content_type(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
}

/// The file part, staged and judged.
#[derive(Debug)]
pub(crate) struct FilePart {
    pub staged: StagedFile,
    /// The part's `filename`, as the client sent it (only a document's reaches the recipient).
    pub filename: Option<String>,
}

/// A parsed form: the text parts by name, the file part, and the field errors found on the way
/// (reported after the plan and rate checks, with the body's other errors).
#[derive(Debug, Default)]
pub(crate) struct Form {
    pub fields: BTreeMap<String, String>,
    pub file: Option<FilePart>,
    pub errors: ValidationErrors,
}

impl Form {
    /// The request's meaning for idempotency: the path, the text parts, the file's digest and its part
    /// name (a document's recipient sees the name, so a retry with another name is another request).
    pub(crate) fn fingerprint(&self, path: &str) -> RequestFingerprint {
        let mut text = String::from(path);
        for (name, value) in &self.fields {
            text.push('\n');
            text.push_str(&serde_json::Value::String(name.clone()).to_string());
            text.push('=');
            text.push_str(&serde_json::Value::String(value.clone()).to_string());
        }
        if let Some(file) = &self.file {
            text.push_str("\nfile=");
            text.push_str(&file.staged.content().sha256.to_hex());
            if let Some(name) = &file.filename {
                text.push(';');
                text.push_str(&serde_json::Value::String(name.clone()).to_string());
            }
        }
        RequestFingerprint::of(text.as_bytes())
    }
}

/// Reads a multipart form whose text parts must be among `text_parts` and which may carry one `file`.
///
/// # Errors
/// - `415 unsupported_media_type` when the body is not `multipart/form-data`;
/// - `400 invalid_json` when the form cannot be parsed (the contract's code for an unparsable body);
/// - `413 payload_too_large` / `415 unsupported_file_type` from the file part, as soon as the bytes show it
///   (held to the kind's limit and to `max_file_bytes`, the plan's); `413` also for a text part over
///   [`TEXT_PART_LIMIT`] and for a form over its whole budget (a declared `Content-Length` is judged before
///   anything is read);
/// - `503 unavailable` when the staging area fails.
///
/// Unknown or repeated text parts, and a second file, are field errors in [`Form::errors`].
pub(crate) async fn read_form(
    req: &HttpRequest,
    payload: web::Payload,
    files: &dyn MediaStore,
    text_parts: &[&str],
    max_file_bytes: u64,
) -> Result<Form, ApiError> {
    if !is_multipart(req) {
        return Err(ApiError::NotMultipart { json_too: false });
    }
    if let Some(declared) = content_length(req.headers()) {
        Budget::for_file(max_file_bytes).take(declared)?;
    }
    let mut budget = Budget::for_file(max_file_bytes);
    let mut multipart = Multipart::new(req.headers(), payload);
    let mut form = Form::default();
    let mut parts = 0_usize;
    while let Some(field) = multipart.next().await {
        let mut field = field.map_err(form_error)?;
        parts += 1;
        if parts > MAX_PARTS {
            return Err(ApiError::InvalidForm(format!(
                "it has more than {MAX_PARTS} parts"
            )));
        }
        let name = field.name().unwrap_or_default().to_owned();
        let filename = field
            .content_disposition()
            .and_then(|disposition| disposition.get_filename())
            .map(str::to_owned);
        let declared = field
            .content_type()
            .map(|mime| mime.essence_str().to_ascii_lowercase());
        if name == "file" {
            if form.file.is_some() {
                form.errors
                    .push(FieldError::new("file", "only one file may be sent"));
                drain(&mut field, &mut budget).await?;
                continue;
            }
            let mut upload = files.begin_upload(max_file_bytes).await?;
            while let Some(chunk) = field.next().await {
                let chunk = chunk.map_err(form_error)?;
                // The upload holds the file to its own limit; the budget bounds the whole form.
                budget.take(chunk.len() as u64)?;
                push(upload.as_mut(), &chunk).await?;
            }
            match upload.finish().await {
                Ok(staged) => {
                    if let Some(declared) = declared.filter(|d| contradicts(d, &staged.content().mime_type)) {
                        // Dropping the staged file removes it.
                        return Err(ApiError::UnsupportedFileType(format!(
                            "The file's bytes are {} but its part declares {declared}",
                            staged.content().mime_type
                        )));
                    }
                    form.file = Some(FilePart { staged, filename });
                }
                Err(herald_domain::ports::UploadError::Empty) => {
                    form.errors.push(FieldError::new("file", "the file is empty"));
                }
                Err(error) => return Err(error.into()),
            }
            continue;
        }
        if !text_parts.contains(&name.as_str()) {
            let shown = if name.is_empty() {
                "(unnamed)".to_owned()
            } else {
                name.clone()
            };
            let takes = if text_parts.is_empty() {
                "it takes `file` only".to_owned()
            } else {
                format!("it takes `file` and `{}`", text_parts.join("`, `"))
            };
            form.errors.push(FieldError::new(
                shown.clone(),
                format!("is not a part of this form ({takes})"),
            ));
            read_text(&mut field, &mut budget, &shown).await?;
            continue;
        }
        let bytes = read_text(&mut field, &mut budget, &name).await?;
        match (form.fields.entry(name), String::from_utf8(bytes)) {
            (std::collections::btree_map::Entry::Occupied(entry), _) => {
                form.errors
                    .push(FieldError::new(entry.key().as_str(), "is given more than once"));
            }
            (std::collections::btree_map::Entry::Vacant(entry), Ok(text)) => {
                entry.insert(text);
            }
            (std::collections::btree_map::Entry::Vacant(entry), Err(_)) => {
                form.errors
                    .push(FieldError::new(entry.key().as_str(), "must be UTF-8 text"));
            }
        }
    }
    Ok(form)
}

/// The bytes a whole form may carry: one file of the plan's largest size and every other part at its
/// limit. Counting every part, known or not, is what keeps a form of junk parts or a second file from
/// being read without end.
#[derive(Debug, Clone, Copy)]
struct Budget {
    limit: u64,
    used: u64,
}

impl Budget {
    fn for_file(max_file_bytes: u64) -> Self {
        let overhead = (MAX_PARTS * (TEXT_PART_LIMIT + PART_HEADERS_LIMIT)) as u64;
        Self {
            limit: max_file_bytes
                .min(LARGEST_FILE_KIND.max_bytes(false))
                .saturating_add(overhead),
            used: 0,
        }
    }

    /// # Errors
    /// `413 payload_too_large` once the form passes its limit: nothing more of it is read.
    fn take(&mut self, bytes: u64) -> Result<(), ApiError> {
        self.used = self.used.saturating_add(bytes);
        if self.used > self.limit {
            return Err(ApiError::FileTooLarge(format!(
                "The form is larger than the {} bytes it may have (one file within the plan's limit \
                 and its text parts)",
                self.limit
            )));
        }
        Ok(())
    }
}

/// A text part's bytes, refused with `413` as soon as they pass [`TEXT_PART_LIMIT`]: reading on to
/// report a field error would let one part be as long as the client likes.
async fn read_text(
    field: &mut actix_multipart::Field,
    budget: &mut Budget,
    name: &str,
) -> Result<Vec<u8>, ApiError> {
    let mut bytes = Vec::new();
    while let Some(chunk) = field.next().await {
        let chunk = chunk.map_err(form_error)?;
        budget.take(chunk.len() as u64)?;
        if bytes.len() + chunk.len() > TEXT_PART_LIMIT {
            return Err(ApiError::FileTooLarge(format!(
                "The form's part `{name}` is longer than the {TEXT_PART_LIMIT} bytes a text part may have"
            )));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

fn content_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// Whether a part's declared type says something else than its bytes. The kind is always judged from the
/// bytes; a declaration that contradicts them marks a disguised file, which is refused rather than
/// silently re-labelled. No declaration, or a generic one, says nothing.
fn contradicts(declared: &str, judged: &str) -> bool {
    const GENERIC: [&str; 2] = ["application/octet-stream", "binary/octet-stream"];
    // Names clients and operating systems commonly give these types (`.m4a` as `audio/x-m4a`, `.mp3` as
    // `audio/mp3`, `.opus` as `audio/opus`): the same bytes, not a disguise.
    const ALIASES: [(&str, &str); 11] = [
        ("image/jpg", "image/jpeg"),
        ("image/pjpeg", "image/jpeg"),
        ("video/3gp", "video/3gpp"),
        ("application/x-pdf", "application/pdf"),
        ("audio/mp3", "audio/mpeg"),
        ("audio/x-m4a", "audio/mp4"),
        ("audio/m4a", "audio/mp4"),
        ("audio/x-aac", "audio/aac"),
        ("audio/aacp", "audio/aac"),
        ("audio/opus", "audio/ogg"),
        ("audio/x-amr", "audio/amr"),
    ];
    if GENERIC.contains(&declared) {
        return false;
    }
    let declared = ALIASES
        .iter()
        .find(|(alias, _)| *alias == declared)
        .map_or(declared, |(_, canonical)| canonical);
    declared != judged
}

async fn push(upload: &mut dyn Upload, chunk: &[u8]) -> Result<(), ApiError> {
    upload.push(chunk).await.map_err(ApiError::from)
}

/// Reads a part to its end without keeping it (the form's later parts still need reading), within the
/// form's budget.
async fn drain(field: &mut actix_multipart::Field, budget: &mut Budget) -> Result<(), ApiError> {
    while let Some(chunk) = field.next().await {
        budget.take(chunk.map_err(form_error)?.len() as u64)?;
    }
    Ok(())
}

fn form_error(error: MultipartError) -> ApiError {
    match error {
        MultipartError::ContentTypeMissing
        | MultipartError::ContentTypeParse
        | MultipartError::ContentTypeIncompatible => ApiError::NotMultipart { json_too: false },
        other => ApiError::InvalidForm(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::contradicts;

    #[test]
    fn only_a_specific_declaration_that_differs_from_the_bytes_contradicts_them() {
        assert!(!contradicts("image/png", "image/png"));
        assert!(!contradicts("application/octet-stream", "video/mp4"));
        assert!(!contradicts("image/jpg", "image/jpeg"));
        assert!(!contradicts("video/3gp", "video/3gpp"));
        assert!(contradicts("video/mp4", "image/png"));
        assert!(contradicts("application/pdf", "image/jpeg"));
        assert!(contradicts("text/plain", "application/pdf"));
        assert!(!contradicts("audio/opus", "audio/ogg"));
        assert!(!contradicts("audio/x-m4a", "audio/mp4"));
        assert!(!contradicts("audio/mp3", "audio/mpeg"));
        assert!(contradicts("image/png", "image/webp"));
        assert!(contradicts("audio/ogg", "audio/mpeg"));
    }
}
