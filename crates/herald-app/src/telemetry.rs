//! Logging and tracing set-up, once per process: log lines on stderr, and with `otlp_endpoint` set, every
//! span exported over OTLP/HTTP (protobuf) to a collector, and the trace of each accepting request kept with
//! its message ([`trace_links`]) so the message's dispatch, callbacks and webhook deliveries join it.

use crate::config::{LogFormat, traces_url};
use anyhow::Context as _;
use herald_domain::trace::{NoTraceLinks, TraceContext, TraceLinks};
use opentelemetry::propagation::TextMapPropagator as _;
use opentelemetry::trace::{SpanId, TraceContextExt, TraceId, TracerProvider as _};
use opentelemetry::{Context, KeyValue};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{SdkTracerProvider, Span, SpanData, SpanProcessor};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use tracing_opentelemetry::OpenTelemetrySpanExt as _;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::Layer as _;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

/// The attribute naming the request a span belongs to (the root span of a request has it from the start).
const REQUEST_ID: &str = "request_id";

/// Keeps the exporter of a process; [`Telemetry::shutdown`] sends what is still buffered.
#[must_use = "dropping it without shutdown loses the spans still buffered"]
pub struct Telemetry {
    provider: Option<SdkTracerProvider>,
}

impl Telemetry {
    /// Flushes and stops the span exporter, if any.
    pub fn shutdown(self) {
        if let Some(provider) = self.provider
            && let Err(error) = provider.shutdown()
        {
            tracing::warn!(%error, "flushing the last spans failed");
        }
    }
}

/// Installs the global subscriber: `RUST_LOG` filters (default `info`), text or JSON lines on stderr, and
/// when `otlp_endpoint` is given (e.g. `http://collector:4318`) an OpenTelemetry layer exporting spans to
/// `<otlp_endpoint>/v1/traces`, with the service name `herald` and the process's `role`.
///
/// # Errors
/// When the exporter cannot be built from `otlp_endpoint`.
pub fn init(format: LogFormat, otlp_endpoint: Option<&str>, role: &str) -> anyhow::Result<Telemetry> {
    let directives = std::env::var(EnvFilter::DEFAULT_ENV).ok();
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    // Colours only for a terminal: a log file or a journal gets plain text, not escape codes.
    let lines = tracing_subscriber::fmt::layer()
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr);
    let lines = match format {
        LogFormat::Text => lines.boxed(),
        LogFormat::Json => lines.json().boxed(),
    };
    let open = OpenRequests::default();
    let provider = otlp_endpoint
        .map(|endpoint| provider(endpoint, role, open.clone()))
        .transpose()?;
    let spans = provider
        .as_ref()
        .map(|provider| tracing_opentelemetry::layer().with_tracer(provider.tracer("herald")));
    if provider.is_some() {
        // `traceparent` of incoming requests (tracing-actix-web reads it) and of what Herald sends on.
        opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
        let _ = TRACE_LINKS.set(Arc::new(OtelTraceLinks { open }));
    }
    // A second init (tests) is harmless: the first subscriber stays.
    let _ = tracing_subscriber::registry()
        .with(filter)
        .with(ClientConnectionErrors {
            shown: client_errors_shown(directives.as_deref()),
        })
        .with(lines)
        .with(spans)
        .try_init();
    Ok(Telemetry { provider })
}

/// Where actix-http logs a connection that ended in an error, at ERROR whatever the cause.
const HTTP_DISPATCHER: &str = "actix_http::h1::dispatcher";

/// The kind (the `kind` label of `herald_http_connection_errors_total`) of an actix-http `stream error` line
/// that a client caused: a request that is not HTTP (answered `400` with no body before any route sees it),
/// a head over actix's limit (`431`), a connection reset or a request that never completed. None for the
/// other causes (a response body that failed, an internal error), which are the server's and stay at ERROR.
fn client_connection_error(event: &tracing::Event<'_>) -> Option<&'static str> {
    let metadata = event.metadata();
    if metadata.target() != HTTP_DISPATCHER || *metadata.level() != tracing::Level::ERROR {
        return None;
    }
    let mut message = Message::default();
    event.record(&mut message);
    let error = message.0.strip_prefix("stream error: ")?;
    [
        ("request parse error: message head is too large", "head_too_large"),
        ("request parse error", "malformed"),
        ("I/O error", "io"),
        ("request did not complete", "slow_request"),
        ("connection shutdown timeout", "shutdown_timeout"),
    ]
    .into_iter()
    .find_map(|(start, kind)| error.starts_with(start).then_some(kind))
}

/// An event's `message` field, as formatted.
#[derive(Default)]
struct Message(String);

impl tracing::field::Visit for Message {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.0 = format!("{value:?}");
        }
    }
}

