//! Request metrics for Prometheus (`docs/operations.md`, "Metrics"): every answer by route pattern, method
//! and status with its latency, and the sends by outcome. Every label comes from a closed set: route
//! patterns (or `unmatched`), the standard methods (or `other`), status codes and problem codes, never ids,
//! numbers or anything a client chose, so the series stay few whatever clients send; the one exception is
//! the sends' `organization` label, added only when the operator turns `metrics_organization_labels` on.

use crate::error::ProblemCode;
use actix_web::HttpMessage;
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// The organization a request's series are labelled with, set by authentication when
/// `metrics_organization_labels` is on (and only then: by default no organization is ever a label).
#[derive(Debug, Clone)]
struct OrganizationLabel(String);

/// Labels the request's send series with `organization`.
pub(crate) fn label_organization(req: &actix_web::HttpRequest, organization: &impl std::fmt::Display) {
    req.extensions_mut()
        .insert(OrganizationLabel(organization.to_string()));
}

/// What a request that matched no route is labelled, whatever its path.
const UNMATCHED: &str = "unmatched";

/// The `method` label of a request: one of the methods HTTP defines (RFC 9110 §9, and `PATCH`), else
/// `other`. A method is any token a client likes (`ZZ1`, or 100 KB of letters): as a label, each new one
/// would be a new series held until the process ends, and rendered at every scrape.
pub(crate) fn method_label(method: &actix_web::http::Method) -> &'static str {
    use actix_web::http::Method;
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::DELETE => "DELETE",
        Method::PATCH => "PATCH",
        Method::OPTIONS => "OPTIONS",
        Method::CONNECT => "CONNECT",
        Method::TRACE => "TRACE",
        _ => "other",
    }
}

/// Whether this process keeps metrics (its recorder is installed: `metrics_listen` is set). Without a
/// recorder every request's labels would still be built, about ten allocations, and dropped unread: a
/// tenth of what an accept allocates in all.
static RECORDING: AtomicBool = AtomicBool::new(false);

/// Turns the request metrics on for this process, once its metrics recorder is installed.
pub fn start_recording() {
    RECORDING.store(true, Ordering::Relaxed);
}

/// Records one request once its answer is ready.
pub(crate) async fn record(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    if !RECORDING.load(Ordering::Relaxed) {
        return next.call(req).await;
    }
    let started = Instant::now();
    let method = method_label(req.method());
    let response = next.call(req).await?;
    let route = response
        .request()
        .match_pattern()
        .unwrap_or_else(|| UNMATCHED.to_owned());
    let status = response.status();
    let seconds = started.elapsed().as_secs_f64();
    let code = response
        .response()
        .extensions()
        .get::<ProblemCode>()
        .map(|code| code.0);
    metrics::counter!(
        "herald_http_requests_total",
        "method" => method, "route" => route.clone(), "status" => status.as_str().to_owned()
    )
    .increment(1);
    metrics::histogram!(
        "herald_http_request_duration_seconds",
        "method" => method, "route" => route.clone()
    )
    .record(seconds);
    if route.starts_with("/api/v1/messages/send-") {
        let outcome = match code {
            _ if status.as_u16() == 202 => "accepted",
            Some(code) => code,
            None => "other",
        };
        let organization = response
            .request()
            .extensions()
            .get::<OrganizationLabel>()
            .map(|label| label.0.clone());
        match organization {
            Some(organization) => metrics::counter!(
                "herald_sends_total",
                "route" => route.clone(), "outcome" => outcome, "organization" => organization
            )
            .increment(1),
            None => metrics::counter!("herald_sends_total", "route" => route.clone(), "outcome" => outcome)
                .increment(1),
        }
    }
    if code == Some("rate_limited") {
        metrics::counter!("herald_rate_limited_total", "route" => route).increment(1);
    }
    Ok(response)
}
