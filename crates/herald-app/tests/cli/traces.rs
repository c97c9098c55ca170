//! `otlp_endpoint`: the built binary exports its spans over OTLP/HTTP to a collector, here an in-process one
//! that decodes the protobuf export requests. A send made with a W3C `traceparent` continues the caller's
//! trace, its spans are connected, and each carries the request id.

use crate::free_port;
use crate::smoke::Smoke;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message as _;
use serde_json::json;
use std::io::{BufRead, BufReader, Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// An OTLP/HTTP receiver: answers every `POST /v1/traces` with 200 and keeps the spans.
fn collector(port: u16) -> Arc<Mutex<Vec<Span>>> {
    let spans = Arc::new(Mutex::new(Vec::new()));
    let listener = std::net::TcpListener::bind(("127.0.0.1", port)).unwrap();
    let kept = spans.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let kept = kept.clone();
            std::thread::spawn(move || serve_connection(stream, &kept));
        }
    });
    spans
}

fn serve_connection(stream: std::net::TcpStream, kept: &Mutex<Vec<Span>>) {
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
        assert_eq!(path, "/v1/traces");
        let request = ExportTraceServiceRequest::decode(body.as_slice()).unwrap();
        kept.lock().unwrap().extend(
            request
                .resource_spans
                .into_iter()
                .flat_map(|r| r.scope_spans)
                .flat_map(|s| s.spans),
        );
        writer
            .write_all(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\n\r\n",
            )
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

#[tokio::test]
async fn a_send_continues_the_callers_trace_with_connected_spans_carrying_the_request_id() {
    let port = free_port();
    let spans = collector(port);
    let smoke = Smoke::start(vec![
        (
            "HERALD_OTLP_ENDPOINT".to_owned(),
            format!("http://127.0.0.1:{port}"),
        ),
        // The SDK's batch delay, so the test waits half a second rather than five.
        ("OTEL_BSP_SCHEDULE_DELAY".to_owned(), "200".to_owned()),
    ])
    .await;
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

    let deadline = Instant::now() + Duration::from_secs(30);
    let ours = loop {
        let ours: Vec<Span> = spans
            .lock()
            .unwrap()
            .iter()
            .filter(|span| hex::encode(&span.trace_id) == trace)
            .cloned()
            .collect();
        let names: Vec<&str> = ours.iter().map(|span| span.name.as_str()).collect();
        if names.contains(&"HTTP request") && names.contains(&"send_message") {
            break ours;
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
    };
    let root = ours.iter().find(|span| span.name == "HTTP request").unwrap();
    assert_eq!(
        hex::encode(&root.parent_span_id),
        "00f067aa0ba902b7",
        "the caller's span is the parent"
    );
    let send = ours.iter().find(|span| span.name == "send_message").unwrap();
    assert_eq!(
        send.parent_span_id, root.span_id,
        "the use case runs inside the request"
    );
    for span in &ours {
        assert_eq!(
            attribute(span, "request_id").as_deref(),
            Some("trace-test-1"),
            "{} has no request id",
            span.name
        );
    }
}