/// Whether `RUST_LOG` (`directives`) asks for actix-http's dispatcher at DEBUG: only then are the client's
/// connection errors written to the log lines. Directives `Targets` cannot read (span filters) show them
/// only at a global `debug` or `trace`, which such a string cannot be told apart from: they stay hidden.
fn client_errors_shown(directives: Option<&str>) -> bool {
    directives
        .and_then(|directives| directives.parse::<tracing_subscriber::filter::Targets>().ok())
        .is_some_and(|targets| targets.would_enable(HTTP_DISPATCHER, &tracing::Level::DEBUG))
}

/// Counts a client's connection errors in `herald_http_connection_errors_total` by kind, and keeps them out
/// of the log: actix-http writes each at ERROR, so a client sending garbage (or a scanner, or a dropped
/// connection) would page whoever alerts on ERROR lines, with nothing for the operator to do. They are
/// written only when `RUST_LOG` asks for actix-http at DEBUG (`shown`).
struct ClientConnectionErrors {
    shown: bool,
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for ClientConnectionErrors {
    /// Asked once per event, before any layer sees it; `false` drops it for every layer.
    fn event_enabled(
        &self,
        event: &tracing::Event<'_>,
        _: tracing_subscriber::layer::Context<'_, S>,
    ) -> bool {
        match client_connection_error(event) {
            Some(kind) => {
                metrics::counter!("herald_http_connection_errors_total", "kind" => kind).increment(1);
                self.shown
            }
            None => true,
        }
    }
}

fn provider(endpoint: &str, role: &str, open: OpenRequests) -> anyhow::Result<SdkTracerProvider> {
    let url = traces_url(endpoint)?.to_string();
    use opentelemetry_otlp::{WithExportConfig as _, WithHttpConfig as _};
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_endpoint(url)
        .with_headers(HashMap::new())
        .build()
        .context("building the OTLP span exporter (otlp_endpoint)")?;
    let resource = Resource::builder()
        .with_service_name("herald")
        .with_attribute(KeyValue::new("herald.role", role.to_owned()))
        .build();
    Ok(SdkTracerProvider::builder()
        .with_resource(resource)
        .with_span_processor(RequestIdOnEverySpan { open })
        .with_batch_exporter(exporter)
        .build())
}

/// Gives every span of a request the request's id: the root span has it (tracing-actix-web), its
/// descendants (the use case, the store, the network call) get it here from their parent, so any span found
/// in a trace viewer leads to the request's log lines.
///
/// The id is looked up by the parent *span*, never by the trace: a trace id comes from the client's
/// `traceparent`, and two requests that send the same one (a caller fanning out, or anyone copying a
/// header) share it; keyed by trace, the second request's spans were given the first one's id.
#[derive(Debug)]
struct RequestIdOnEverySpan {
    open: OpenRequests,
}

/// A span of this process, by its trace and its own id.
type SpanKey = (TraceId, SpanId);

/// The open spans that carry a request id (a request's root span, background spans following a stored
/// context, and their descendants), with the id; each is forgotten when it ends.
type OpenRequests = Arc<Mutex<HashMap<SpanKey, String>>>;

/// More open spans than this in one process means spans are not ending; forget them rather than grow.
const MOST_OPEN_SPANS: usize = 100_000;

impl SpanProcessor for RequestIdOnEverySpan {
    fn on_start(&self, span: &mut Span, cx: &Context) {
        let Some(data) = span.exported_data() else {
            return;
        };
        let Ok(mut open) = self.open.lock() else {
            return;
        };
        let context = &data.span_context;
        let own = match data.attributes.iter().find(|kv| kv.key.as_str() == REQUEST_ID) {
            Some(own) => own.value.as_str().into_owned(),
            None => {
                let parent = cx.span().span_context().clone();
                let Some(id) = open.get(&(parent.trace_id(), parent.span_id())).cloned() else {
                    return;
                };
                opentelemetry::trace::Span::set_attribute(span, KeyValue::new(REQUEST_ID, id.clone()));
                id
            }
        };
        if open.len() >= MOST_OPEN_SPANS {
            open.clear();
        }
        // Kept while the span is open, so that its own children find the id even after the request has
        // answered (a dispatch can start before its request has answered, and go on after it).
        open.insert((context.trace_id(), context.span_id()), own);
    }

    fn on_end(&self, span: SpanData) {
        let context = &span.span_context;
        if let Ok(mut open) = self.open.lock() {
            open.remove(&(context.trace_id(), context.span_id()));
        }
    }

    fn force_flush(&self) -> OTelSdkResult {
        Ok(())
    }

