//! The one mapping from every failure to an `application/problem+json` answer (docs/api.md §2).

use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::{HttpResponse, ResponseError};
use herald_domain::ValidationErrors;
use herald_domain::organization::MessageKind;
use herald_domain::ports::StoreError;
use herald_domain::ports::UploadError;
use herald_domain::template::TemplateRef;
use herald_domain::usecases::{
    AuthError, MediaContentError, QueryError, SendError, StorageFull, UploadMediaError,
};
use herald_domain::values::PhoneNumber;
use serde::Serialize;
use utoipa::ToSchema;

/// The media type of every error body.
pub const PROBLEM_JSON: &str = "application/problem+json";

/// How long a client should wait before retrying when the store is down.
const UNAVAILABLE_RETRY_AFTER_SECONDS: u64 = 2;

/// An RFC 9457 problem document, as every error answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize, ToSchema)]
#[schema(example = json!({
    "type": "urn:herald:error:validation_failed",
    "title": "Validation failed",
    "status": 422,
    "code": "validation_failed",
    "detail": "1 field is invalid",
    "request_id": "req_01JD0000000000000000000000",
    "errors": [{"field": "to", "message": "must be an E.164 number"}]
}))]
pub struct Problem {
    /// `urn:herald:error:<code>`.
    #[serde(rename = "type")]
    pub type_: String,
    pub title: String,
    pub status: u16,
    /// The stable machine code (docs/api.md §2).
    pub code: String,
    pub detail: String,
    /// The `X-Request-Id` of the request, for support.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// Present on `validation_failed` only: every invalid field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub errors: Option<Vec<ProblemField>>,
}

/// One invalid field, named as the client named it (`to`, `variables.body[1]`, `Idempotency-Key`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize, ToSchema)]
pub struct ProblemField {
    pub field: String,
    pub message: String,
}

/// Which allowance a `429 rate_limited` ran out of: its detail names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateScope {
    /// The organization's send rate (the plan's).
    Sends,
    /// The key's read requests.
    Reads,
    /// The key's writes other than sends.
    Writes,
    /// An endpoint's undelivered test events.
    WebhookTests,
    /// Failed authentications from the client's address.
    FailedAuthentications,
}

/// Every way an API request can fail. All errors of the adapter and of the domain end up here, and
/// [`ApiError::to_response`] is the only place that turns one into an HTTP answer.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// Missing, malformed or unknown credentials: one answer for all, so it is no oracle.
    #[error("unauthenticated")]
    Unauthenticated,
    #[error("the API key is disabled")]
    KeyDisabled,
    #[error("the organization is not active")]
    AccountInactive,
    #[error("the plan does not allow {} messages", .0.as_str())]
    PlanForbids(MessageKind),
    /// The plan's webhook endpoint count is reached.
    #[error("the plan allows {limit} webhook endpoints")]
    WebhookLimit { limit: u32 },
    /// A browser's cross-origin preflight: keys belong on servers.
    #[error("cross-origin requests are refused")]
    CorsForbidden,
    #[error("not found")]
    NotFound,
    #[error("no template {} in {}", .0.name, .0.language)]
    TemplateNotFound(TemplateRef),
    #[error("method not allowed")]
    MethodNotAllowed,
    #[error("a request with this Idempotency-Key is still in flight")]
    IdempotencyConflict,
    #[error("the body is larger than {limit} bytes")]
    PayloadTooLarge { limit: usize },
    #[error("unsupported content type")]
    UnsupportedMediaType,
    /// A file operation's body is neither `multipart/form-data` nor (where it takes one) JSON.
    #[error("unsupported content type for a file operation")]
    NotMultipart { json_too: bool },
    /// A file over its kind's (or the plan's) limit; the text says which.
    #[error("{0}")]
    FileTooLarge(String),
    /// The bytes are not an accepted file type.
    #[error("{0}")]
    UnsupportedFileType(String),
    #[error("invalid JSON: {0}")]
    InvalidJson(String),
    /// A multipart form that cannot be parsed (the contract's code is `invalid_json` too).
    #[error("invalid form: {0}")]
    InvalidForm(String),
    #[error("validation failed: {0}")]
    Validation(ValidationErrors),
    #[error("the service window with {0} is closed")]
    WindowClosed(PhoneNumber),
    #[error("the template is {0}, not APPROVED")]
    TemplateNotApproved(String),
    #[error("{0}")]
    TemplateMismatch(String),
    #[error("{0}")]
    HeaderMediaMismatch(String),
    #[error("this Idempotency-Key was used with a different request")]
    IdempotencyKeyReused,
    #[error("rate limited ({scope:?})")]
    RateLimited {
        limit: u32,
        retry_after_seconds: u64,
        scope: RateScope,
    },
    #[error("monthly quota exceeded")]
    QuotaExceeded { limit: u64, retry_after_seconds: u64 },
    /// The store or a dependency is down; the text is for the log only.
    #[error("unavailable: {0}")]
    Unavailable(String),
    /// A bug; the error is for the log only, never for the client.
    #[error("internal error: {0:#}")]
    Internal(anyhow::Error),
}

