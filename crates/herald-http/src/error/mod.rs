//! The one mapping from every failure to an `application/problem+json` answer (docs/api.md §2).

mod from_domain;
pub(crate) use from_domain::BroadcastChange;
mod response;
#[cfg(test)]
mod tests;

use actix_web::HttpResponse;
use herald_domain::ValidationErrors;
use herald_domain::message::MessageStatus;
use herald_domain::organization::MessageKind;
use herald_domain::template::TemplateRef;
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
    /// Present on `validation_failed` only: the invalid fields, the first 100 found (`errors_total` counts
    /// them all).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub errors: Option<Vec<ProblemField>>,
    /// With `errors`: how many field errors the request had, those past the first 100 included.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = 1)]
    pub errors_total: Option<usize>,
    /// Present on a broadcast's `validation_failed` when recipient rows were refused: the first 100, each
    /// with its index in `recipients` and its errors (field names within the row).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rejected: Option<Vec<RejectedRowResource>>,
    /// With `rejected`: how many rows were refused, those past the first 100 included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rejected_total: Option<usize>,
}

/// How many refused rows a problem lists (docs/api.md §2); `rejected_total` counts them all.
pub const MAX_PROBLEM_ROWS: usize = 100;

/// How many errors a refused row lists (docs/api.md §2); its `errors_total` counts them all.
pub const MAX_ROW_ERRORS: usize = 10;

/// The longest client-influenced text (a parser's reason, a network's explanation) a problem's `detail` or
/// a log line carries, in bytes; longer is cut at a character boundary and ends with `…`.
pub const MAX_DETAIL_TEXT_BYTES: usize = 512;

/// A recipient row of a broadcast that was left out, and why (docs/api.md §4.10).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize, ToSchema)]
pub struct RejectedRowResource {
    /// The row's position in `recipients`, from 0.
    #[schema(example = 3)]
    pub index: usize,
    /// Its errors, named within the row (`to`, `variables.body[1]`): the first 10.
    pub errors: Vec<ProblemField>,
    /// How many errors the row had, those past the first 10 included.
    #[schema(example = 1)]
    pub errors_total: usize,
}

impl From<&herald_domain::usecases::RejectedRow> for RejectedRowResource {
    fn from(row: &herald_domain::usecases::RejectedRow) -> Self {
        Self {
            index: row.index,
            errors: row
                .errors
                .errors()
                .iter()
                .take(MAX_ROW_ERRORS)
                .map(ProblemField::from)
                .collect(),
            errors_total: row.errors.total(),
        }
    }
}

impl From<&herald_domain::FieldError> for ProblemField {
    fn from(error: &herald_domain::FieldError) -> Self {
        Self {
            field: error.field.clone(),
            message: error.message.clone(),
        }
    }
}

/// Shows at most [`MAX_DETAIL_TEXT_BYTES`] of a text, cut at a character boundary: for texts a client or the
/// network shaped, which end up in answers and log lines.
pub(crate) struct Capped<'a>(pub(crate) &'a str);

