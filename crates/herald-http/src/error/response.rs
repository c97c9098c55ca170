//! An [`ApiError`]'s answer: status, code, title, detail, headers and the problem document.

use super::{
    ApiError, Capped, MAX_PROBLEM_ROWS, PROBLEM_JSON, Problem, ProblemCode, ProblemField, RateScope,
    UNAVAILABLE_RETRY_AFTER_SECONDS,
};
use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::{HttpResponse, ResponseError};
use herald_domain::ValidationErrors;
use herald_domain::message::MessageStatus;

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
            Self::IdempotencyConflict
            | Self::TemplateExists(_)
            | Self::NotCancellable(_)
            | Self::BroadcastNotCancellable(_)
            | Self::BroadcastNotPaused(_) => StatusCode::CONFLICT,
            Self::PayloadTooLarge { .. } | Self::FileTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            Self::UnsupportedMediaType | Self::NotMultipart { .. } | Self::UnsupportedFileType(_) => {
                StatusCode::UNSUPPORTED_MEDIA_TYPE
            }
            Self::InvalidJson(_) | Self::InvalidForm(_) => StatusCode::BAD_REQUEST,
            Self::Validation(_)
            | Self::RowsRejected { .. }
            | Self::WindowClosed(_)
            | Self::BlockWindowClosed { .. }
            | Self::RecipientOptedOut(_)
            | Self::RecipientBlocked(_)
            | Self::TemplateNotApproved(_)
            | Self::TemplateMismatch(_)
            | Self::HeaderMediaMismatch(_)
            | Self::NetworkRefused(_)
            | Self::IdempotencyKeyReused => StatusCode::UNPROCESSABLE_ENTITY,
            Self::RateLimited { .. } | Self::QuotaExceeded { .. } | Self::BroadcastQuotaExceeded { .. } => {
                StatusCode::TOO_MANY_REQUESTS
            }
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
            Self::TemplateExists(_) => "template_exists",
            Self::NotCancellable(_) => "not_cancellable",
            Self::BroadcastNotCancellable(_) => "broadcast_not_cancellable",
            Self::BroadcastNotPaused(_) => "broadcast_not_paused",
            Self::MethodNotAllowed => "method_not_allowed",
            Self::IdempotencyConflict => "idempotency_conflict",
            Self::PayloadTooLarge { .. } | Self::FileTooLarge(_) => "payload_too_large",
            Self::UnsupportedMediaType | Self::NotMultipart { .. } => "unsupported_media_type",
            Self::UnsupportedFileType(_) => "unsupported_file_type",
            Self::InvalidJson(_) | Self::InvalidForm(_) => "invalid_json",
            Self::Validation(_) | Self::RowsRejected { .. } => "validation_failed",
            Self::WindowClosed(_) | Self::BlockWindowClosed { .. } => "service_window_closed",
            Self::RecipientOptedOut(_) => "recipient_opted_out",
            Self::RecipientBlocked(_) => "recipient_blocked",
            Self::TemplateNotApproved(_) => "template_not_approved",
            Self::TemplateMismatch(_) => "template_variables_mismatch",
            Self::HeaderMediaMismatch(_) => "header_media_mismatch",
            Self::NetworkRefused(_) => "network_refused",
            Self::IdempotencyKeyReused => "idempotency_key_reused",
            Self::RateLimited { .. } => "rate_limited",
            Self::QuotaExceeded { .. } | Self::BroadcastQuotaExceeded { .. } => "quota_exceeded",
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
            Self::TemplateExists(_) => "Template exists",
            Self::NotCancellable(_) => "Not cancellable",
            Self::BroadcastNotCancellable(_) => "Broadcast not cancellable",
            Self::BroadcastNotPaused(_) => "Broadcast not paused",
            Self::MethodNotAllowed => "Method not allowed",
            Self::IdempotencyConflict => "Idempotency conflict",
            Self::PayloadTooLarge { .. } | Self::FileTooLarge(_) => "Payload too large",
            Self::UnsupportedMediaType | Self::NotMultipart { .. } => "Unsupported media type",
            Self::UnsupportedFileType(_) => "Unsupported file type",
            Self::InvalidJson(_) => "Invalid JSON",
            Self::InvalidForm(_) => "Invalid form",
            Self::Validation(_) | Self::RowsRejected { .. } => "Validation failed",
            Self::WindowClosed(_) | Self::BlockWindowClosed { .. } => "Service window closed",
            Self::RecipientOptedOut(_) => "Recipient opted out",
            Self::RecipientBlocked(_) => "Recipient blocked",
            Self::TemplateNotApproved(_) => "Template not approved",
            Self::TemplateMismatch(_) => "Template variables mismatch",
            Self::HeaderMediaMismatch(_) => "Header media mismatch",
            Self::NetworkRefused(_) => "Network refused",
            Self::IdempotencyKeyReused => "Idempotency key reused",
            Self::RateLimited { .. } => "Rate limited",
            Self::QuotaExceeded { .. } | Self::BroadcastQuotaExceeded { .. } => "Quota exceeded",
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
            Self::TemplateExists(reference) => format!(
                "A template named `{}` in language `{}` already exists for the sender's business account; \
                 edit it with PATCH /api/v1/templates/{}/{}.",
                reference.name, reference.language, reference.name, reference.language
            ),
            Self::NotCancellable(status) => not_cancellable_detail(*status),
            Self::BroadcastNotCancellable(state) => format!(
                "The broadcast is {state}: only a scheduled, running or paused broadcast can be cancelled."
            ),
            Self::BroadcastNotPaused(state) => {
                format!("The broadcast is {state}: only a paused broadcast can be resumed.")
            }
            Self::MethodNotAllowed => "This method is not allowed on this path.".to_owned(),
            Self::IdempotencyConflict => {
                "A request with the same Idempotency-Key is still being processed; retry later.".to_owned()
            }
            Self::PayloadTooLarge { limit } => format!("The body is larger than {limit} bytes."),
            Self::FileTooLarge(detail) => format!("{}.", Capped(detail)),
            Self::UnsupportedFileType(detail) => format!(
                "{}: Herald takes PDF documents, JPEG and PNG images, MP4 or 3GPP videos, AAC, AMR, MP3, MP4 or Ogg Opus audio, and WebP stickers, judged from the file's bytes.",
                Capped(detail)
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
            Self::InvalidJson(reason) => format!("The body is not valid JSON: {}", Capped(reason)),
            Self::InvalidForm(reason) => format!("The multipart form cannot be parsed: {}.", Capped(reason)),
            Self::Validation(errors) => match errors.total() {
                1 => "1 field is invalid; see `errors`.".to_owned(),
                n => format!("{n} fields are invalid; see `errors`."),
            },
            Self::RowsRejected { errors, rejected } => {
                let fields = match errors.total() {
                    1 => "1 field is invalid; see `errors`".to_owned(),
                    n => format!("{n} fields are invalid; see `errors`"),
                };
                match rejected.len() {
                    0 => format!("{fields}."),
                    1 => format!("{fields}; 1 recipient row was refused, see `rejected`. Nothing was stored."),
                    n => format!("{fields}; {n} recipient rows were refused, see `rejected`. Nothing was stored."),
                }
            }
            Self::WindowClosed(herald_domain::contact::Recipient::Number(to)) => format!(
                "Free-form messages to {to} need an inbound message from that number in the last 24 hours; send a template instead."
            ),
            Self::WindowClosed(herald_domain::contact::Recipient::Erased(_)) => {
                "Free-form messages to an erased person are never sent.".to_owned()
            }
            Self::WindowClosed(herald_domain::contact::Recipient::User(to)) => format!(
                "Free-form messages to {to} need an inbound message from that user in the last 24 hours, from the number \
                 the user id is paired with (windows are kept by number; an inbound message carrying both pairs them); \
                 send a template instead."
            ),
            Self::BlockWindowClosed { recipient, from } => format!(
                "{recipient} can be blocked only within 24 hours of their last message to {from} (the network's rule)."
            ),
            Self::RecipientOptedOut(to) => format!(
                "{} stopped marketing messages from this organization; marketing templates are refused until they resume (utility and authentication templates still go).",
                Capped(to)
            ),
            Self::RecipientBlocked(to) => {
                format!("{} is blocked by this organization; unblock them to send.", Capped(to))
            }
            Self::TemplateNotApproved(status) => {
                format!("The template is {status}, not APPROVED, so it cannot be sent.")
            }
            Self::TemplateMismatch(detail) => {
                format!("The variables do not fit the template: {}.", Capped(detail))
            }
            Self::HeaderMediaMismatch(detail) => format!("{}.", Capped(detail)),
            Self::NetworkRefused(detail) => format!("The network refused the request: {}.", Capped(detail)),
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
                RateScope::DryRuns => format!(
                    "The plan allows {limit} dry runs at once (the send rate, counted apart from sends); \
                     retry after {retry_after_seconds} s."
                ),
                RateScope::BroadcastRows => format!(
                    "The plan allows {limit} broadcast recipient rows at once, refilled at its send rate; \
                     retry after {retry_after_seconds} s, or send fewer rows."
                ),
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
            Self::BroadcastQuotaExceeded {
                limit,
                needed,
                remaining,
                retry_after_seconds,
            } => format!(
                "The broadcast needs {needed} messages but the monthly quota of {limit} has {remaining} left; a \
                 broadcast is accepted whole or not at all, so nothing was stored. Send it with at most \
                 {remaining} recipients, or after the quota resets in {retry_after_seconds} s."
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
                Self::Validation(errors) | Self::RowsRejected { errors, .. } => {
                    Some(errors.errors().iter().map(ProblemField::from).collect())
                }
                _ => None,
            },
            errors_total: match self {
                Self::Validation(errors) | Self::RowsRejected { errors, .. } => Some(errors.total()),
                _ => None,
            },
            rejected: match self {
                Self::RowsRejected { rejected, .. } if !rejected.is_empty() => Some(
                    rejected
                        .iter()
                        .take(MAX_PROBLEM_ROWS)
                        .map(super::RejectedRowResource::from)
                        .collect(),
                ),
                _ => None,
            },
            rejected_total: match self {
                Self::RowsRejected { rejected, .. } if !rejected.is_empty() => Some(rejected.len()),
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
            }
            | Self::BroadcastQuotaExceeded {
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

/// Why a cancel was refused, by the message's status: a message still `scheduled` or `accepted` was taken by a
/// dispatch worker (its job claimed); any other status is past dispatch already.
fn not_cancellable_detail(status: MessageStatus) -> String {
    const RULE: &str = "only a scheduled or accepted message not yet taken by dispatch can be cancelled";
    match status {
        MessageStatus::Scheduled | MessageStatus::Accepted => format!(
            "The message is {} but a dispatch worker has already taken it; {RULE}.",
            status.as_str()
        ),
        _ => format!("The message is {}; {RULE}.", status.as_str()),
    }
}
