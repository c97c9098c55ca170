//! Graph API error bodies (docs/cloud-api.md §5.1), the one place codes map to HTTP statuses.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use serde_json::json;

use crate::wire;

/// A synchronous Cloud API error: `{"error":{message,type,code,error_data,fbtrace_id}}`.
#[derive(Debug, Clone, thiserror::Error)]
#[error("({code}) {title}: {details}")]
pub(crate) struct GraphError {
    pub(crate) status: StatusCode,
    pub(crate) code: u32,
    pub(crate) subcode: Option<u32>,
    pub(crate) title: String,
    pub(crate) details: String,
}

impl GraphError {
    fn new(status: StatusCode, code: u32, title: &str, details: impl Into<String>) -> Self {
        Self {
            status,
            code,
            subcode: None,
            title: title.to_owned(),
            details: details.into(),
        }
    }

    /// 190: missing or wrong Bearer token.
    pub(crate) fn invalid_token() -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            190,
            "Invalid OAuth access token - Cannot parse access token",
            "The access token could not be decrypted or does not match.",
        )
    }

    /// 100: a missing or malformed parameter.
    pub(crate) fn invalid_parameter(details: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, 100, "Invalid parameter", details)
    }

    /// 100 / subcode 33: an object id in the path that does not exist.
    pub(crate) fn unknown_object(id: &str, verb: &str) -> Self {
        let title = format!(
            "Unsupported {verb} request. Object with ID '{id}' does not exist, cannot be loaded due to \
             missing permissions, or does not support this operation"
        );
        Self {
            subcode: Some(33),
            ..Self::new(
                StatusCode::BAD_REQUEST,
                100,
                &title,
                "Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api",
            )
        }
    }

    /// 130429: the sender's throughput bucket is empty.
    pub(crate) fn throughput() -> Self {
        Self::new(
            StatusCode::TOO_MANY_REQUESTS,
            130429,
            "Rate limit hit",
            "Message failed to send because there were too many messages sent from this phone number \
             in a short period of time",
        )
    }

    /// 131000: the scripted transient failure of `…9998` recipients.
    pub(crate) fn something_went_wrong() -> Self {
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            131000,
            "Something went wrong",
            "Something went wrong. Please try again later.",
        )
    }

    /// 131009: a well-formed parameter whose value names nothing this number can use, such as the wamid
    /// of a reply's `context`, a reaction or a read receipt that this phone number never sent or received.
    pub(crate) fn invalid_value(details: impl Into<String>) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            131009,
            "Parameter value is not valid",
            details,
        )
    }

    /// 131021: the recipient is the sending business number itself.
    pub(crate) fn recipient_is_sender() -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            131021,
            "Recipient cannot be sender",
            "Sender and recipient phone number is the same.",
        )
    }

    /// 131048: the number is restricted because many of its earlier messages were blocked or reported
    /// (Meta's spam rate limit).
    pub(crate) fn spam_rate_limited() -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            131048,
            "Spam rate limit hit",
            "Message failed to send because there are restrictions on how many messages can be sent from this phone number. This may be because too many previous messages were blocked or flagged as spam.",
        )
    }

    /// 131047: a free-form message outside the recipient's 24 h service window.
    pub(crate) fn re_engagement() -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            131047,
            "Re-engagement message",
            "Message failed to send because more than 24 hours have passed since the customer last \
             replied to this number.",
        )
    }

    /// 130403: a message to a user on the sender's block list.
    pub(crate) fn recipient_blocked() -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            130403,
            "Recipient blocked",
            "Unable to deliver the message. This business has blocked the end user on WhatsApp.",
        )
    }

    /// 131053: a media id the sender cannot use (unknown, another number's, or of the wrong kind).
    pub(crate) fn media_unusable(details: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, 131053, "Media upload error", details)
    }

    /// 131008: a parameter the template needs is missing (a dynamic button's value, an offer's
    /// expiration, a carousel).
    pub(crate) fn missing_parameter(details: impl Into<String>) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            131008,
            "Required parameter is missing",
            details,
        )
    }

    /// 132012: a parameter of another format than the template's (text for a location header, a video for
    /// an image card).
    pub(crate) fn parameter_format(details: impl Into<String>) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            132012,
            "Parameter format does not match format in the created template",
            details,
        )
    }

    /// 132000: parameters that do not fit the template.
    pub(crate) fn template_params(details: impl Into<String>) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            132000,
            "Number of parameters does not match the expected number of params",
            details,
        )
    }

    /// 132001: no approved template with that name and language.
    pub(crate) fn template_missing(name: &str, language: &str) -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            132001,
            "Template name does not exist in the translation",
            format!("template name ({name}) does not exist in {language}"),
        )
    }

    /// 132015: the template is paused for low quality.
    pub(crate) fn template_paused(name: &str) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            132015,
            "Template is Paused",
            format!("Template {name} is paused due to low quality and cannot be sent."),
        )
    }

    /// 131055 on `/marketing_messages`: the business has not accepted the Marketing Messages API terms
    /// (docs/cloud-api.md §1.6).
    pub(crate) fn marketing_terms_not_accepted() -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            131055,
            "Method not allowed",
            "You must accept the Marketing Messages Lite API terms to use the API.",
        )
    }

    /// 131055 on `/marketing_messages`: a utility or authentication template (docs/cloud-api.md §1.6).
    pub(crate) fn marketing_templates_only() -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            131055,
            "Method not allowed",
            "Only marketing template messages are supported",
        )
    }

    /// The body Meta sends, with a fresh `fbtrace_id`.
    pub(crate) fn body(&self) -> serde_json::Value {
        let mut error = json!({
            "message": format!("(#{}) {}", self.code, self.title),
            "type": "OAuthException",
            "code": self.code,
            "error_data": { "messaging_product": "whatsapp", "details": self.details },
            "fbtrace_id": wire::fbtrace_id(),
        });
        if let (Some(subcode), Some(map)) = (self.subcode, error.as_object_mut()) {
            map.insert("error_subcode".to_owned(), subcode.into());
        }
        json!({ "error": error })
    }
}

impl ResponseError for GraphError {
    fn status_code(&self) -> StatusCode {
        self.status
    }

    fn error_response(&self) -> HttpResponse {
        let mut response = HttpResponse::build(self.status);
        if self.code == 130429 {
            // gokapso's client honours Retry-After on throughput errors; one second refills the bucket.
            response.insert_header(("Retry-After", "1"));
        }
        response.json(self.body())
    }
}