impl ApiError {
    /// A validation failure of one field.
    pub fn field(field: &str, message: impl Into<String>) -> Self {
        Self::Validation(ValidationErrors::single(field, message))
    }

    pub fn status(&self) -> StatusCode {
        match self {
            Self::Unauthenticated | Self::KeyDisabled => StatusCode::UNAUTHORIZED,
            Self::AccountInactive
            | Self::PlanForbids(_)
            | Self::WebhookLimit { .. }
            | Self::CorsForbidden => StatusCode::FORBIDDEN,
            Self::NotFound | Self::TemplateNotFound(_) => StatusCode::NOT_FOUND,
            Self::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Self::IdempotencyConflict => StatusCode::CONFLICT,
            Self::PayloadTooLarge { .. } | Self::FileTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            Self::UnsupportedMediaType | Self::NotMultipart { .. } | Self::UnsupportedFileType(_) => {
                StatusCode::UNSUPPORTED_MEDIA_TYPE
            }
            Self::InvalidJson(_) | Self::InvalidForm(_) => StatusCode::BAD_REQUEST,
            Self::Validation(_)
            | Self::WindowClosed(_)
            | Self::TemplateNotApproved(_)
            | Self::TemplateMismatch(_)
            | Self::HeaderMediaMismatch(_)
            | Self::IdempotencyKeyReused => StatusCode::UNPROCESSABLE_ENTITY,
            Self::RateLimited { .. } | Self::QuotaExceeded { .. } => StatusCode::TOO_MANY_REQUESTS,
            Self::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The stable machine code of docs/api.md §2.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Unauthenticated => "unauthenticated",
            Self::KeyDisabled => "api_key_disabled",
            Self::AccountInactive => "account_inactive",
            Self::PlanForbids(_) | Self::WebhookLimit { .. } => "plan_forbids",
            Self::CorsForbidden => "cors_forbidden",
            Self::NotFound => "not_found",
            Self::TemplateNotFound(_) => "template_not_found",
            Self::MethodNotAllowed => "method_not_allowed",
            Self::IdempotencyConflict => "idempotency_conflict",
            Self::PayloadTooLarge { .. } | Self::FileTooLarge(_) => "payload_too_large",
            Self::UnsupportedMediaType | Self::NotMultipart { .. } => "unsupported_media_type",
            Self::UnsupportedFileType(_) => "unsupported_file_type",
            Self::InvalidJson(_) | Self::InvalidForm(_) => "invalid_json",
            Self::Validation(_) => "validation_failed",
            Self::WindowClosed(_) => "service_window_closed",
            Self::TemplateNotApproved(_) => "template_not_approved",
            Self::TemplateMismatch(_) => "template_variables_mismatch",
            Self::HeaderMediaMismatch(_) => "header_media_mismatch",
            Self::IdempotencyKeyReused => "idempotency_key_reused",
            Self::RateLimited { .. } => "rate_limited",
            Self::QuotaExceeded { .. } => "quota_exceeded",
            Self::Unavailable(_) => "unavailable",
            Self::Internal(_) => "internal",
        }
    }

