//! The one table translating Graph error codes into Herald's terms (docs/cloud-api.md §5.3 and the
//! classification that ends §5). Synchronous send errors and `errors[]` of status callbacks both go through
//! [`classify`], so a code means the same thing whichever way it arrives.

use herald_domain::message::MessageError;
use herald_domain::ports::NetworkError;
use herald_domain::time::Duration;

/// How dispatch must react to a network error code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorClass {
    /// The token is missing, expired or lacks a permission: an operator must fix it.
    Credentials,
    /// A rate or throughput limit: slow down and retry.
    Throttled,
    /// A transient network failure: retry the same request later.
    Retryable,
    /// The network refused the message for good.
    Permanent,
}

/// A Graph error code translated into Herald's terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reaction {
    pub class: ErrorClass,
    /// Herald's error (stable snake_case `code`, a title, the network's details, the network's code).
    pub error: MessageError,
    /// Whether the code is in the table; unknown codes are classified as permanent `network_error`.
    pub known: bool,
}

impl Reaction {
    /// The [`NetworkError`] a send answers for this reaction; `retry_after` comes from a `Retry-After` header.
    pub fn into_network_error(self, retry_after: Option<Duration>) -> NetworkError {
        let MessageError {
            detail, network_code, ..
        } = &self.error;
        match self.class {
            ErrorClass::Credentials => NetworkError::Credentials {
                code: *network_code,
                detail: detail.clone(),
            },
            ErrorClass::Throttled => NetworkError::Throttled {
                // Throttled reactions only come from known codes, so the code is always there.
                code: network_code.unwrap_or_default(),
                detail: detail.clone(),
                retry_after,
            },
            ErrorClass::Retryable => NetworkError::Retryable {
                code: *network_code,
                detail: detail.clone(),
                retry_after,
            },
            ErrorClass::Permanent => NetworkError::Permanent(self.error),
        }
    }
}

/// The table: code → (class, Herald code, title). `None` for a code Herald does not know.
fn lookup(code: i64) -> Option<(ErrorClass, &'static str, &'static str)> {
    use ErrorClass::{Credentials, Permanent, Retryable, Throttled};
    let row = match code {
        0 | 190 => (
            Credentials,
            "credentials_invalid",
            "The sender's access token is invalid or expired",
        ),
        3 | 10 | 200..=299 | 131005 => (
            Credentials,
            "permission_denied",
            "The sender's access token lacks a required permission",
        ),
        4 | 80007 => (
            Throttled,
            "rate_limited",
            "The network's API call rate limit was reached",
        ),
        130429 => (
            Throttled,
            "throughput_exceeded",
            "The sender number's throughput limit was reached",
        ),
        // Per recipient, not per sender: retrying this one message with growing backoff is right, slowing the
        // whole sender down would punish every other recipient (docs/cloud-api.md §6).
        131056 => (
            Retryable,
            "pair_rate_limited",
            "Too many messages to this recipient in a short time",
        ),
        1 | 131000 => (Retryable, "network_error", "The network failed unexpectedly"),
        2 | 131016 | 133004 => (
            Retryable,
            "network_unavailable",
            "The network is temporarily unavailable",
        ),
        131057 => (
            Retryable,
            "account_maintenance",
            "The sender's business account is in maintenance mode",
        ),
        // The Marketing Messages API will not take the send: the business has not accepted its terms, or
        // the template is not a marketing one (docs/cloud-api.md §1.6). An `auto` route resends it on the
        // Cloud API before it ever reaches here.
        131055 => (
            Permanent,
            "marketing_messages_refused",
            "The Marketing Messages API refused the message: the business has not accepted its terms, or the template is not a marketing template",
        ),
        131026 => (
            Permanent,
            "recipient_unreachable",
            "The message could not be delivered to the recipient",
        ),
        130403 => (
            Permanent,
            "recipient_blocked",
            "The business has blocked the recipient",
        ),
        131047 => (
            Permanent,
            "service_window_closed",
            "More than 24 hours have passed since the recipient last wrote",
        ),
        131021 => (
            Permanent,
            "recipient_is_sender",
            "The recipient is the sender's own number",
        ),
        131049 => (
            Permanent,
            "marketing_limited",
            "The network held the message back to limit marketing to this recipient",
        ),
        131050 => (
            Permanent,
            "recipient_opted_out",
            "The recipient stopped marketing messages",
        ),
        130472 => (
            Permanent,
            "recipient_in_experiment",
            "The recipient's number is part of a network experiment",
        ),
        131048 => (
            Permanent,
            "spam_rate_limited",
            "The sender number is restricted because earlier messages were blocked or reported",
        ),
        132000 => (
            Permanent,
            "template_variables_mismatch",
            "The number of template parameters does not match the template",
        ),
        132001 => (
            Permanent,
            "template_not_found",
            "The template does not exist in that language or is not approved",
        ),
        132005 | 132007 | 132008 | 132012 => (
            Permanent,
            "template_parameter_invalid",
            "A template parameter is invalid",
        ),
        132015 => (Permanent, "template_paused", "The template is paused"),
        132016 => (Permanent, "template_disabled", "The template is disabled"),
        131042 => (
            Permanent,
            "payment_problem",
            "The business account has a payment or eligibility problem",
        ),
        368 => (
            Permanent,
            "sender_blocked",
            "The sender is temporarily blocked for policy violations",
        ),
        130497 => (
            Permanent,
            "country_not_allowed",
            "The business account may not message users in that country",
        ),
        131031 => (Permanent, "account_locked", "The business account is locked"),
        133010 => (
            Permanent,
            "sender_not_registered",
            "The sender number is not registered on the network",
        ),
        131051 => (
            Permanent,
            "unsupported_message_type",
            "The message type is not supported",
        ),
        131053 => (
            Permanent,
            "media_upload_failed",
            "The network could not fetch or process the media",
        ),
        100 | 131008 | 131009 | 135000 => (
            Permanent,
            "invalid_parameter",
            "The network refused a parameter of the request",
        ),
        _ => return None,
    };
    Some(row)
}