impl std::fmt::Display for Capped<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.len() <= MAX_DETAIL_TEXT_BYTES {
            return f.write_str(self.0);
        }
        let mut end = MAX_DETAIL_TEXT_BYTES;
        while !self.0.is_char_boundary(end) {
            end -= 1;
        }
        f.write_str(self.0.get(..end).unwrap_or_default())?;
        f.write_str("…")
    }
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
    /// The organization's dry runs: the plan's send rate, in a bucket of their own.
    DryRuns,
    /// The organization's broadcast rows: the plan's send rate in rows, a whole broadcast at once.
    BroadcastRows,
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
///
/// Its text forms are bounded (a log line of a refusal carries both): the validation errors show their first
/// few and a count, and texts a client or the network shaped are cut to [`MAX_DETAIL_TEXT_BYTES`].
#[derive(thiserror::Error)]
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
    /// A template of this name and language already exists in the sender's business account.
    #[error("template {} ({}) exists", .0.name, .0.language)]
    TemplateExists(TemplateRef),
    /// The message is dispatching or done: only one not dispatched yet can be cancelled. Its status.
    #[error("the message is {}; it can no longer be cancelled", .0.as_str())]
    NotCancellable(MessageStatus),
    /// A broadcast that is completed or cancelled. Its state.
    #[error("the broadcast is {0}; it can no longer be cancelled")]
    BroadcastNotCancellable(&'static str),
    /// Resuming a broadcast that is not paused. Its state.
    #[error("the broadcast is {0}, not paused")]
    BroadcastNotPaused(&'static str),
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
    #[error("{}", Capped(.0))]
    FileTooLarge(String),
    /// The bytes are not an accepted file type.
    #[error("{}", Capped(.0))]
    UnsupportedFileType(String),
    #[error("invalid JSON: {}", Capped(.0))]
    InvalidJson(String),
    /// A multipart form that cannot be parsed (the contract's code is `invalid_json` too).
    #[error("invalid form: {}", Capped(.0))]
    InvalidForm(String),
    #[error("validation failed: {0}")]
    Validation(ValidationErrors),
    /// A broadcast refused as a whole: its shared fields, or every recipient row (each listed in
    /// `rejected`). Code `validation_failed`.
    #[error("validation failed: {errors}")]
    RowsRejected {
        errors: ValidationErrors,
        rejected: Vec<herald_domain::usecases::RejectedRow>,
    },
    #[error("the service window with {0} is closed")]
    WindowClosed(herald_domain::contact::Recipient),
    /// Blocking someone who has not written to the sender in the last 24 hours (the network's rule).
    #[error("{recipient} has not written to {from} in the last 24 hours")]
    BlockWindowClosed { recipient: String, from: PhoneNumber },
    /// A marketing template to someone who stopped marketing messages.
    #[error("{} stopped marketing messages", Capped(.0))]
    RecipientOptedOut(String),
    /// A send to someone the organization blocked.
    #[error("{} is blocked", Capped(.0))]
    RecipientBlocked(String),
    #[error("the template is {0}, not APPROVED")]
    TemplateNotApproved(String),
    #[error("{}", Capped(.0))]
    TemplateMismatch(String),
    #[error("{}", Capped(.0))]
    HeaderMediaMismatch(String),
    #[error("this Idempotency-Key was used with a different request")]
    IdempotencyKeyReused,
    /// The network refused a request about a message for good (e.g. marking read a message it no longer
    /// knows); the text is the network's own explanation.
    #[error("the network refused: {}", Capped(.0))]
    NetworkRefused(String),
    #[error("rate limited ({scope:?})")]
    RateLimited {
        limit: u32,
        retry_after_seconds: u64,
        scope: RateScope,
    },
    #[error("monthly quota exceeded")]
    QuotaExceeded { limit: u64, retry_after_seconds: u64 },
    /// A broadcast needs more messages than the month's quota has left: all or nothing, so nothing was
    /// stored. Code `quota_exceeded`.
    #[error("the broadcast needs {needed} messages, the quota has {remaining} left")]
    BroadcastQuotaExceeded {
        limit: u64,
        needed: u64,
        remaining: u64,
        retry_after_seconds: u64,
    },
    /// The store or a dependency is down; the text is for the log only.
    #[error("unavailable: {0}")]
    Unavailable(String),
    /// A bug; the error is for the log only, never for the client.
    #[error("internal error: {0:#}")]
    Internal(anyhow::Error),
}

impl std::fmt::Debug for ApiError {
    /// The code and the bounded text: tracing-actix-web writes an error's `Debug` into the log line of every
    /// refused request, so it must not grow with the request (a derived one would list every field error).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ApiError({}: {self})", self.code())
    }
}

/// What a handler answers: its response, or an error actix renders (an [`ApiError`] as a problem).
pub(crate) type HandlerResult = Result<HttpResponse, actix_web::Error>;

/// The problem `code` of an error response, kept on the response for the metrics middleware.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ProblemCode(pub(crate) &'static str);
