//! Every error's status, code and problem document.

use super::*;
use actix_web::http::header;
use herald_domain::ports::StoreError;
use herald_domain::template::{LanguageCode, TemplateName};
use herald_domain::usecases::{AuthError, QueryError, SendError};

/// Checks that a header value is what a test expects; keeps the tests below short.
fn header_of(response: &HttpResponse, name: header::HeaderName) -> Option<String> {
    response
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

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
        SendError::WindowClosed { to: number().into() },
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

#[test]
fn read_receipt_failures_map_by_what_the_network_said() {
    use herald_domain::message::MessageError;
    use herald_domain::ports::NetworkError;
    use herald_domain::usecases::MarkReadError;
    expect(MarkReadError::NotFound, 404, "not_found");
    let refused = expect(
        MarkReadError::Network(NetworkError::Permanent(MessageError {
            code: "network_error".into(),
            title: "Invalid parameter".into(),
            detail: "Invalid message_id".into(),
            network_code: Some(100),
        })),
        422,
        "network_refused",
    );
    assert!(
        body(&refused)["detail"]
            .as_str()
            .unwrap()
            .contains("Invalid message_id")
    );
    for transient in [
        NetworkError::Retryable {
            code: Some(2),
            detail: "down".into(),
            retry_after: None,
        },
        NetworkError::Throttled {
            code: 130_429,
            detail: "slow down".into(),
            retry_after: None,
        },
        NetworkError::Credentials {
            code: Some(190),
            detail: "token expired".into(),
        },
    ] {
        let error = expect(MarkReadError::Network(transient), 503, "unavailable");
        let response = error.to_response(None);
        assert!(header_of(&response, header::RETRY_AFTER).is_some());
        assert!(!body(&error)["detail"].as_str().unwrap().contains("token"));
    }
}

#[test]
fn not_cancellable_names_the_messages_status() {
    use herald_domain::message::MessageStatus;
    for status in [
        MessageStatus::Submitted,
        MessageStatus::Sent,
        MessageStatus::Delivered,
        MessageStatus::Read,
        MessageStatus::Failed,
        MessageStatus::Cancelled,
    ] {
        let error = expect(ApiError::NotCancellable(status), 409, "not_cancellable");
        assert_eq!(
            body(&error)["detail"],
            format!(
                "The message is {}; only a scheduled or accepted message not yet taken by dispatch can be \
                 cancelled.",
                status.as_str()
            ),
            "a message past dispatch is refused by its status, no worker named"
        );
    }
    for status in [MessageStatus::Scheduled, MessageStatus::Accepted] {
        let error = expect(ApiError::NotCancellable(status), 409, "not_cancellable");
        let detail = body(&error)["detail"].as_str().unwrap().to_owned();
        assert!(
            detail.starts_with(&format!(
                "The message is {} but a dispatch worker has already taken it;",
                status.as_str()
            )),
            "{detail}"
        );
    }
}

fn many_errors(n: usize, name_len: usize) -> ValidationErrors {
    let mut errors = ValidationErrors::new();
    for i in 0..n {
        errors.push(herald_domain::FieldError::new(
            format!("{i}{}", "k".repeat(name_len)),
            "is not a field of a broadcast",
        ));
    }
    errors
}

#[test]
fn a_refusal_of_a_million_fields_answers_and_logs_a_bounded_text() {
    let error = ApiError::Validation(many_errors(1_490_000, 20));
    let response = serde_json::to_string(&error.problem(Some("req_1"))).unwrap();
    assert!(
        response.len() < 16 * 1024,
        "an answer of {} bytes",
        response.len()
    );
    let problem = body(&error);
    assert_eq!(problem["errors"].as_array().unwrap().len(), 100);
    assert_eq!(problem["errors_total"], 1_490_000);
    assert!(problem["detail"].as_str().unwrap().starts_with("1490000 fields"));
    // What tracing-actix-web writes of a refused request: `Display` and `Debug`.
    let logged = format!("{error} {error:?}");
    assert!(logged.len() < 4 * 1024, "a log text of {} bytes", logged.len());
    assert!(logged.contains("and 1489990 more"), "{logged}");
}

#[test]
fn refused_rows_are_capped_too() {
    let row_errors = many_errors(500, 1_000);
    let rejected: Vec<herald_domain::usecases::RejectedRow> = (0..10_000)
        .map(|index| herald_domain::usecases::RejectedRow {
            index,
            errors: row_errors.clone(),
        })
        .collect();
    let error = ApiError::RowsRejected {
        errors: ValidationErrors::single("recipients", "no recipient row is valid"),
        rejected,
    };
    let response = serde_json::to_string(&error.problem(Some("req_1"))).unwrap();
    assert!(
        response.len() < 512 * 1024,
        "an answer of {} bytes",
        response.len()
    );
    let problem = body(&error);
    assert_eq!(problem["rejected"].as_array().unwrap().len(), 100);
    assert_eq!(problem["rejected_total"], 10_000);
    let row = &problem["rejected"][0];
    assert_eq!(row["errors"].as_array().unwrap().len(), 10);
    assert_eq!(row["errors_total"], 500);
    // A field name a client wrote is cut.
    assert!(row["errors"][0]["field"].as_str().unwrap().len() <= 128);
    assert!(format!("{error:?}").len() < 4 * 1024);
}

#[test]
fn client_shaped_texts_are_cut_in_answers_and_logs() {
    let huge = "x".repeat(1_000_000);
    for error in [
        ApiError::InvalidJson(huge.clone()),
        ApiError::InvalidForm(huge.clone()),
        ApiError::TemplateMismatch(huge.clone()),
        ApiError::NetworkRefused(huge.clone()),
    ] {
        assert!(body(&error)["detail"].as_str().unwrap().len() < 1_024);
        assert!(format!("{error} {error:?}").len() < 2_048);
    }
}
