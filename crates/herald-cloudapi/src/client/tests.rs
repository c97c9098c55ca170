use super::failures::retry_after;
use super::*;
use herald_domain::time::Duration;
use reqwest::header::HeaderValue;
use reqwest::header::RETRY_AFTER;

#[test]
fn retry_after_reads_seconds_and_dates() {
    let mut headers = HeaderMap::new();
    assert_eq!(retry_after(&headers), None);
    headers.insert(RETRY_AFTER, HeaderValue::from_static("30"));
    assert_eq!(retry_after(&headers), Some(Duration::seconds(30)));
    headers.insert(
        RETRY_AFTER,
        HeaderValue::from_static("Sun, 06 Nov 1994 08:49:37 GMT"),
    );
    assert_eq!(retry_after(&headers), Some(Duration::zero()));
    headers.insert(RETRY_AFTER, HeaderValue::from_static("soon"));
    assert_eq!(retry_after(&headers), None);
    headers.insert(RETRY_AFTER, HeaderValue::from_static("-3"));
    assert_eq!(retry_after(&headers), None);
}

/// Seconds past what a `Duration` holds (which made `Duration::seconds` panic) or past an i64, and a date
/// at the end of time, all come out as the longest delay.
#[test]
fn retry_after_is_bounded_however_large() {
    let longest = Duration::days(herald_domain::time::LONGEST_DELAY_DAYS);
    let mut headers = HeaderMap::new();
    for huge in [
        "99999999999999999",
        "9223372036854775807",
        "99999999999999999999999999",
        "Fri, 31 Dec 9999 23:59:59 GMT",
    ] {
        headers.insert(RETRY_AFTER, HeaderValue::from_static(huge));
        assert_eq!(retry_after(&headers), Some(longest), "{huge}");
    }
}

#[test]
fn media_downloads_stay_on_the_base_origin_or_allowed_hosts() {
    let url = |u: &str| reqwest::Url::parse(u).unwrap();
    let meta = MediaHosts::new(
        url("https://graph.facebook.com/v23.0"),
        &[META_MEDIA_HOST.to_owned()],
    )
    .unwrap();
    assert!(meta.allows(&url(
        "https://lookaside.fbsbx.com/whatsapp_business/attachments/?mid=1"
    )));
    assert!(meta.allows(&url("https://LOOKASIDE.fbsbx.com/x")));
    assert!(meta.allows(&url("https://graph.facebook.com/elsewhere")));
    assert!(
        !meta.allows(&url("http://lookaside.fbsbx.com/x")),
        "no downgrade to http"
    );
    assert!(
        !meta.allows(&url("https://lookaside.fbsbx.com:8443/x")),
        "only the default port"
    );
    assert!(!meta.allows(&url("https://lookaside.fbsbx.com.evil.example/x")));
    assert!(!meta.allows(&url("https://evil.lookaside.fbsbx.com/x")));
    assert!(!meta.allows(&url("https://169.254.169.254/latest/meta-data")));
    assert!(!meta.allows(&url("https://user:pw@lookaside.fbsbx.com/x")));
    assert!(
        !meta.allows(&url("http://graph.facebook.com/x")),
        "same host, other origin"
    );

    let local = MediaHosts::new(
        url("http://127.0.0.1:8080/simulator/v23.0"),
        &["localhost:9000".to_owned()],
    )
    .unwrap();
    assert!(local.allows(&url("http://127.0.0.1:8080/simulator/media-download/1")));
    assert!(!local.allows(&url("http://127.0.0.1:8081/simulator/media-download/1")));
    assert!(local.allows(&url("http://localhost:9000/x")));
    assert!(!local.allows(&url("http://localhost:9001/x")));
    assert!(MediaHosts::new(url("https://graph.facebook.com"), &["https://x/y".to_owned()]).is_err());
}

#[test]
fn unknown_codes_follow_the_http_status() {
    let body = br#"{"error":{"code":424242,"message":"odd"}}"#;
    let headers = HeaderMap::new();
    assert!(matches!(
        error_response(StatusCode::BAD_GATEWAY, &headers, body),
        NetworkError::Retryable {
            code: Some(424242),
            ..
        }
    ));
    assert!(matches!(
        error_response(StatusCode::NOT_FOUND, &headers, b"<html>"),
        NetworkError::Permanent(MessageError {
            network_code: None,
            ..
        })
    ));
    assert!(matches!(
        error_response(StatusCode::FORBIDDEN, &headers, b""),
        NetworkError::Credentials { code: None, .. }
    ));
    // The server stopped reading before it had the request: nothing was done, so it is sent again.
    assert!(matches!(
        error_response(StatusCode::REQUEST_TIMEOUT, &headers, b""),
        NetworkError::Retryable { code: None, .. }
    ));
    // A known code wins over the HTTP status.
    assert!(matches!(
        error_response(
            StatusCode::INTERNAL_SERVER_ERROR,
            &headers,
            br#"{"error":{"code":131026}}"#
        ),
        NetworkError::Permanent(MessageError {
            network_code: Some(131026),
            ..
        })
    ));
}
