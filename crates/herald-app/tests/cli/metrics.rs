//! `metrics_listen`: the built binary serves Prometheus metrics on a listener of its own, a send shows in
//! them from the request to the dispatch, and a real Prometheus (Debian's package) scrapes and queries them.

use crate::free_port;
use crate::smoke::Smoke;
use serde_json::{Value, json};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

async fn scrape(http: &reqwest::Client, port: u16) -> String {
    let response = http
        .get(format!("http://127.0.0.1:{port}/metrics"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain"),
        "the Prometheus text format"
    );
    response.text().await.unwrap()
}

/// The value of the sample whose line starts with `series` (name and labels as rendered), if any.
fn sample(text: &str, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    text.lines()
        .filter(|line| line.starts_with(name) && !line.starts_with('#'))
        .find(|line| {
            let (series, _) = line.rsplit_once(' ').unwrap();
            series.split(['{', '}']).next() == Some(name)
                && labels
                    .iter()
                    .all(|(k, v)| series.contains(&format!("{k}=\"{v}\"")))
        })
        .map(|line| line.rsplit_once(' ').unwrap().1.parse().unwrap())
}

async fn started_with_metrics() -> (Smoke, u16) {
    started_with_metrics_and(vec![]).await
}

async fn started_with_metrics_and(mut settings: Vec<(String, String)>) -> (Smoke, u16) {
    let port = free_port();
    settings.push(("HERALD_METRICS_LISTEN".to_owned(), format!("127.0.0.1:{port}")));
    let smoke = Smoke::start(settings).await;
    (smoke, port)
}

/// Scrapes until `ready` holds of the text (a callback's figures are recorded just after its status is
/// visible), at most 10 s; answers the last text.
async fn scrape_until(http: &reqwest::Client, port: u16, ready: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let text = scrape(http, port).await;
        if ready(&text) || Instant::now() > deadline {
            return text;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_send_shows_in_the_metrics_from_request_to_dispatch() {
    let (smoke, port) = started_with_metrics().await;
    let sent = smoke
        .send_json(
            "/api/v1/messages/send-template",
            json!({ "to": "+15551234567", "template": { "name": "hello_world", "language": "en_US" } }),
        )
        .await;
    smoke.delivered(&sent).await;
    let refused = smoke
        .http
        .post(smoke.url("/api/v1/messages/send-template"))
        .bearer_auth("hk_live_000000000000000000000000000000000000000x")
        .json(&json!({ "to": "+15551234567", "template": { "name": "hello_world", "language": "en_US" } }))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 401);

    let text = scrape_until(&smoke.http, port, |text| {
        sample(text, "herald_submitted_to_delivered_seconds_count", &[]).is_some()
    })
    .await;
    let route = ("route", "/api/v1/messages/send-template");
    assert_eq!(
        sample(
            &text,
            "herald_http_requests_total",
            &[("method", "POST"), route, ("status", "202")]
        ),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        sample(&text, "herald_sends_total", &[route, ("outcome", "accepted")]),
        Some(1.0)
    );
    assert_eq!(
        sample(
            &text,
            "herald_sends_total",
            &[route, ("outcome", "unauthenticated")]
        ),
        Some(1.0)
    );
    assert!(
        sample(
            &text,
            "herald_http_request_duration_seconds_count",
            &[("method", "POST"), route]
        ) >= Some(2.0),
        "{text}"
    );
    assert!(
        sample(&text, "herald_dispatch_total", &[("outcome", "submitted")]) >= Some(1.0),
        "{text}"
    );
    // The simulator's signed status callbacks were stored and applied.
    assert!(
        sample(&text, "herald_callbacks_received_total", &[("outcome", "stored")]) >= Some(1.0),
        "{text}"
    );
    assert!(
        sample(
            &text,
            "herald_callbacks_processed_total",
            &[("outcome", "applied")]
        ) >= Some(1.0),
        "{text}"
    );
    // Paths with ids are labelled by their pattern, never by the id.
    assert!(
        sample(
            &text,
            "herald_http_requests_total",
            &[("route", "/api/v1/messages/{id}")]
        )
        .is_some(),
        "{text}"
    );
    assert!(
        sample(&text, "process_cpu_seconds_total", &[]).is_some(),
        "{text}"
    );
    // The demo runs on SQLite: its writer pool waited for at least the accept's connection.
    assert!(
        sample(
            &text,
            "herald_store_pool_wait_seconds_count",
            &[("pool", "write")]
        ) >= Some(1.0),
        "{text}"
    );
    assert!(sample(&text, "herald_store_connections_in_use", &[("pool", "read")]).is_some());
    assert!(
        sample(
            &text,
            "herald_group_commit_batch_size_count",
            &[("kind", "accept")]
        ) >= Some(1.0),
        "{text}"
    );
    // Batch sizes are counts: the served histogram has count buckets up to a batch's most, and no seconds'.
    assert!(
        sample(
            &text,
            "herald_group_commit_batch_size_bucket",
            &[("kind", "accept"), ("le", "256")]
        ) >= Some(1.0),
        "{text}"
    );
    assert_eq!(
        sample(
            &text,
            "herald_group_commit_batch_size_bucket",
            &[("kind", "accept"), ("le", "0.5")]
        ),
        None,
        "{text}"
    );
    // Each batch's write is timed, in seconds.
    assert_eq!(
        sample(
            &text,
            "herald_group_commit_write_seconds_count",
            &[("kind", "accept")]
        ),
        sample(
            &text,
            "herald_group_commit_batch_size_count",
            &[("kind", "accept")]
        ),
        "one write per batch: {text}"
    );
    assert!(
        sample(
            &text,
            "herald_group_commit_write_seconds_bucket",
            &[("kind", "accept"), ("le", "10")]
        ) >= Some(1.0),
        "{text}"
    );
    // The simulator's status callbacks went through their own group commit.
    assert!(
        sample(
            &text,
            "herald_group_commit_batch_size_count",
            &[("kind", "callback")]
        ) >= Some(1.0),
        "{text}"
    );
    assert_eq!(
        sample(&text, "herald_accept_to_submitted_seconds_count", &[]),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        sample(&text, "herald_submitted_to_delivered_seconds_count", &[]),
        Some(1.0),
        "{text}"
    );
    // Sampled when the worker starts, then every 10 s: present, as totals.
    assert!(sample(&text, "herald_outbox_depth", &[]).is_some(), "{text}");
    assert!(
        sample(&text, "herald_outbox_oldest_due_age_seconds", &[]).is_some(),
        "{text}"
    );
    assert_eq!(sample(&text, "herald_webhook_pending", &[]), Some(0.0), "{text}");
    for private in ["msg_", "org_", "snd_", "15551234567", "hk_live", "organization="] {
        assert!(!text.contains(private), "{private} in the metrics: {text}");
    }
}

/// With `metrics_organization_labels` the send, dispatch and outbox series carry the organization's id.
#[tokio::test]
async fn organization_labels_are_added_only_when_asked() {
    let (smoke, port) = started_with_metrics_and(vec![(
        "HERALD_METRICS_ORGANIZATION_LABELS".to_owned(),
        "true".to_owned(),
    )])
    .await;
    let sent = smoke
        .send_json(
            "/api/v1/messages/send-template",
            json!({ "to": "+15551234567", "template": { "name": "hello_world", "language": "en_US" } }),
        )
        .await;
    smoke.delivered(&sent).await;

    let organization = smoke.organization().to_owned();
    assert!(organization.starts_with("org_"), "{organization}");
    let text = scrape(&smoke.http, port).await;
    let labelled = ("organization", organization.as_str());
    assert_eq!(
        sample(&text, "herald_sends_total", &[("outcome", "accepted"), labelled]),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        sample(
            &text,
            "herald_dispatch_total",
            &[("outcome", "submitted"), labelled]
        ),
        Some(1.0),
        "{text}"
    );
    for private in ["15551234567", "hk_live"] {
        assert!(!text.contains(private), "{private} in the metrics: {text}");
    }
}

/// Whether Debian's Prometheus is installed; under CI it must be (`.ci/run` installs it).
fn prometheus_or_skip(test: &str) -> bool {
    let found = Command::new("prometheus").arg("--version").output().is_ok();
    if !found {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "prometheus is not installed (apt-get install prometheus)"
        );
        eprintln!("SKIPPED (prometheus not installed): {test}");
    }
    found
}

#[tokio::test]
async fn a_real_prometheus_scrapes_and_queries_herald() {
    if !prometheus_or_skip("metrics::a_real_prometheus_scrapes_and_queries_herald") {
        return;
    }
    let (smoke, port) = started_with_metrics().await;
    let folder = tempfile::tempdir().unwrap();
    let config = folder.path().join("prometheus.yml");
    std::fs::write(
        &config,
        format!(
            "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: herald\n    static_configs:\n      \
             - targets: ['127.0.0.1:{port}']\n"
        ),
    )
    .unwrap();
    let web = free_port();
    let child = Command::new("prometheus")
        .arg(format!("--config.file={}", config.display()))
        .arg(format!(
            "--storage.tsdb.path={}",
            folder.path().join("data").display()
        ))
        .arg(format!("--web.listen-address=127.0.0.1:{web}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let _prometheus = crate::Server(child);

    let sent = smoke
        .send_json(
            "/api/v1/messages/send-template",
            json!({ "to": "+15551234567", "template": { "name": "hello_world", "language": "en_US" } }),
        )
        .await;
    smoke.delivered(&sent).await;

    let query = "sum(herald_sends_total{outcome=\"accepted\"}) * on() group_left sum(herald_dispatch_total{outcome=\"submitted\"})";
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let answer: Option<Value> = match smoke
            .http
            .get(format!("http://127.0.0.1:{web}/api/v1/query"))
            .query(&[("query", query)])
            .send()
            .await
        {
            Ok(response) => response.json().await.ok(),
            Err(_) => None,
        };
        let value = answer
            .as_ref()
            .and_then(|a| a["data"]["result"][0]["value"][1].as_str());
        if value == Some("1") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "Prometheus never saw the send: {answer:?}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }

    // The waits of a message's life reach Prometheus too.
    let query = "sum(herald_accept_to_submitted_seconds_count) * on() group_left count(herald_outbox_depth)";
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let answer: Option<Value> = match smoke
            .http
            .get(format!("http://127.0.0.1:{web}/api/v1/query"))
            .query(&[("query", query)])
            .send()
            .await
        {
            Ok(response) => response.json().await.ok(),
            Err(_) => None,
        };
        let value = answer
            .as_ref()
            .and_then(|a| a["data"]["result"][0]["value"][1].as_str());
        if value == Some("1") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "Prometheus never saw the wait or the outbox: {answer:?}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }

    // Every query of the Grafana dashboard is one this Prometheus accepts.
    let dashboard: Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../deploy/grafana/herald-dashboard.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let exprs: Vec<&str> = dashboard["panels"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|panel| panel["targets"].as_array().unwrap())
        .map(|target| target["expr"].as_str().unwrap())
        .collect();
    assert!(exprs.len() >= 8);
    for expr in exprs {
        let query = expr.replace("$__rate_interval", "1m");
        let answer: Value = smoke
            .http
            .get(format!("http://127.0.0.1:{web}/api/v1/query"))
            .query(&[("query", query.as_str())])
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(answer["status"], "success", "{expr}: {answer}");
    }
}

/// Writes `request` on a connection of its own and answers the status line of what comes back (the
/// connection is closed by the server after a request it cannot read).
async fn raw_status_line(address: String, request: Vec<u8>) -> String {
    tokio::task::spawn_blocking(move || {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(address).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        stream.write_all(&request).unwrap();
        let mut answer = Vec::new();
        // Closed by the server once answered; a timeout here would fail the assertion below, not hang.
        let _ = stream.read_to_end(&mut answer);
        String::from_utf8_lossy(&answer)
            .lines()
            .next()
            .unwrap_or_default()
            .to_owned()
    })
    .await
    .unwrap()
}

/// A request that is not HTTP, or whose head is over actix's limit, is refused by the HTTP layer before any
/// route (`400`, `431`, no body), counted by kind, and writes no ERROR line to Herald's log: a client's
/// garbage is not the operator's problem. The server answers the next request as usual.
#[tokio::test]
async fn a_clients_malformed_request_is_counted_not_logged_as_an_error() {
    let (smoke, port) = started_with_metrics().await;
    let url = smoke.url("/");
    let address = url.trim_start_matches("http://").trim_end_matches('/').to_owned();

    // A bare line feed ends the header early: the rest of the value is a header line with no colon.
    let malformed = b"POST /api/v1/messages/send-template HTTP/1.1\r\nHost: herald\r\n\
        Authorization: Bearer hk_live_a\nb\r\nContent-Length: 0\r\n\r\n"
        .to_vec();
    let status = raw_status_line(address.clone(), malformed).await;
    assert!(status.starts_with("HTTP/1.1 400"), "{status}");
    let mut crowded = b"GET /healthz HTTP/1.1\r\nHost: herald\r\n".to_vec();
    for n in 0..100 {
        crowded.extend_from_slice(format!("X-Header-{n}: {n}\r\n").as_bytes());
    }
    crowded.extend_from_slice(b"\r\n");
    let status = raw_status_line(address, crowded).await;
    assert!(status.starts_with("HTTP/1.1 431"), "{status}");

    let text = scrape_until(&smoke.http, port, |text| {
        sample(
            text,
            "herald_http_connection_errors_total",
            &[("kind", "head_too_large")],
        )
        .is_some()
    })
    .await;
    for kind in ["malformed", "head_too_large"] {
        assert_eq!(
            sample(&text, "herald_http_connection_errors_total", &[("kind", kind)]),
            Some(1.0),
            "{kind}: {text}"
        );
    }
    let health = smoke.http.get(smoke.url("/healthz")).send().await.unwrap();
    assert_eq!(health.status(), 200);
    let log = std::fs::read_to_string(smoke.folder().join("herald.log")).unwrap();
    assert!(!log.contains("ERROR"), "an ERROR line in Herald's log: {log}");
    assert!(!log.contains("stream error"), "actix's line was written: {log}");
}
