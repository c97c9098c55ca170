//! `X-Request-Id`: echoed when the client's is safe, generated otherwise; carried into problem bodies
//! and the request's tracing span.

use crate::error::ApiError;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{FromRequest, HttpMessage, HttpRequest};
use std::future::{Ready, ready};
use tracing::Span;
use tracing_actix_web::{DefaultRootSpanBuilder, RootSpan, RootSpanBuilder};

/// The header carrying the request id, both ways.
pub const X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The longest client-supplied id that is echoed.
const MAX_CLIENT_ID_LEN: usize = 128;

/// The id of one request, as answered in `X-Request-Id` and in problem bodies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestId(String);

impl RequestId {
    /// The client's id when it is 1 to 128 characters of `[A-Za-z0-9._-]`, else a fresh `req_<ulid>`.
    ///
    /// Anything else is replaced rather than echoed, so a client cannot inject header or log content.
    pub fn from_client(value: Option<&str>) -> Self {
        match value {
            Some(id) if is_safe(id) => Self(id.to_owned()),
            _ => Self::generate(),
        }
    }

    pub fn generate() -> Self {
        Self(format!("req_{}", ulid::Ulid::new()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

fn is_safe(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_CLIENT_ID_LEN
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

impl FromRequest for RequestId {
    type Error = std::convert::Infallible;
    type Future = Ready<Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(Ok(req
            .extensions()
            .get::<Self>()
            .cloned()
            .unwrap_or_else(Self::generate)))
    }
}

/// Paths whose errors are all problem documents, even those raised by actix itself. Routes other crates
/// mount (the simulator speaks the Cloud API's error format) are left alone.
fn is_contract_path(path: &str) -> bool {
    path == "/api/v1" || path.starts_with("/api/v1/") || matches!(path, "/healthz" | "/readyz" | "/docs")
}

/// Assigns the request id, renders every [`ApiError`] as a problem carrying it, and sets the header.
pub(crate) async fn middleware(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let id = RequestId::from_client(
        req.headers()
            .get(X_REQUEST_ID)
            .and_then(|value| value.to_str().ok()),
    );
    req.extensions_mut().insert(id.clone());
    let contract_path = is_contract_path(req.path());
    // The request cannot be kept to rebuild a response from an `Err`: routing needs it unshared. Herald's
    // own handlers and middleware turn every error into a response, so an `Err` here comes from a
    // service mounted by another crate, and actix renders it.
    let response = next.call(req).await?.map_into_boxed_body();
    let mut response = render_problem(response, &id, contract_path);
    if let Ok(value) = HeaderValue::from_str(id.as_str()) {
        response.headers_mut().insert(X_REQUEST_ID, value);
    }
    Ok(response)
}

fn render_problem(
    response: ServiceResponse<BoxBody>,
    id: &RequestId,
    contract_path: bool,
) -> ServiceResponse<BoxBody> {
    let rendered = response.response().error().and_then(|error| {
        if let Some(api) = error.as_error::<ApiError>() {
            api.log(id.as_str());
            return Some(api.to_response(Some(id.as_str())));
        }
        if !contract_path {
            return None;
        }
        let fallback = match error.as_response_error().status_code().as_u16() {
            400 => ApiError::InvalidJson("the request could not be read".to_owned()),
            404 => ApiError::NotFound,
            405 => ApiError::MethodNotAllowed,
            413 => ApiError::PayloadTooLarge {
                limit: crate::json_body::JSON_LIMIT_BYTES,
            },
            415 => ApiError::UnsupportedMediaType,
            500..=599 => ApiError::Internal(anyhow::anyhow!("{error}")),
            _ => return None,
        };
        fallback.log(id.as_str());
        Some(fallback.to_response(Some(id.as_str())))
    });
    match rendered {
        Some(problem) => response.into_response(problem),
        None => response,
    }
}

/// Records the caller's organization in the request span, once authentication knows it.
pub(crate) fn record_organization(req: &HttpRequest, organization: &impl std::fmt::Display) {
    if let Some(span) = req.extensions().get::<RootSpan>() {
        span.record("organization_id", tracing::field::display(organization));
    }
}

/// The request span: Herald's request id (not tracing-actix-web's own UUID) and, once known, the
/// organization. Headers are not recorded, so the `Authorization` header never reaches a log.
pub struct HeraldRootSpan;

impl RootSpanBuilder for HeraldRootSpan {
    fn on_request_start(request: &ServiceRequest) -> Span {
        let extensions = request.extensions();
        let request_id = extensions.get::<RequestId>().map_or("", RequestId::as_str);
        // The field values are computed only when the span is enabled (`info_span!` evaluates them after its
        // level check): the route lookup is per-request work nobody reads when the log level is above `info`
        // and no exporter runs.
        let span = tracing::info_span!(
            "HTTP request",
            http.method = %request.method(),
            http.route = %request.match_pattern().unwrap_or_else(|| "default".to_owned()),
            http.target = %request.path(),
            request_id = %request_id,
            organization_id = tracing::field::Empty,
            http.status_code = tracing::field::Empty,
            otel.status_code = tracing::field::Empty,
            exception.message = tracing::field::Empty,
            exception.details = tracing::field::Empty,
        );
        drop(extensions);
        if span.is_disabled() {
            return span;
        }
        // A caller's W3C `traceparent` makes this request a part of the caller's trace. Without an exporter
        // the global propagator is a no-op and this costs nothing.
        let parent = opentelemetry::global::get_text_map_propagator(|propagator| {
            propagator.extract(&HeaderExtractor(request.headers()))
        });
        if tracing_opentelemetry::OpenTelemetrySpanExt::set_parent(&span, parent).is_ok() {
            request.extensions_mut().insert(Exported);
        }
        span
    }

    fn on_request_end<B: MessageBody>(span: Span, outcome: &Result<ServiceResponse<B>, actix_web::Error>) {
        // A log line carries the span's fields as they were when it was written. A failed request gets its line
        // right after this (tracing-actix-web's WARN for a 4xx, ERROR for a 5xx, inside the span), so its
        // outcome is recorded for that line. A successful one writes nothing after its end: only an exporter
        // reads its outcome, and recording it for no reader cost each accept about 2,900 instructions (issue
        // 18). An `Err` here comes from a service mounted by another crate; it is recorded as before.
        let recorded = match outcome {
            Ok(response) => {
                response.response().error().is_some()
                    || response.request().extensions().contains::<Exported>()
            }
            Err(_) => true,
        };
        if recorded {
            DefaultRootSpanBuilder::on_request_end(span, outcome);
        }
    }
}

/// Marks a request whose span an exporter records (the OpenTelemetry layer took its parent).
struct Exported;

/// Reads propagation headers (`traceparent`, `tracestate`) from a request.
struct HeaderExtractor<'a>(&'a actix_web::http::header::HeaderMap);

impl opentelemetry::propagation::Extractor for HeaderExtractor<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|value| value.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0
            .keys()
            .map(actix_web::http::header::HeaderName::as_str)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_client_ids_are_echoed() {
        for id in ["abc", "req-1.2_3", &"a".repeat(128), "0"] {
            assert_eq!(RequestId::from_client(Some(id)).as_str(), id);
        }
    }

    #[test]
    fn unsafe_or_missing_ids_are_replaced() {
        let too_long = "a".repeat(129);
        for id in [
            None,
            Some(""),
            Some(too_long.as_str()),
            Some("has space"),
            Some("new\nline"),
            Some("semi;colon"),
            Some("ünï"),
            Some("a/b"),
        ] {
            let generated = RequestId::from_client(id);
            assert!(generated.as_str().starts_with("req_"), "{id:?}");
            assert_eq!(generated.as_str().len(), 4 + 26, "{id:?}");
            assert!(ulid::Ulid::from_string(&generated.as_str()[4..]).is_ok());
        }
    }

    #[test]
    fn generated_ids_differ() {
        assert_ne!(RequestId::generate(), RequestId::generate());
    }

    #[test]
    fn contract_paths() {
        assert!(is_contract_path("/api/v1/messages"));
        assert!(is_contract_path("/healthz"));
        assert!(!is_contract_path("/simulator/v21.0/123/messages"));
        assert!(!is_contract_path("/api/v10"));
    }

    /// The names of the fields recorded in any span after its creation.
    #[derive(Clone, Default)]
    struct Recorded(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

    impl<S> tracing_subscriber::Layer<S> for Recorded
    where
        S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
    {
        fn on_record(
            &self,
            _: &tracing::span::Id,
            values: &tracing::span::Record<'_>,
            _: tracing_subscriber::layer::Context<'_, S>,
        ) {
            struct Names<'a>(&'a mut Vec<String>);
            impl tracing::field::Visit for Names<'_> {
                fn record_debug(&mut self, field: &tracing::field::Field, _: &dyn std::fmt::Debug) {
                    self.0.push(field.name().to_owned());
                }
            }
            let mut names = self.0.lock().unwrap();
            values.record(&mut Names(&mut names));
        }
    }

    /// Answers one request to `path` through the request span's middleware (`/` answers `200`, `/bad` a `400`
    /// error); returns its status.
    async fn one_request(path: &str) -> u16 {
        use actix_web::{App, error, test, web};
        let app = test::init_service(
            App::new()
                .wrap(tracing_actix_web::TracingLogger::<HeraldRootSpan>::new())
                .route("/", web::get().to(|| async { "ok" }))
                .route(
                    "/bad",
                    web::get().to(|| async { Err::<String, _>(error::ErrorBadRequest("refused")) }),
                ),
        )
        .await;
        test::call_service(&app, test::TestRequest::get().uri(path).to_request())
            .await
            .status()
            .as_u16()
    }

    /// What the log lines were given, as text.
    #[derive(Clone, Default)]
    struct Lines(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

    impl std::io::Write for Lines {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[actix_rt::test]
    async fn the_outcome_of_a_success_is_recorded_in_the_request_span_only_for_an_exporter() {
        use tracing_subscriber::layer::SubscriberExt as _;

        let recorded = Recorded::default();
        let logged = tracing_subscriber::registry()
            .with(tracing_subscriber::fmt::layer().with_writer(std::io::sink))
            .with(recorded.clone());
        let status = {
            let _default = tracing::subscriber::set_default(logged);
            one_request("/").await
        };
        assert_eq!(status, 200);
        assert!(
            !recorded
                .0
                .lock()
                .unwrap()
                .iter()
                .any(|name| name == "http.status_code"),
            "log lines alone: no outcome recorded: {:?}",
            recorded.0.lock().unwrap()
        );

        let recorded = Recorded::default();
        let provider = opentelemetry_sdk::trace::SdkTracerProvider::builder().build();
        let exported = tracing_subscriber::registry()
            .with(tracing_subscriber::fmt::layer().with_writer(std::io::sink))
            .with(
                tracing_opentelemetry::layer()
                    .with_tracer(opentelemetry::trace::TracerProvider::tracer(&provider, "test")),
            )
            .with(recorded.clone());
        let status = {
            let _default = tracing::subscriber::set_default(exported);
            one_request("/").await
        };
        assert_eq!(status, 200);
        let names = recorded.0.lock().unwrap();
        assert!(
            names.iter().any(|name| name == "http.status_code")
                && names.iter().any(|name| name == "otel.status_code"),
            "an exporter gets the outcome: {names:?}"
        );
    }

    #[actix_rt::test]
    async fn a_failed_requests_log_line_shows_its_status() {
        use tracing_subscriber::layer::SubscriberExt as _;

        let lines = Lines::default();
        let writer = lines.clone();
        let logged = tracing_subscriber::registry().with(
            tracing_subscriber::fmt::layer()
                .with_ansi(false)
                .with_writer(move || writer.clone()),
        );
        let status = {
            let _default = tracing::subscriber::set_default(logged);
            one_request("/bad").await
        };
        assert_eq!(status, 400);
        let text = String::from_utf8(lines.0.lock().unwrap().clone()).unwrap();
        let line = text
            .lines()
            .find(|line| line.contains("WARN"))
            .unwrap_or_else(|| panic!("a warning for the failed request: {text}"));
        assert!(
            line.contains("http.status_code=400") && line.contains("refused"),
            "the line names the status and the error: {line}"
        );
    }
}