    fn title(&self) -> &'static str {
        match self {
            Self::Unauthenticated => "Unauthenticated",
            Self::KeyDisabled => "API key disabled",
            Self::AccountInactive => "Account inactive",
            Self::PlanForbids(_) | Self::WebhookLimit { .. } => "Not allowed by the plan",
            Self::CorsForbidden => "Cross-origin requests refused",
            Self::NotFound => "Not found",
            Self::TemplateNotFound(_) => "Template not found",
            Self::MethodNotAllowed => "Method not allowed",
            Self::IdempotencyConflict => "Idempotency conflict",
            Self::PayloadTooLarge { .. } | Self::FileTooLarge(_) => "Payload too large",
            Self::UnsupportedMediaType | Self::NotMultipart { .. } => "Unsupported media type",
            Self::UnsupportedFileType(_) => "Unsupported file type",
            Self::InvalidJson(_) => "Invalid JSON",
            Self::InvalidForm(_) => "Invalid form",
            Self::Validation(_) => "Validation failed",
            Self::WindowClosed(_) => "Service window closed",
            Self::TemplateNotApproved(_) => "Template not approved",
            Self::TemplateMismatch(_) => "Template variables mismatch",
            Self::HeaderMediaMismatch(_) => "Header media mismatch",
            Self::IdempotencyKeyReused => "Idempotency key reused",
            Self::RateLimited { .. } => "Rate limited",
            Self::QuotaExceeded { .. } => "Quota exceeded",
            Self::Unavailable(_) => "Service unavailable",
            Self::Internal(_) => "Internal error",
        }
    }

    /// The human explanation. Never carries internals: store and bug texts stay in the log.
    fn detail(&self) -> String {
        match self {
            Self::Unauthenticated => {
                "Send `Authorization: Bearer <API key>` with a valid, enabled API key.".to_owned()
            }
            Self::KeyDisabled => "This API key has been disabled; use another key.".to_owned(),
            Self::AccountInactive => {
                "The organization is suspended or closed; contact the operator.".to_owned()
            }
            Self::PlanForbids(kind) => format!(
                "The organization's plan does not allow {} messages.",
                kind.as_str()
            ),
            Self::WebhookLimit { limit } => format!(
                "The organization's plan allows {limit} webhook endpoints; delete one or change plan."
            ),
            Self::CorsForbidden => {
                "Herald's API is for servers: it sends no CORS headers and refuses browsers' preflight requests."
                    .to_owned()
            }
            Self::NotFound => "Nothing exists at this address.".to_owned(),
            Self::TemplateNotFound(reference) => format!(
                "No template named `{}` in language `{}` exists for the sender's business account.",
                reference.name, reference.language
            ),
            Self::MethodNotAllowed => "This method is not allowed on this path.".to_owned(),
            Self::IdempotencyConflict => {
                "A request with the same Idempotency-Key is still being processed; retry later.".to_owned()
            }
            Self::PayloadTooLarge { limit } => format!("The body is larger than {limit} bytes."),
            Self::FileTooLarge(detail) => format!("{detail}."),
            Self::UnsupportedFileType(detail) => format!(
                "{detail}: Herald takes PDF documents, JPEG and PNG images, and MP4 or 3GPP videos, judged from the file's bytes."
            ),
            Self::NotMultipart { json_too: true } => {
                "Send the file as `multipart/form-data`, or a JSON body (`Content-Type: application/json`) naming a `media_id` or `link`."
                    .to_owned()
            }
            Self::NotMultipart { json_too: false } => {
                "This operation takes `multipart/form-data` with the file in the `file` part.".to_owned()
            }
            Self::UnsupportedMediaType => {
                "This operation takes a JSON body: send `Content-Type: application/json`.".to_owned()
            }
            Self::InvalidJson(reason) => format!("The body is not valid JSON: {reason}"),
            Self::InvalidForm(reason) => format!("The multipart form cannot be parsed: {reason}."),
            Self::Validation(errors) => match errors.errors().len() {
                1 => "1 field is invalid; see `errors`.".to_owned(),
                n => format!("{n} fields are invalid; see `errors`."),
            },
            Self::WindowClosed(to) => format!(
                "Free-form messages to {to} need an inbound message from that number in the last 24 hours; send a template instead."
            ),
            Self::TemplateNotApproved(status) => {
                format!("The template is {status}, not APPROVED, so it cannot be sent.")
            }
            Self::TemplateMismatch(detail) => format!("The variables do not fit the template: {detail}."),
            Self::HeaderMediaMismatch(detail) => format!("{detail}."),
            Self::IdempotencyKeyReused => {
                "This Idempotency-Key was already used with a different request body.".to_owned()
            }
            Self::RateLimited {
                limit,
                retry_after_seconds,
                scope,
            } => match scope {
                RateScope::Sends => {
                    format!("The plan allows {limit} sends at once; retry after {retry_after_seconds} s.")
                }
                RateScope::Reads => format!(
                    "This key may make {limit} reads at once; retry after {retry_after_seconds} s."
                ),
                RateScope::Writes => format!(
                    "This key may make {limit} changes at once (uploads, webhook and template operations); \
                     retry after {retry_after_seconds} s."
                ),
                RateScope::FailedAuthentications => format!(
                    "Too many failed authentications from this address ({limit} a minute); retry after \
                     {retry_after_seconds} s."
                ),
                RateScope::WebhookTests => format!(
                    "This endpoint already has {limit} test events waiting to be delivered; retry after \
                     {retry_after_seconds} s."
                ),
            },
            Self::QuotaExceeded {
                limit,
                retry_after_seconds,
            } => format!(
                "The monthly quota of {limit} messages is used up; it resets in {retry_after_seconds} s."
            ),
            Self::Unavailable(_) => {
                "A dependency of Herald is unavailable; nothing was accepted. Retry later.".to_owned()
            }
            Self::Internal(_) => {
                "Something went wrong on Herald's side; quote the request id when reporting it.".to_owned()
            }
        }
    }

    /// The problem document of this error.
    pub fn problem(&self, request_id: Option<&str>) -> Problem {
        let code = self.code();
        Problem {
            type_: format!("urn:herald:error:{code}"),
            title: self.title().to_owned(),
            status: self.status().as_u16(),
            code: code.to_owned(),
            detail: self.detail(),
            request_id: request_id.map(str::to_owned),
            errors: match self {
                Self::Validation(errors) => Some(
                    errors
                        .errors()
                        .iter()
                        .map(|e| ProblemField {
                            field: e.field.clone(),
                            message: e.message.clone(),
                        })
                        .collect(),
                ),
                _ => None,
            },
        }
    }

    /// The full HTTP answer: status, problem body and the headers the contract asks for.
    pub fn to_response(&self, request_id: Option<&str>) -> HttpResponse {
        let mut response = HttpResponse::build(self.status());
        response.content_type(PROBLEM_JSON);
        match self {
            Self::Unauthenticated | Self::KeyDisabled => {
                response.insert_header((header::WWW_AUTHENTICATE, "Bearer realm=\"herald\""));
            }
            Self::RateLimited {
                limit,
                retry_after_seconds,
                ..
            } => {
                let seconds = (*retry_after_seconds).max(1);
                response.insert_header((header::RETRY_AFTER, seconds));
                response.insert_header(("RateLimit-Limit", *limit));
                response.insert_header(("RateLimit-Remaining", 0));
                response.insert_header(("RateLimit-Reset", seconds));
            }
            Self::QuotaExceeded {
                retry_after_seconds, ..
            } => {
                response.insert_header((header::RETRY_AFTER, (*retry_after_seconds).max(1)));
            }
            Self::Unavailable(_) => {
                response.insert_header((header::RETRY_AFTER, UNAVAILABLE_RETRY_AFTER_SECONDS));
            }
            _ => {}
        }
        let body = serde_json::to_string(&self.problem(request_id)).unwrap_or_else(|_| {
            // Serializing plain strings and numbers cannot fail; keep a valid body regardless.
            format!("{{\"code\":\"{}\"}}", self.code())
        });
        let mut response = response.body(body);
        response.extensions_mut().insert(ProblemCode(self.code()));
        response
    }

    /// Logs what the client must not see, with the request id, once per failed request.
    pub(crate) fn log(&self, request_id: &str) {
        match self {
            Self::Internal(error) => {
                tracing::error!(request_id, error = format!("{error:#}"), "internal error");
            }
            Self::Unavailable(reason) => {
                tracing::warn!(request_id, reason, "dependency unavailable");
            }
            _ => {}
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.status()
    }

    /// Rendered without a request id here; the request-id middleware renders it again with one, because
    /// this method cannot see the request.
    fn error_response(&self) -> HttpResponse {
        self.to_response(None)
    }
}