/// Translates a Graph error `code` (with its `error_data.details`) into Herald's terms. Unknown codes become a
/// permanent `network_error` and are logged, so a new code shows up in the logs instead of vanishing.
pub fn classify(code: i64, details: &str) -> Reaction {
    let (class, herald_code, title, known) = match lookup(code) {
        Some((class, herald_code, title)) => (class, herald_code, title, true),
        None => {
            tracing::warn!(network_code = code, details, "unknown network error code");
            (
                ErrorClass::Permanent,
                "network_error",
                "The network refused the message",
                false,
            )
        }
    };
    Reaction {
        class,
        error: MessageError {
            code: herald_code.to_owned(),
            title: title.to_owned(),
            detail: details.to_owned(),
            network_code: Some(code),
        },
        known,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_classification_follows_the_contract() {
        for code in [0, 190, 10, 200, 299] {
            assert_eq!(classify(code, "").class, ErrorClass::Credentials, "{code}");
        }
        for code in [4, 80007, 130429] {
            assert_eq!(classify(code, "").class, ErrorClass::Throttled, "{code}");
        }
        for code in [1, 2, 131000, 131016, 131056, 131057, 133004] {
            assert_eq!(classify(code, "").class, ErrorClass::Retryable, "{code}");
        }
        let expected = [
            (131026, "recipient_unreachable"),
            (130403, "recipient_blocked"),
            (131047, "service_window_closed"),
            (131021, "recipient_is_sender"),
            (131049, "marketing_limited"),
            (131050, "recipient_opted_out"),
            (130472, "recipient_in_experiment"),
            (132000, "template_variables_mismatch"),
            (132001, "template_not_found"),
            (132005, "template_parameter_invalid"),
            (132007, "template_parameter_invalid"),
            (132008, "template_parameter_invalid"),
            (132012, "template_parameter_invalid"),
            (132015, "template_paused"),
            (132016, "template_disabled"),
            (131042, "payment_problem"),
            (368, "sender_blocked"),
            (130497, "country_not_allowed"),
            (131031, "account_locked"),
            (133010, "sender_not_registered"),
            (131051, "unsupported_message_type"),
            (131053, "media_upload_failed"),
            (100, "invalid_parameter"),
            (131008, "invalid_parameter"),
            (131009, "invalid_parameter"),
            (135000, "invalid_parameter"),
            (999_999, "network_error"),
        ];
        for (code, herald) in expected {
            let reaction = classify(code, "why");
            assert_eq!(reaction.class, ErrorClass::Permanent, "{code}");
            assert_eq!(reaction.error.code, herald, "{code}");
            assert_eq!(reaction.error.network_code, Some(code));
            assert_eq!(reaction.error.detail, "why");
        }
        assert!(!classify(999_999, "").known);
        assert!(classify(131026, "").known);
    }

    #[test]
    fn reactions_become_network_errors() {
        let retry = Some(Duration::seconds(7));
        assert_eq!(
            classify(130429, "slow").into_network_error(retry),
            NetworkError::Throttled {
                code: 130429,
                detail: "slow".into(),
                retry_after: retry
            }
        );
        assert_eq!(
            classify(190, "expired").into_network_error(None),
            NetworkError::Credentials {
                code: Some(190),
                detail: "expired".into()
            }
        );
        assert!(matches!(
            classify(131026, "").into_network_error(None),
            NetworkError::Permanent(MessageError { ref code, .. }) if code == "recipient_unreachable"
        ));
    }
}
