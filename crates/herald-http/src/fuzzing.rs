//! A door to the multipart front for the cargo-fuzz target `multipart` (`fuzz/fuzz_targets/multipart.rs`,
//! docs/fuzzing.md). Compiled only with the `fuzzing` feature, which nothing in the main workspace turns
//! on: the service's API and builds are the same without it.
//!
//! [`read_form`] builds the request actix would hand a file operation (a `POST` with the given
//! `Content-Type` and the body as a stream arriving in chunks cut where the caller says) and runs the real
//! [`crate::multipart::read_form`] on it, with every text part the file operations take.

use crate::error::ApiError;
use crate::multipart;
use actix_web::dev::Payload as DevPayload;
use actix_web::error::PayloadError;
use actix_web::http::header::{self, HeaderValue};
use actix_web::test::TestRequest;
use actix_web::web::{self, Bytes};
use actix_web::{FromRequest as _, HttpRequest};
use futures::Stream;
use herald_domain::ValidationErrors;
use herald_domain::media::StagedFile;
use herald_domain::ports::MediaStore;
use herald_domain::values::RequestFingerprint;
use std::collections::BTreeMap;
use std::pin::Pin;

/// The text parts the form is read with: those of `send-file` and of `send-template-media` together.
pub const TEXT_PARTS: [&str; 5] = ["to", "caption", "from", "client_reference", "template"];

/// A form `read_form` accepted, with the staged file still in place (dropping it removes the file).
#[derive(Debug)]
pub struct ReadForm {
    pub fields: BTreeMap<String, String>,
    /// The `file` part, staged, sized, hashed and judged.
    pub file: Option<StagedFile>,
    /// The file part's `filename`.
    pub filename: Option<String>,
    /// The field errors found on the way (reported later by the handlers).
    pub errors: ValidationErrors,
    /// The form's idempotency fingerprint, as the handlers compute it.
    pub fingerprint: RequestFingerprint,
}

/// What became of one request.
#[derive(Debug)]
pub enum Outcome {
    /// The header value is not one an HTTP parser lets through (control characters): actix answers
    /// `400` before any handler runs, so the form is never read.
    BadHeader,
    /// The form was read.
    Read(ReadForm),
    /// The form was refused; [`ApiError::code`] says how.
    Refused(ApiError),
}

/// Reads `body`, sent with `content_type` (`None`: no `Content-Type` header), as a file operation's
/// multipart form, staging its file in `files`.
///
/// The body arrives in chunks of the sizes in `chunks`, taken in turn and over again until the body is
/// used up (a `0` is an empty chunk); with no non-zero size it arrives whole.
pub async fn read_form(
    content_type: Option<&[u8]>,
    body: &[u8],
    chunks: &[usize],
    files: &dyn MediaStore,
) -> Outcome {
    let mut request = TestRequest::post().uri("/api/v1/media");
    if let Some(value) = content_type {
        let Ok(value) = HeaderValue::from_bytes(value) else {
            return Outcome::BadHeader;
        };
        request = request.insert_header((header::CONTENT_TYPE, value));
    }
    let req: HttpRequest = request.to_http_request();
    let stream: Pin<Box<dyn Stream<Item = Result<Bytes, PayloadError>>>> =
        Box::pin(futures::stream::iter(split(body, chunks).into_iter().map(Ok)));
    let mut payload = DevPayload::from(stream);
    let payload = match web::Payload::from_request(&req, &mut payload).await {
        Ok(payload) => payload,
        Err(error) => return Outcome::Refused(ApiError::Internal(anyhow::anyhow!("{error}"))),
    };
    // The widest plan: the network's own per-kind limits are the ones under test.
    let max_file_bytes = herald_domain::attachment::MediaKind::Document.max_bytes(false);
    match multipart::read_form(&req, payload, files, &TEXT_PARTS, max_file_bytes).await {
        Ok(form) => {
            let fingerprint = form.fingerprint("/api/v1/media");
            let (file, filename) = match form.file {
                Some(part) => (Some(part.staged), part.filename),
                None => (None, None),
            };
            Outcome::Read(ReadForm {
                fields: form.fields,
                file,
                filename,
                errors: form.errors,
                fingerprint,
            })
        }
        Err(error) => Outcome::Refused(error),
    }
}

/// `body` cut into chunks of the sizes in `pattern`, cycled.
fn split(body: &[u8], pattern: &[usize]) -> Vec<Bytes> {
    if !pattern.iter().any(|&size| size > 0) {
        return if body.is_empty() {
            Vec::new()
        } else {
            vec![Bytes::copy_from_slice(body)]
        };
    }
    let mut out = Vec::new();
    let mut rest = body;
    for &size in pattern.iter().cycle() {
        if rest.is_empty() {
            break;
        }
        let (chunk, tail) = rest.split_at(size.min(rest.len()));
        out.push(Bytes::copy_from_slice(chunk));
        rest = tail;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn a_body_is_cut_by_the_pattern_cycled_and_whole_without_one() {
        let cut = |pattern: &[usize]| -> Vec<Vec<u8>> {
            split(b"abcdefg", pattern).iter().map(|b| b.to_vec()).collect()
        };
        assert_eq!(cut(&[]), vec![b"abcdefg".to_vec()]);
        assert_eq!(cut(&[0, 0]), vec![b"abcdefg".to_vec()]);
        assert_eq!(
            cut(&[2, 0, 3]),
            vec![b"ab".to_vec(), vec![], b"cde".to_vec(), b"fg".to_vec()]
        );
        assert!(split(b"", &[1]).is_empty());
    }
}

/// `GET /api/v1/usage`'s `from` and `until` as the handler reads them from the query's pairs (the
/// cargo-fuzz target `usage_range`): dates, or the field errors naming them.
///
/// # Errors
/// Naming `from` or `until` when one is not a date.
pub fn usage_range(
    pairs: &[(String, String)],
) -> Result<(Option<chrono::NaiveDate>, Option<chrono::NaiveDate>), ValidationErrors> {
    crate::routes::usage::parse_range(pairs)
}

/// The `method` label a request with this method is counted under (the cargo-fuzz target `http_method`);
/// `None` when the bytes are no method an HTTP parser lets through.
pub fn method_label(method: &[u8]) -> Option<&'static str> {
    actix_web::http::Method::from_bytes(method)
        .ok()
        .map(|method| crate::metrics::method_label(&method))
}
