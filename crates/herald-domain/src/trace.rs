//! The trace a message's work belongs to, kept with the message so work done later, in another task or
//! process (the dispatch, the network call, the status callbacks, the customer webhook deliveries), joins
//! the trace of the request that accepted it.
//!
//! The domain keeps the context opaque: what it holds and how a span follows it is the tracing adapter's
//! business ([`TraceLinks`]); without one ([`NoTraceLinks`]) nothing is captured and nothing is stored.

use std::fmt;

/// A propagated trace context, as the tracing adapter wrote it (e.g. a W3C `traceparent` with the
/// originating request's id). At most [`TraceContext::MAX_LEN`] printable ASCII characters, so a stored
/// value is bounded and can never inject a line into a log.
#[derive(Clone, PartialEq, Eq)]
pub struct TraceContext(String);

impl TraceContext {
    /// Longer than any `traceparent` with a request id; anything longer is not ours.
    pub const MAX_LEN: usize = 512;

    /// `None` when `value` is empty, too long, or holds anything but printable ASCII.
    pub fn parse(value: &str) -> Option<Self> {
        let fits = !value.is_empty()
            && value.len() <= Self::MAX_LEN
            && value.bytes().all(|b| b.is_ascii_graphic() || b == b' ');
        fits.then(|| Self(value.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for TraceContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TraceContext({})", self.0)
    }
}

/// Connects work done later to the trace it belongs to.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
pub trait TraceLinks: Send + Sync {
    /// The context of the current span, to store with what it creates; `None` when not tracing.
    fn current(&self) -> Option<TraceContext>;

    /// Makes `span`, which has not been entered yet, a part of the trace `context` names.
    fn follow(&self, span: &tracing::Span, context: &TraceContext);

    /// Whether spans are exported (an exporter is installed).
    fn exporting(&self) -> bool;
}

/// Tracing off: nothing to capture, nothing to follow.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoTraceLinks;

impl TraceLinks for NoTraceLinks {
    fn current(&self) -> Option<TraceContext> {
        None
    }

    fn follow(&self, _: &tracing::Span, _: &TraceContext) {}

    fn exporting(&self) -> bool {
        false
    }
}

/// `span`, following `context` when there is one: the way every background step opens its span.
pub fn span_following(
    links: &dyn TraceLinks,
    span: tracing::Span,
    context: Option<&TraceContext>,
) -> tracing::Span {
    if let Some(context) = context {
        links.follow(&span, context);
    }
    span
}

/// The module the send's spans are written in: their target, which `RUST_LOG` directives name.
const SEND_TARGET: &str = "herald_domain::usecases::send";

/// The span of a send's use case (`make` builds it), or none. The request's span already gives a log line of
/// the send its context (the request id, the organization, the route), so at `info` the use case's own span
/// would be made, formatted, entered on every poll and closed for nothing (4 % of an accept's instructions).
/// It is made when an exporter records it (the message's later work joins its trace) or when `debug` is on for
/// the send's module, where the span is written (`RUST_LOG=debug`, `herald_domain=debug`, …).
pub fn send_span(links: &dyn TraceLinks, make: impl FnOnce() -> tracing::Span) -> tracing::Span {
    if links.exporting() || tracing::enabled!(target: SEND_TARGET, tracing::Level::DEBUG) {
        make()
    } else {
        tracing::Span::none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_bounded_printable_ascii_is_a_context() {
        let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 req_1";
        assert_eq!(
            TraceContext::parse(traceparent).map(|c| c.as_str().to_owned()),
            Some(traceparent.to_owned())
        );
        assert!(TraceContext::parse("").is_none());
        assert!(TraceContext::parse("a\nb").is_none());
        assert!(TraceContext::parse("é").is_none());
        assert!(TraceContext::parse(&"a".repeat(TraceContext::MAX_LEN)).is_some());
        assert!(TraceContext::parse(&"a".repeat(TraceContext::MAX_LEN + 1)).is_none());
    }

    #[test]
    fn a_send_has_its_own_span_only_for_an_exporter_or_at_debug() {
        let made = |links: &dyn TraceLinks| {
            let mut made = false;
            let _span = send_span(links, || {
                made = true;
                tracing::Span::none()
            });
            made
        };
        let logging_at = |level| {
            tracing_subscriber::fmt()
                .with_max_level(level)
                .with_writer(std::io::sink)
                .finish()
        };
        let mut exporter = MockTraceLinks::new();
        exporter.expect_exporting().return_const(true);

        tracing::subscriber::with_default(logging_at(tracing::Level::INFO), || {
            assert!(
                !made(&NoTraceLinks),
                "at info with no exporter the request's span is enough"
            );
            assert!(made(&exporter), "an exporter records the use case's span");
        });
        tracing::subscriber::with_default(logging_at(tracing::Level::DEBUG), || {
            assert!(made(&NoTraceLinks), "debug shows the use case's span");
        });
        let directives = |rust_log: &str| {
            tracing_subscriber::fmt()
                .with_env_filter(tracing_subscriber::EnvFilter::new(rust_log))
                .with_writer(std::io::sink)
                .finish()
        };
        for rust_log in [
            "info,herald_domain=debug",
            "info,herald_domain::usecases::send=debug",
        ] {
            tracing::subscriber::with_default(directives(rust_log), || {
                assert!(made(&NoTraceLinks), "{rust_log} shows the use case's span");
            });
        }
        tracing::subscriber::with_default(directives("info,herald_domain::usecases::dispatch=debug"), || {
            assert!(
                !made(&NoTraceLinks),
                "debug for another module leaves the send's span out"
            );
        });
    }
}