/// The problem `code` of an error response, kept on the response for the metrics middleware.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ProblemCode(pub(crate) &'static str);

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Unavailable(reason) => Self::Unavailable(reason),
            other => Self::Internal(anyhow::Error::new(other)),
        }
    }
}

impl From<AuthError> for ApiError {
    fn from(error: AuthError) -> Self {
        match error {
            AuthError::Unauthenticated => Self::Unauthenticated,
            AuthError::KeyDisabled => Self::KeyDisabled,
            AuthError::AccountInactive => Self::AccountInactive,
            AuthError::Store(store) => store.into(),
        }
    }
}

impl From<SendError> for ApiError {
    fn from(error: SendError) -> Self {
        match error {
            SendError::AccountInactive => Self::AccountInactive,
            SendError::PlanForbids(kind) => Self::PlanForbids(kind),
            SendError::RateLimited {
                limit,
                retry_after_seconds,
            } => Self::RateLimited {
                limit,
                retry_after_seconds: retry_after_seconds.max(1),
                scope: RateScope::Sends,
            },
            SendError::Invalid(errors) => Self::Validation(errors),
            SendError::TemplateNotFound(reference) => Self::TemplateNotFound(reference),
            SendError::TemplateNotApproved(status) => Self::TemplateNotApproved(status),
            SendError::TemplateMismatch(detail) => Self::TemplateMismatch(detail),
            SendError::HeaderMediaMismatch(detail) => Self::HeaderMediaMismatch(detail),
            SendError::WindowClosed { to } => Self::WindowClosed(to),
            SendError::FileTooLarge { limit } => Self::FileTooLarge(format!(
                "The file is larger than the plan's limit of {limit} bytes"
            )),
            SendError::QuotaExceeded {
                limit,
                retry_after_seconds,
            } => Self::QuotaExceeded {
                limit,
                retry_after_seconds: retry_after_seconds.max(1),
            },
            SendError::IdempotencyConflict => Self::IdempotencyConflict,
            SendError::IdempotencyKeyReused => Self::IdempotencyKeyReused,
            SendError::StorageFull(full) => full.into(),
            SendError::Store(store) => store.into(),
        }
    }
}

