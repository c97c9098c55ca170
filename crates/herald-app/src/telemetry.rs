//! Logging and tracing set-up, once per process: log lines on stderr, and with `otlp_endpoint` set, every
//! span exported over OTLP/HTTP (protobuf) to a collector, and the trace of each accepting request kept with
//! its message ([`trace_links`]) so the message's dispatch, callbacks and webhook deliveries join it.

use crate::config::LogFormat;
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
        .with(lines)
        .with(spans)
        .try_init();
    Ok(Telemetry { provider })
}

fn provider(endpoint: &str, role: &str, open: OpenRequests) -> anyhow::Result<SdkTracerProvider> {
    let endpoint = endpoint.trim_end_matches('/');
    let url = if endpoint.ends_with("/v1/traces") {
        endpoint.to_owned()
    } else {
        format!("{endpoint}/v1/traces")
    };
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

/// Gives every span of a request's trace the request's id: the root span has it (tracing-actix-web), its
/// children (the use case, the store, the network call) get it here, so any span found in a trace viewer
/// leads to the request's log lines.
#[derive(Debug)]
struct RequestIdOnEverySpan {
    open: OpenRequests,
}

/// By trace: the open spans that brought the request id into this process (a request's root span, and
/// background spans following a stored context) and the request id; forgotten when the last of them ends.
type OpenRequests = Arc<Mutex<HashMap<TraceId, (Vec<SpanId>, String)>>>;

/// More open requests than this in one process means root spans are not ending; forget them rather than grow.
const MOST_OPEN_REQUESTS: usize = 100_000;

impl SpanProcessor for RequestIdOnEverySpan {
    fn on_start(&self, span: &mut Span, cx: &Context) {
        let Some(data) = span.exported_data() else {
            return;
        };
        let Ok(mut open) = self.open.lock() else {
            return;
        };
        let context = &data.span_context;
        match data.attributes.iter().find(|kv| kv.key.as_str() == REQUEST_ID) {
            Some(own) => {
                if open.len() >= MOST_OPEN_REQUESTS {
                    open.clear();
                }
                // A dispatch can start before its request has answered, and go on after it: the id stays
                // known while either is open.
                open.entry(context.trace_id())
                    .or_insert_with(|| (Vec::new(), own.value.as_str().into_owned()))
                    .0
                    .push(context.span_id());
            }
            None => {
                let trace = cx.span().span_context().trace_id();
                if let Some((_, id)) = open.get(&trace).or_else(|| open.get(&context.trace_id())) {
                    opentelemetry::trace::Span::set_attribute(span, KeyValue::new(REQUEST_ID, id.clone()));
                }
            }
        }
    }

    fn on_end(&self, span: SpanData) {
        let context = &span.span_context;
        let Ok(mut open) = self.open.lock() else {
            return;
        };
        if let Some((spans, _)) = open.get_mut(&context.trace_id())
            && let Some(at) = spans.iter().position(|id| *id == context.span_id())
        {
            spans.swap_remove(at);
            if spans.is_empty() {
                open.remove(&context.trace_id());
            }
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
        let trace_id = {
            let span = cx.span();
            let context = span.span_context();
            if !context.is_valid() {
                return None;
            }
            context.trace_id()
        };
        let mut carrier = HashMap::new();
        TraceContextPropagator::new().inject_context(&cx, &mut carrier);
        let traceparent = carrier.remove(TRACEPARENT)?;
        let request_id = self
            .open
            .lock()
            .ok()
            .and_then(|open| open.get(&trace_id).map(|(_, id)| id.clone()));
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
}
