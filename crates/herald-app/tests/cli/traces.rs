//! `otlp_endpoint`: the built binary exports its spans over OTLP/HTTP to a collector, here an in-process one
//! that decodes the protobuf export requests. A send made with a W3C `traceparent` continues the caller's
//! trace, its spans are connected, and each carries the request id. Without one, a failed request's log line
//! still carries its status.

use crate::smoke::Smoke;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message as _;
use serde_json::json;
use std::io::{BufRead, BufReader, Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// An OTLP/HTTP receiver: answers every `POST /v1/traces` with 200 and keeps the spans; answers its port too.
fn collector() -> (u16, Arc<Mutex<Vec<Span>>>) {
    let spans = Arc::new(Mutex::new(Vec::new()));
    let kept = spans.clone();
    let port = serve(move |path, body| {
        assert_eq!(path, "/v1/traces");
        let request = ExportTraceServiceRequest::decode(body).unwrap();
        kept.lock().unwrap().extend(
            request
                .resource_spans
                .into_iter()
                .flat_map(|r| r.scope_spans)
                .flat_map(|s| s.spans),
        );
    });
    (port, spans)
}

/// A minimal HTTP/1.1 server on a loopback port of its own, which it answers: hands each request's path and
/// body to `handle` and answers 200.
fn serve(handle: impl Fn(&str, &[u8]) + Send + Sync + 'static) -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let handle = Arc::new(handle);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let handle = handle.clone();
            std::thread::spawn(move || serve_connection(stream, handle.as_ref()));
        }
    });
    port
}

fn serve_connection(stream: std::net::TcpStream, handle: &dyn Fn(&str, &[u8])) {
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    loop {
        let mut length = 0;
        let mut path = String::new();
        let mut line = String::new();
        loop {
            line.clear();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let text = line.trim_end();
            if text.is_empty() {
                break;
            }
            if let Some(target) = text.strip_prefix("POST ") {
                path = target.split(' ').next().unwrap_or_default().to_owned();
            }
            if let Some((name, value)) = text.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap();
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        handle(&path, &body);
        writer
            .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")
            .unwrap();
    }
}

fn attribute(span: &Span, key: &str) -> Option<String> {
    span.attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.as_ref()?.value.as_ref())
        .map(|value| match value {
            Any::StringValue(text) => text.clone(),
            other => format!("{other:?}"),
        })
}

/// The spans of `trace` received so far, once every name of `wanted` is among them.
async fn spans_of(spans: &Mutex<Vec<Span>>, trace: &str, wanted: &[&str]) -> Vec<Span> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let ours: Vec<Span> = spans
            .lock()
            .unwrap()
            .iter()
            .filter(|span| hex::encode(&span.trace_id) == trace)
            .cloned()
            .collect();
        let names: Vec<&str> = ours.iter().map(|span| span.name.as_str()).collect();
        if wanted.iter().all(|name| names.contains(name)) {
            return ours;
        }
        assert!(
            Instant::now() < deadline,
            "spans of the trace so far: {names:?}; all: {:?}",
            spans
                .lock()
                .unwrap()
                .iter()
                .map(|span| (span.name.clone(), hex::encode(&span.trace_id)))
                .collect::<Vec<_>>()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn named<'a>(spans: &'a [Span], name: &str) -> Vec<&'a Span> {
    spans.iter().filter(|span| span.name == name).collect()
}

