//! The metrics a client cannot grow: requests with methods of the client's invention (many, and huge) add
//! no series beyond the closed set of `method` labels (`other` for any method HTTP does not define), so the
//! scrape stays the size it was; and a metrics listener bound beyond loopback is warned about at start.

use crate::free_port;
use crate::smoke::Smoke;
use std::time::{Duration, Instant};

async fn scrape(http: &reqwest::Client, port: u16) -> String {
    let response = http
        .get(format!("http://127.0.0.1:{port}/metrics"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    response.text().await.unwrap()
}

/// The `method` label of each `herald_http_requests_total` series of a scrape.
fn request_methods(text: &str) -> Vec<String> {
    text.lines()
        .filter(|line| line.starts_with("herald_http_requests_total{"))
        .filter_map(|line| {
            let (_, rest) = line.split_once("method=\"")?;
            Some(rest.split('"').next()?.to_owned())
        })
        .collect()
}

/// 300 methods no one defines (`ZZ0`…) and 20 of 60 KB each: every one is answered, and afterwards the
/// request series hold only standard methods and `other`, their count is that of a handful of requests,
/// and the scrape has grown by the few series of `other` (it grew by 5,400 series and 2 GB before).
#[tokio::test]
async fn methods_a_client_invents_add_no_series_and_the_scrape_stays_small() {
    let port = free_port();
    let smoke = Smoke::start(vec![(
        "HERALD_METRICS_LISTEN".to_owned(),
        format!("127.0.0.1:{port}"),
    )])
    .await;
    let health = smoke.http.get(smoke.url("/healthz")).send().await.unwrap();
    assert_eq!(health.status(), 200);
    let before = scrape(&smoke.http, port).await;

    let huge = "Z".repeat(60 * 1024);
    let methods: Vec<String> = (0..300)
        .map(|n| format!("ZZ{n}"))
        .chain((0..20).map(|n| format!("{huge}{n}")))
        .collect();
    for method in &methods {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let answer = smoke
            .http
            .request(method, smoke.url("/healthz"))
            .send()
            .await
            .unwrap();
        // Answered (405 or 431 for the longest heads), never dropped.
        assert!(answer.status().is_client_error(), "{}", answer.status());
    }

    let deadline = Instant::now() + Duration::from_secs(10);
    let after = loop {
        let text = scrape(&smoke.http, port).await;
        if request_methods(&text).iter().any(|m| m == "other") || Instant::now() > deadline {
            break text;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let methods = request_methods(&after);
    assert!(methods.iter().any(|m| m == "other"), "{after}");
    for method in &methods {
        assert!(
            [
                "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "CONNECT", "TRACE", "other"
            ]
            .contains(&method.as_str()),
            "a method label of the client's: {}",
            method.chars().take(40).collect::<String>()
        );
    }
    assert!(methods.len() <= 10, "{} request series: {after}", methods.len());
    assert!(
        after.len() < before.len() + 16 * 1024,
        "the scrape grew from {} to {} bytes",
        before.len(),
        after.len()
    );
}

/// `metrics_listen` on all interfaces serves the figures to anyone: the start says so at WARN; on loopback
/// it says nothing of the kind.
#[tokio::test]
async fn a_metrics_listener_beyond_loopback_is_warned_about_at_start() {
    for (host, warned) in [("0.0.0.0", true), ("127.0.0.1", false)] {
        let port = free_port();
        let smoke = Smoke::start(vec![(
            "HERALD_METRICS_LISTEN".to_owned(),
            format!("{host}:{port}"),
        )])
        .await;
        let deadline = Instant::now() + Duration::from_secs(10);
        let log = loop {
            let log = std::fs::read_to_string(smoke.folder().join("herald.log")).unwrap_or_default();
            if log.contains("serving metrics") || Instant::now() > deadline {
                break log;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        let warning = log
            .lines()
            .any(|line| line.contains("WARN") && line.contains("metrics_listen is not a loopback address"));
        assert_eq!(warning, warned, "{host}: {log}");
    }
}