impl From<StorageFull> for ApiError {
    fn from(full: StorageFull) -> Self {
        Self::FileTooLarge(format!(
            "The organization's media storage is full: its unexpired uploads hold {} of the plan's {} \
             bytes and this file has {}; space comes back as uploads expire, 30 days after each",
            full.used, full.limit, full.size
        ))
    }
}

impl From<UploadError> for ApiError {
    fn from(error: UploadError) -> Self {
        match error {
            UploadError::Empty => Self::field("file", "the file is empty"),
            UploadError::Unsupported(detail) => Self::UnsupportedFileType(capitalized(&detail)),
            // A limit below the kind's own is the plan's (the upload was held to both).
            UploadError::TooLarge { kind, limit } if limit < kind.max_bytes() => Self::FileTooLarge(format!(
                "The file is larger than the plan's limit of {limit} bytes"
            )),
            UploadError::TooLarge { kind, limit } => Self::FileTooLarge(format!(
                "The file is larger than the {limit} bytes a {} may have",
                kind.as_str()
            )),
            UploadError::Closed => Self::Internal(anyhow::anyhow!("an upload was used after it failed")),
            UploadError::Io(error) => Self::Unavailable(format!("staging an upload: {error}")),
        }
    }
}

impl From<UploadMediaError> for ApiError {
    fn from(error: UploadMediaError) -> Self {
        match error {
            UploadMediaError::AccountInactive => Self::AccountInactive,
            UploadMediaError::PlanForbids => Self::PlanForbids(MessageKind::Media),
            UploadMediaError::TooLarge { limit } => Self::FileTooLarge(format!(
                "The file is larger than the plan's limit of {limit} bytes"
            )),
            UploadMediaError::StorageFull(full) => full.into(),
            UploadMediaError::Store(store) => store.into(),
        }
    }
}