/// One trace from the caller's `POST` to the customer's webhook: the request, the accept, the dispatch and
/// its network call, each status the network reports, and each delivery of the message's events, every
/// span with the request's id, though all but the first two run after the request has been answered.
#[tokio::test]
async fn a_send_is_one_trace_from_the_callers_request_to_the_webhook_deliveries() {
    let (port, spans) = collector();
    let received = Arc::new(Mutex::new(0_usize));
    let counted = received.clone();
    let receiver_port = serve(move |_, _| *counted.lock().unwrap() += 1);
    let smoke = Smoke::start(vec![
        (
            "HERALD_OTLP_ENDPOINT".to_owned(),
            format!("http://127.0.0.1:{port}"),
        ),
        // The SDK's batch delay, so the test waits half a second rather than five.
        ("OTEL_BSP_SCHEDULE_DELAY".to_owned(), "200".to_owned()),
        (
            "HERALD_ALLOW_PRIVATE_WEBHOOK_TARGETS".to_owned(),
            "true".to_owned(),
        ),
        ("HERALD_ALLOW_INSECURE_WEBHOOKS".to_owned(), "true".to_owned()),
    ])
    .await;
    let endpoint = smoke
        .http
        .post(smoke.url("/api/v1/webhooks"))
        .bearer_auth(smoke.key())
        .json(&json!({ "url": format!("http://127.0.0.1:{receiver_port}/hook") }))
        .send()
        .await
        .unwrap();
    assert_eq!(endpoint.status(), 201);
    let trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    let response = smoke
        .http
        .post(smoke.url("/api/v1/messages/send-template"))
        .bearer_auth(smoke.key())
        .header("traceparent", format!("00-{trace}-00f067aa0ba902b7-01"))
        .header("x-request-id", "trace-test-1")
        .json(&json!({ "to": "+15551234567", "template": { "name": "hello_world", "language": "en_US" } }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 202);

    let ours = spans_of(
        &spans,
        trace,
        &[
            "HTTP request",
            "send_message",
            "dispatch_message",
            "network_send",
            "status_applied",
            "webhook_delivery",
        ],
    )
    .await;
    let root = named(&ours, "HTTP request")[0];
    assert_eq!(
        hex::encode(&root.parent_span_id),
        "00f067aa0ba902b7",
        "the caller's span is the parent"
    );
    // The root span computes these only when it is enabled, as it is with an exporter.
    assert_eq!(
        attribute(root, "http.route").as_deref(),
        Some("/api/v1/messages/send-template")
    );
    assert_eq!(attribute(root, "http.method").as_deref(), Some("POST"));
    // Recorded at the request's end, and only for an exporter.
    assert_eq!(
        attribute(root, "http.status_code").as_deref(),
        Some("IntValue(202)")
    );
    let send = named(&ours, "send_message")[0];
    assert_eq!(
        send.parent_span_id, root.span_id,
        "the use case runs inside the request"
    );
    let dispatch = named(&ours, "dispatch_message")[0];
    assert_eq!(
        dispatch.parent_span_id, send.span_id,
        "the dispatch follows the accept"
    );
    assert_eq!(
        named(&ours, "network_send")[0].parent_span_id,
        dispatch.span_id,
        "the network call is a part of the dispatch"
    );
    for name in ["status_applied", "webhook_delivery"] {
        for span in named(&ours, name) {
            assert_eq!(span.parent_span_id, send.span_id, "{name} follows the accept");
        }
    }
    for span in &ours {
        assert_eq!(
            attribute(span, "request_id").as_deref(),
            Some("trace-test-1"),
            "{} has no request id",
            span.name
        );
    }
    assert!(*received.lock().unwrap() > 0, "the receiver got the deliveries");
}

/// Where `http://` webhooks are allowed, a URL of another scheme is still refused as docs/api.md says (`422
/// validation_failed` on `url`), its message names both schemes this server takes, and nothing is stored.
#[tokio::test]
async fn a_webhook_url_of_another_scheme_is_refused_naming_both_allowed_schemes() {
    let smoke = Smoke::start(vec![(
        "HERALD_ALLOW_INSECURE_WEBHOOKS".to_owned(),
        "true".to_owned(),
    )])
    .await;
    let refused = smoke
        .call(
            smoke
                .http
                .post(smoke.url("/api/v1/webhooks"))
                .json(&json!({ "url": "ftp://hooks.example/in" })),
            422,
        )
        .await;
    assert_eq!(refused["code"], "validation_failed");
    assert_eq!(refused["errors"][0]["field"], "url");
    let message = refused["errors"][0]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("https://") && message.contains("http://"),
        "{message}"
    );
    let listed = smoke.get("/api/v1/webhooks").await;
    assert_eq!(listed["data"], json!([]), "nothing stored: {listed}");
}

/// Without an exporter (the defaults), a refused request's log line still names its status and its request
/// id: the request span's outcome is recorded for a failed request, whose line is written at its end.
#[tokio::test]
async fn a_refused_requests_log_line_names_its_status_and_request_id() {
    let smoke = Smoke::start(Vec::new()).await;
    let refused = smoke
        .call(
            smoke
                .http
                .post(smoke.url("/api/v1/messages/send-template"))
                .header("x-request-id", "log-line-test-1")
                .json(&json!({ "to": "12", "template": { "name": "hello_world", "language": "en_US" } })),
            422,
        )
        .await;
    assert_eq!(refused["code"], "validation_failed");
    let deadline = Instant::now() + Duration::from_secs(10);
    let line = loop {
        let log = std::fs::read_to_string(smoke.folder().join("herald.log")).unwrap_or_default();
        if let Some(line) = log
            .lines()
            .find(|line| line.contains("WARN") && line.contains("request_id=log-line-test-1"))
        {
            break line.to_owned();
        }
        assert!(Instant::now() < deadline, "no warning for the request: {log}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(line.contains("http.status_code=422"), "{line}");
}

/// Requests that send the same `traceparent` (a caller fanning out, or anyone copying the header) share a
/// trace id, not a request id: each request's use-case span carries the id of its own request, never
/// another's, although they run at the same time within one trace.
#[tokio::test]
async fn requests_sharing_a_traceparent_keep_their_own_request_ids() {
    let (port, spans) = collector();
    let smoke = Smoke::start(vec![
        (
            "HERALD_OTLP_ENDPOINT".to_owned(),
            format!("http://127.0.0.1:{port}"),
        ),
        ("OTEL_BSP_SCHEDULE_DELAY".to_owned(), "200".to_owned()),
    ])
    .await;
    let trace = "0af7651916cd43dd8448eb211c80319c";
    let sends = (0..8).map(|n| {
        smoke
            .http
            .post(smoke.url("/api/v1/messages/send-template"))
            .bearer_auth(smoke.key())
            .header("traceparent", format!("00-{trace}-b7ad6b7169203331-01"))
            .header("x-request-id", format!("shared-trace-{n}"))
            .json(
                &json!({ "to": "+15551234567", "template": { "name": "hello_world", "language": "en_US" } }),
            )
            .send()
    });
    for answer in futures::future::join_all(sends).await {
        assert_eq!(answer.unwrap().status(), 202);
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    let ours = loop {
        let ours = spans_of(&spans, trace, &["HTTP request", "send_message"]).await;
        if named(&ours, "send_message").len() >= 8 || Instant::now() > deadline {
            break ours;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let roots = named(&ours, "HTTP request");
    let sends = named(&ours, "send_message");
    assert_eq!(
        sends.len(),
        8,
        "{:?}",
        ours.iter().map(|s| &s.name).collect::<Vec<_>>()
    );
    for send in sends {
        let root = roots
            .iter()
            .find(|root| root.span_id == send.parent_span_id)
            .expect("each send_message span's request span");
        let own = attribute(root, "request_id");
        assert!(
            own.as_deref().is_some_and(|id| id.starts_with("shared-trace-")),
            "{own:?}"
        );
        assert_eq!(
            attribute(send, "request_id"),
            own,
            "a use-case span with another request's id"
        );
    }
}