    fn shutdown_with_timeout(&self, _timeout: std::time::Duration) -> OTelSdkResult {
        Ok(())
    }
}

static TRACE_LINKS: OnceLock<Arc<OtelTraceLinks>> = OnceLock::new();

/// What the use cases keep and follow traces with: the OpenTelemetry one once [`init`] has set up an
/// exporter, else nothing (no context is captured or stored).
pub fn trace_links() -> Arc<dyn TraceLinks> {
    match TRACE_LINKS.get() {
        Some(links) => links.clone(),
        None => Arc::new(NoTraceLinks),
    }
}

/// A stored context is the W3C `traceparent` of the span that accepted the message, then a space and the
/// request id when the request had one: the id is not a part of the W3C context, and spans that run after
/// the request has ended still carry it.
#[derive(Debug)]
struct OtelTraceLinks {
    open: OpenRequests,
}

const TRACEPARENT: &str = "traceparent";

impl TraceLinks for OtelTraceLinks {
    fn current(&self) -> Option<TraceContext> {
        let cx = tracing::Span::current().context();
        let key = {
            let span = cx.span();
            let context = span.span_context();
            if !context.is_valid() {
                return None;
            }
            (context.trace_id(), context.span_id())
        };
        let mut carrier = HashMap::new();
        TraceContextPropagator::new().inject_context(&cx, &mut carrier);
        let traceparent = carrier.remove(TRACEPARENT)?;
        let request_id = self.open.lock().ok().and_then(|open| open.get(&key).cloned());
        match request_id {
            Some(id) => TraceContext::parse(&format!("{traceparent} {id}")),
            None => TraceContext::parse(&traceparent),
        }
    }

    fn follow(&self, span: &tracing::Span, context: &TraceContext) {
        let (traceparent, request_id) = match context.as_str().split_once(' ') {
            Some((traceparent, id)) => (traceparent, Some(id)),
            None => (context.as_str(), None),
        };
        let carrier = HashMap::from([(TRACEPARENT.to_owned(), traceparent.to_owned())]);
        let parent = TraceContextPropagator::new().extract(&carrier);
        if !parent.span().span_context().is_valid() {
            return;
        }
        let _ = span.set_parent(parent);
        if let Some(id) = request_id {
            span.set_attribute(REQUEST_ID, id.to_owned());
        }
    }

    fn exporting(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kinds `client_connection_error` gave to the events logged inside `log`.
    fn kinds_of(log: impl FnOnce()) -> Vec<Option<&'static str>> {
        struct Kinds(Arc<Mutex<Vec<Option<&'static str>>>>);
        impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Kinds {
            fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
                if let Ok(mut kinds) = self.0.lock() {
                    kinds.push(client_connection_error(event));
                }
            }
        }
        let kinds = Arc::new(Mutex::new(Vec::new()));
        let subscriber = tracing_subscriber::registry().with(Kinds(Arc::clone(&kinds)));
        tracing::subscriber::with_default(subscriber, log);
        kinds.lock().map(|kinds| kinds.clone()).unwrap_or_default()
    }

    #[test]
    fn a_clients_connection_errors_are_told_from_the_servers() {
        let kinds = kinds_of(|| {
            let parse = "request parse error: invalid Header provided";
            tracing::error!(target: "actix_http::h1::dispatcher", "stream error: {}", parse);
            let large = "request parse error: message head is too large";
            tracing::error!(target: "actix_http::h1::dispatcher", "stream error: {}", large);
            let reset = "I/O error: Connection reset by peer (os error 104)";
            tracing::error!(target: "actix_http::h1::dispatcher", "stream error: {}", reset);
            let slow = "request did not complete within the specified timeout";
            tracing::error!(target: "actix_http::h1::dispatcher", "stream error: {}", slow);
            // The server's own failures stay errors.
            tracing::error!(target: "actix_http::h1::dispatcher", "stream error: {}", "body error: boom");
            tracing::error!(target: "actix_http::h1::dispatcher", "stream error: {}", "internal error");
            // Another module, or another level, is not actix's connection line.
            tracing::error!(target: "herald::http", "stream error: {}", parse);
            tracing::warn!(target: "actix_http::h1::dispatcher", "stream error: {}", parse);
        });
        assert_eq!(
            kinds,
            [
                Some("malformed"),
                Some("head_too_large"),
                Some("io"),
                Some("slow_request"),
                None,
                None,
                None,
                None
            ]
        );
    }

    #[test]
    fn a_clients_connection_errors_are_written_only_when_actix_is_asked_for_at_debug() {
        for (directives, shown) in [
            (None, false),
            (Some("info"), false),
            (Some("warn"), false),
            (Some("herald=debug"), false),
            (Some("info,actix_http=debug"), true),
            (Some("actix_http::h1::dispatcher=trace"), true),
            (Some("debug"), true),
            (Some("info,herald[send_message]=debug"), false),
        ] {
            assert_eq!(client_errors_shown(directives), shown, "{directives:?}");
        }
    }
}