impl From<MediaContentError> for ApiError {
    fn from(error: MediaContentError) -> Self {
        match error {
            MediaContentError::NotFound => Self::NotFound,
            MediaContentError::Unavailable(detail) => Self::Unavailable(detail),
            MediaContentError::Store(store) => store.into(),
        }
    }
}

impl From<herald_domain::ports::MediaStoreError> for ApiError {
    fn from(error: herald_domain::ports::MediaStoreError) -> Self {
        Self::Unavailable(format!("media store: {error}"))
    }
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

impl From<QueryError> for ApiError {
    fn from(error: QueryError) -> Self {
        match error {
            QueryError::NotFound => Self::NotFound,
            QueryError::Invalid(errors) => Self::Validation(errors),
            QueryError::Store(store) => store.into(),
        }
    }
}

/// Checks that a header value is what a test expects; keeps the tests below short.
#[cfg(test)]
fn header_of(response: &HttpResponse, name: header::HeaderName) -> Option<String> {
    response
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use herald_domain::template::{LanguageCode, TemplateName};

    fn body(error: &ApiError) -> serde_json::Value {
        serde_json::to_value(error.problem(Some("req_1"))).unwrap()
    }

    fn expect(error: impl Into<ApiError>, status: u16, code: &str) -> ApiError {
        let error = error.into();
        assert_eq!(error.status().as_u16(), status, "{error:?}");
        assert_eq!(error.code(), code, "{error:?}");
        let problem = body(&error);
        assert_eq!(problem["type"], format!("urn:herald:error:{code}"));
        assert_eq!(problem["status"], status);
        assert_eq!(problem["code"], code);
        assert_eq!(problem["request_id"], "req_1");
        assert!(problem["title"].as_str().is_some_and(|t| !t.is_empty()));
        assert!(problem["detail"].as_str().is_some_and(|t| !t.is_empty()));
        error
    }

    fn number() -> PhoneNumber {
        PhoneNumber::parse("+15551234567").unwrap()
    }

    #[test]
    fn every_send_error_has_its_status_and_code() {
        expect(SendError::AccountInactive, 403, "account_inactive");
        expect(SendError::PlanForbids(MessageKind::Media), 403, "plan_forbids");
        let limited = expect(
            SendError::RateLimited {
                limit: 5,
                retry_after_seconds: 0,
            },
            429,
            "rate_limited",
        );
        let response = limited.to_response(None);
        assert_eq!(header_of(&response, header::RETRY_AFTER).as_deref(), Some("1"));
        let invalid = expect(
            SendError::Invalid(ValidationErrors::single("to", "bad")),
            422,
            "validation_failed",
        );
        assert_eq!(
            body(&invalid)["errors"],
            serde_json::json!([{"field": "to", "message": "bad"}])
        );
        expect(
            SendError::TemplateNotFound(TemplateRef {
                name: TemplateName::parse("x").unwrap(),
                language: LanguageCode::parse("en").unwrap(),
            }),
            404,
            "template_not_found",
        );
        expect(
            SendError::TemplateNotApproved("PAUSED".into()),
            422,
            "template_not_approved",
        );
        let mismatch = expect(
            SendError::TemplateMismatch("body expects 3 parameters, got 2".into()),
            422,
            "template_variables_mismatch",
        );
        assert!(
            body(&mismatch)["detail"]
                .as_str()
                .unwrap()
                .contains("body expects 3 parameters, got 2")
        );
        expect(
            SendError::HeaderMediaMismatch("x".into()),
            422,
            "header_media_mismatch",
        );
        let closed = expect(
            SendError::WindowClosed { to: number() },
            422,
            "service_window_closed",
        );
        assert!(body(&closed)["detail"].as_str().unwrap().contains("+15551234567"));
        let quota = expect(
            SendError::QuotaExceeded {
                limit: 1000,
                retry_after_seconds: 3600,
            },
            429,
            "quota_exceeded",
        );
        assert_eq!(
            header_of(&quota.to_response(None), header::RETRY_AFTER).as_deref(),
            Some("3600")
        );
        expect(SendError::IdempotencyConflict, 409, "idempotency_conflict");
        expect(SendError::IdempotencyKeyReused, 422, "idempotency_key_reused");
        let down = expect(
            SendError::Store(StoreError::Unavailable("pool timed out".into())),
            503,
            "unavailable",
        );
        assert!(header_of(&down.to_response(None), header::RETRY_AFTER).is_some());
        assert!(!body(&down).to_string().contains("pool timed out"));
    }

    #[test]
    fn query_and_auth_errors_map_too() {
        expect(QueryError::NotFound, 404, "not_found");
        expect(
            QueryError::Invalid(ValidationErrors::single("limit", "x")),
            422,
            "validation_failed",
        );
        let unauth = expect(AuthError::Unauthenticated, 401, "unauthenticated");
        assert_eq!(
            header_of(&unauth.to_response(None), header::WWW_AUTHENTICATE).as_deref(),
            Some("Bearer realm=\"herald\"")
        );
        expect(AuthError::KeyDisabled, 401, "api_key_disabled");
        expect(AuthError::AccountInactive, 403, "account_inactive");
        expect(
            AuthError::Store(StoreError::Unavailable("down".into())),
            503,
            "unavailable",
        );
    }

    #[test]
    fn internals_never_reach_the_body() {
        for store in [
            StoreError::Unknown(anyhow::anyhow!("SELECT * FROM secrets")),
            StoreError::Conflict("duplicate key messages_pkey".into()),
            StoreError::NotFound,
        ] {
            let error = expect(QueryError::Store(store), 500, "internal");
            let text = body(&error).to_string();
            assert!(
                !text.contains("SELECT") && !text.contains("messages_pkey"),
                "{text}"
            );
            assert!(body(&error).get("errors").is_none());
        }
    }

    #[test]
    fn problems_are_problem_json_and_omit_errors_unless_validation() {
        let response = ApiError::NotFound.to_response(Some("req_x"));
        assert_eq!(
            header_of(&response, header::CONTENT_TYPE).as_deref(),
            Some(PROBLEM_JSON)
        );
        assert!(body(&ApiError::MethodNotAllowed).get("errors").is_none());
        assert_eq!(ApiError::MethodNotAllowed.status().as_u16(), 405);
        assert_eq!(ApiError::PayloadTooLarge { limit: 1 }.code(), "payload_too_large");
        assert_eq!(ApiError::UnsupportedMediaType.status().as_u16(), 415);
        assert_eq!(ApiError::InvalidJson("x".into()).status().as_u16(), 400);
    }
}
