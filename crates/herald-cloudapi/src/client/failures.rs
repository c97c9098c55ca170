//! How the client turns what went wrong on the wire into the dispatch's [`NetworkError`] reactions.

use crate::errors::classify;
use herald_domain::message::MessageError;
use herald_domain::ports::NetworkError;
use herald_domain::time::{Duration, bounded_delay, bounded_seconds};
use reqwest::StatusCode;
use reqwest::header::{HeaderMap, RETRY_AFTER};
use serde::Deserialize;

/// A media lookup or download is a GET: when its outcome is unknown, asking again is safe.
pub(super) fn idempotent(error: NetworkError) -> NetworkError {
    match error {
        NetworkError::OutcomeUnknown { detail } => NetworkError::Retryable {
            code: None,
            detail,
            retry_after: None,
        },
        other => other,
    }
}

pub(super) fn media_not_found(network_media_id: &str, why: &str) -> NetworkError {
    NetworkError::Permanent(MessageError {
        code: "media_not_found".into(),
        title: "The network does not have this media".into(),
        detail: format!("media {network_media_id}: {why}"),
        network_code: None,
    })
}

pub(super) fn download_refused(network_media_id: &str, url: &reqwest::Url) -> NetworkError {
    let host = url.host_str().unwrap_or("?");
    tracing::warn!(
        media = network_media_id,
        host,
        scheme = url.scheme(),
        "refusing a media download URL outside the Cloud API base and the allowed media hosts"
    );
    NetworkError::Permanent(MessageError {
        code: "media_download_refused".into(),
        title: "The network's download URL is not allowed".into(),
        detail: format!(
            "media {network_media_id}: the download URL points to {}://{host}, which is neither the Cloud API \
             base URL nor an allowed media host",
            url.scheme()
        ),
        network_code: None,
    })
}

/// A failed media lookup or download: an id the network does not know (Graph code 100, or a bare 400/404) is
/// `media_not_found`; anything else is classified as for a send.
pub(super) fn lookup_error(
    network_media_id: &str,
    status: StatusCode,
    headers: &HeaderMap,
    body: &[u8],
) -> NetworkError {
    let graph_code = serde_json::from_slice::<GraphErrorBody>(body)
        .ok()
        .map(|b| b.error.code);
    let unknown = match graph_code {
        Some(code) => code == 100,
        None => status == StatusCode::NOT_FOUND || status == StatusCode::BAD_REQUEST,
    };
    if unknown {
        return media_not_found(network_media_id, "the network does not know it (any more)");
    }
    error_response(status, headers, body)
}

/// A 200 whose body cannot be read: the network probably took the message, so resending could duplicate it.
pub(super) fn unreadable_success(why: &str) -> NetworkError {
    NetworkError::OutcomeUnknown {
        detail: format!("the network answered 200 but the answer could not be read: {why}"),
    }
}

/// Nothing was sent when the connection failed; anything later may have reached the network.
pub(super) fn transport_error(error: reqwest::Error) -> NetworkError {
    let (connect, builder, timeout) = (error.is_connect(), error.is_builder(), error.is_timeout());
    // The URL can carry query parameters of a paging link; keep it out of details that end up in logs.
    let detail = error.without_url().to_string();
    if connect {
        NetworkError::Retryable {
            code: None,
            detail: format!("could not connect to the network: {detail}"),
            retry_after: None,
        }
    } else if builder {
        // The request never left, so repeating it is safe (if pointless until the configuration is fixed).
        NetworkError::Retryable {
            code: None,
            detail: format!("the request could not be built: {detail}"),
            retry_after: None,
        }
    } else if timeout {
        NetworkError::OutcomeUnknown {
            detail: format!("the network did not answer in time: {detail}"),
        }
    } else {
        NetworkError::OutcomeUnknown {
            detail: format!("the connection failed after the request was sent: {detail}"),
        }
    }
}

/// Translates a non-2xx answer: the Graph error `code` decides when there is one; the HTTP status otherwise.
pub(super) fn error_response(status: StatusCode, headers: &HeaderMap, body: &[u8]) -> NetworkError {
    let retry_after = retry_after(headers);
    let graph = serde_json::from_slice::<GraphErrorBody>(body)
        .ok()
        .map(|b| b.error);
    if let Some(error) = graph {
        let details = error
            .error_data
            .and_then(|d| d.details)
            .or(error.message)
            .unwrap_or_default();
        let reaction = classify(error.code, &details);
        if !reaction.known && status.is_server_error() {
            return NetworkError::Retryable {
                code: Some(error.code),
                detail: format!("HTTP {status}: {details}"),
                retry_after,
            };
        }
        if !reaction.known && status == StatusCode::UNAUTHORIZED {
            return NetworkError::Credentials {
                code: Some(error.code),
                detail: details,
            };
        }
        return reaction.into_network_error(retry_after);
    }
    let detail = format!("the network answered HTTP {status} without a Graph error");
    // 408: the server gave up reading the request before it had all of it, so nothing was done with it and
    // sending it again is safe (a loaded server answers it; failing the message for it lost messages).
    if status.is_server_error()
        || status == StatusCode::TOO_MANY_REQUESTS
        || status == StatusCode::REQUEST_TIMEOUT
    {
        NetworkError::Retryable {
            code: None,
            detail,
            retry_after,
        }
    } else if status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN {
        NetworkError::Credentials { code: None, detail }
    } else {
        tracing::warn!(http_status = %status, "the network refused a request without a Graph error");
        NetworkError::Permanent(MessageError {
            code: "network_error".into(),
            title: "The network refused the message".into(),
            detail,
            network_code: None,
        })
    }
}

/// `Retry-After` as seconds or as an HTTP date, held to the domain's longest delay (whatever the header says,
/// no time computed from it can overflow).
pub(super) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(seconds) = value.parse::<i64>() {
        return (seconds >= 0).then(|| bounded_seconds(seconds));
    }
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        // Digits past what an i64 holds are still a (very long) number of seconds.
        return Some(bounded_seconds(i64::MAX));
    }
    let at = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    let wait = at
        .with_timezone(&chrono::Utc)
        .signed_duration_since(chrono::Utc::now());
    Some(bounded_delay(wait))
}

/// The Graph API's error body (docs/cloud-api.md §5.1), as far as the client reads it.
#[derive(Debug, Deserialize)]
struct GraphErrorBody {
    error: GraphError,
}

#[derive(Debug, Deserialize)]
struct GraphError {
    code: i64,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    error_data: Option<ErrorData>,
}

#[derive(Debug, Deserialize)]
struct ErrorData {
    #[serde(default)]
    details: Option<String>,
}
