//! Logging and tracing set-up, once per process: log lines on stderr, and with `otlp_endpoint` set, every
//! span exported over OTLP/HTTP (protobuf) to a collector.

use crate::config::LogFormat;
use anyhow::Context as _;
use opentelemetry::trace::{SpanId, TraceContextExt, TraceId, TracerProvider as _};
use opentelemetry::{Context, KeyValue};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{SdkTracerProvider, Span, SpanData, SpanProcessor};
use std::collections::HashMap;
use std::sync::Mutex;
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
    let provider = otlp_endpoint
        .map(|endpoint| provider(endpoint, role))
        .transpose()?;
    let spans = provider
        .as_ref()
        .map(|provider| tracing_opentelemetry::layer().with_tracer(provider.tracer("herald")));
    if provider.is_some() {
        // `traceparent` of incoming requests (tracing-actix-web reads it) and of what Herald sends on.
        opentelemetry::global::set_text_map_propagator(
            opentelemetry_sdk::propagation::TraceContextPropagator::new(),
        );
    }
    // A second init (tests) is harmless: the first subscriber stays.
    let _ = tracing_subscriber::registry()
        .with(filter)
        .with(lines)
        .with(spans)
        .try_init();
    Ok(Telemetry { provider })
}

fn provider(endpoint: &str, role: &str) -> anyhow::Result<SdkTracerProvider> {
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
        .with_span_processor(RequestIdOnEverySpan::default())
        .with_batch_exporter(exporter)
        .build())
}

/// Gives every span of a request's trace the request's id: the root span has it (tracing-actix-web), its
/// children (the use case, the store, the network call) get it here, so any span found in a trace viewer
/// leads to the request's log lines.
#[derive(Debug, Default)]
struct RequestIdOnEverySpan {
    /// By trace: the request's root span and its request id.
    open: Mutex<HashMap<TraceId, (SpanId, String)>>,
}

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
                open.insert(
                    context.trace_id(),
                    (context.span_id(), own.value.as_str().into_owned()),
                );
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
        if let Ok(mut open) = self.open.lock()
            && open
                .get(&context.trace_id())
                .is_some_and(|(root, _)| *root == context.span_id())
        {
            open.remove(&context.trace_id());
        }
    }

    fn force_flush(&self) -> OTelSdkResult {
        Ok(())
    }

    fn shutdown_with_timeout(&self, _timeout: std::time::Duration) -> OTelSdkResult {
        Ok(())
    }
}
