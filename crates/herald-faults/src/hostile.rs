//! The memory-ceiling trial: an API process of its own (with a metrics listener, which client-chosen labels
//! once grew without bound) takes a burst of hostile requests — methods of the client's invention, many
//! and 60 KB long; usage dates beyond any calendar; broadcasts of 16 MiB of many keys and of 80,000 template
//! variables —
//! and a metrics scrape after them. Each request must be answered with its documented status (never a 5xx,
//! never a dropped connection), and the process's peak resident memory (`VmHWM` of /proc/<pid>/status)
//! must stay under the ceiling (docs/faults.md). A few seconds.

use crate::processes::{Cluster, free_port};
use std::time::Duration;

/// The stated ceiling of the trial's API process's peak resident memory, MiB (`FAULTS_RSS_CEILING_MB`).
pub const DEFAULT_CEILING_MB: u64 = 512;

/// Methods of the client's invention, and how many of them are 60 KB long.
const RANDOM_METHODS: usize = 300;
const HUGE_METHODS: usize = 20;
/// Bodies of 16 MiB of many keys, sent two at a time.
const HUGE_BODIES: usize = 4;
const VARIABLE_BODIES: usize = 8;

/// The burst; answers the problems found (empty: passed).
pub async fn memory_ceiling(cluster: &Cluster, key: &str, ceiling_mb: u64) -> anyhow::Result<Vec<String>> {
    let metrics_port = free_port()?;
    let (process, port, pid) = cluster
        .start_extra_api(
            "hostile-api",
            &[
                ("HERALD_METRICS_LISTEN", format!("127.0.0.1:{metrics_port}")),
                // The burst is the client's whole budget: its reads are not to be cut short by the limit.
                ("HERALD_READ_RATE_PER_SECOND", "100000".to_owned()),
                ("HERALD_READ_BURST", "100000".to_owned()),
                ("HERALD_WRITE_RATE_PER_SECOND", "100000".to_owned()),
                ("HERALD_WRITE_BURST", "100000".to_owned()),
            ],
        )
        .await?;
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()?;
    let base = format!("http://127.0.0.1:{port}");
    let mut problems = Vec::new();

    let huge = "Z".repeat(60 * 1024);
    let methods: Vec<String> = (0..RANDOM_METHODS)
        .map(|n| format!("ZZ{n}"))
        .chain((0..HUGE_METHODS).map(|n| format!("{huge}{n}")))
        .collect();
    for chunk in methods.chunks(50) {
        let answers = futures::future::join_all(chunk.iter().map(|method| {
            let request = reqwest::Method::from_bytes(method.as_bytes())
                .map(|method| client.request(method, format!("{base}/healthz")).send());
            async move {
                match request {
                    Ok(send) => send.await.map(|r| r.status().as_u16()).ok(),
                    Err(_) => Some(400),
                }
            }
        }))
        .await;
        for (method, status) in chunk.iter().zip(answers) {
            expect(&mut problems, &short(method), status, &[400, 405, 431]);
        }
    }

    for query in [
        "until=-262143-01-01",
        "until=%2B262142-12-31&from=%2B262142-12-30",
        "until=-4713-12-01",
        "from=0000-01-01",
        "until=%2B10000-01-01",
    ] {
        let status = client
            .get(format!("{base}/api/v1/usage?{query}"))
            .bearer_auth(key)
            .send()
            .await
            .map(|r| r.status().as_u16())
            .ok();
        expect(&mut problems, &format!("usage {query}"), status, &[422]);
    }

    // Just under the 16 MiB a broadcast may be, so that it is read and parsed whole.
    let many_keys = many_keys_body(16 * 1024 * 1024 - 1024);
    for pair in 0..HUGE_BODIES / 2 {
        let answers = futures::future::join_all((0..2).map(|_| {
            client
                .post(format!("{base}/api/v1/broadcasts"))
                .bearer_auth(key)
                .header("content-type", "application/json")
                .body(many_keys.clone())
                .send()
        }))
        .await;
        for answer in answers {
            let status = answer.map(|r| r.status().as_u16()).ok();
            expect(
                &mut problems,
                &format!("16 MiB of many keys ({pair})"),
                status,
                &[400, 413, 422],
            );
        }
    }
    let variables = serde_json::json!({
        "template": { "name": "hello_world", "language": "en_US" },
        "recipients": [{
            "to": "+15551234567",
            "variables": { "body": (0..80_000).map(|n| n.to_string()).collect::<Vec<_>>() },
        }],
    })
    .to_string();
    let answers = futures::future::join_all((0..VARIABLE_BODIES).map(|_| {
        client
            .post(format!("{base}/api/v1/broadcasts"))
            .bearer_auth(key)
            .header("content-type", "application/json")
            .body(variables.clone())
            .send()
    }))
    .await;
    for answer in answers {
        let status = answer.map(|r| r.status().as_u16()).ok();
        expect(&mut problems, "80,000 variables", status, &[413, 422]);
    }

    // The scrape renders every series the burst left: it once peaked at 4.7 GB.
    let scrape = client
        .get(format!("http://127.0.0.1:{metrics_port}/metrics"))
        .send()
        .await;
    match scrape {
        Ok(response) => {
            let text = response.text().await.unwrap_or_default();
            if text.len() > 1024 * 1024 {
                problems.push(format!("the metrics scrape is {} bytes", text.len()));
            }
        }
        Err(error) => problems.push(format!("the metrics scrape failed: {error}")),
    }
    let health = client.get(format!("{base}/healthz")).send().await;
    if !health.is_ok_and(|r| r.status() == 200) {
        problems.push("the process no longer answers /healthz".to_owned());
    }
    match peak_resident_kib(pid) {
        Some(kib) => {
            println!(
                "     hostile-api peak resident memory: {} MiB (ceiling {ceiling_mb} MiB)",
                kib / 1024
            );
            if kib / 1024 > ceiling_mb {
                problems.push(format!(
                    "peak resident memory {} MiB over the ceiling of {ceiling_mb} MiB",
                    kib / 1024
                ));
            }
        }
        None => problems.push(format!("no VmHWM in /proc/{pid}/status")),
    }
    drop(process);
    Ok(problems)
}

fn expect(problems: &mut Vec<String>, what: &str, status: Option<u16>, allowed: &[u16]) {
    match status {
        Some(status) if allowed.contains(&status) => {}
        Some(status) => problems.push(format!("{what}: {status}, expected one of {allowed:?}")),
        None => problems.push(format!("{what}: no answer (connection dropped)")),
    }
}

fn short(method: &str) -> String {
    let head: String = method.chars().take(12).collect();
    format!("method {head}… ({} bytes)", method.len())
}

/// A JSON object of as many small keys as fit in `size` bytes.
fn many_keys_body(size: usize) -> Vec<u8> {
    let mut body = Vec::with_capacity(size);
    body.push(b'{');
    let mut n = 0_u64;
    loop {
        let field = format!("\"k{n}\":{n}");
        if body.len() + field.len() + 2 > size {
            break;
        }
        if n > 0 {
            body.push(b',');
        }
        body.extend_from_slice(field.as_bytes());
        n += 1;
    }
    body.push(b'}');
    body
}

/// `VmHWM` of the process, KiB: the peak of its resident memory since it started.
fn peak_resident_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
}
