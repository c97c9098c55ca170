//! Steady load: template sends at a fixed rate, spread over the API processes, every answer recorded.

use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// One send and what came of it.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The unique recipient of this request.
    pub to: String,
    pub started: Instant,
    pub elapsed: Duration,
    /// The HTTP status, or `None` when no answer came (connection refused or reset).
    pub status: Option<u16>,
    /// The message id of a 202.
    pub message_id: Option<String>,
    /// The problem `code` of an error answer.
    pub code: Option<String>,
    pub retry_after: Option<String>,
    pub error: Option<String>,
}

pub struct Load {
    stop: Arc<AtomicBool>,
    tasks: Vec<tokio::task::JoinHandle<Vec<Outcome>>>,
}

/// Recipients never repeat across the run; numbers ending 9996–9999 are skipped (the simulator steers them),
/// and so is the sender's own number (+15550001111), which the network refuses.
static NEXT: AtomicU64 = AtomicU64::new(1);

fn next_recipient() -> String {
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        if n % 10_000 < 9_996 && n != 1_111 {
            return format!("+1555{n:07}");
        }
    }
}

impl Load {
    /// `rate` sends per second from 8 clients, round-robin over `bases`.
    pub fn start(client: &reqwest::Client, bases: &[String], key: &str, rate: u32) -> Self {
        const CLIENTS: u32 = 8;
        let stop = Arc::new(AtomicBool::new(false));
        let period = Duration::from_secs_f64(f64::from(CLIENTS) / f64::from(rate.max(1)));
        let tasks = (0..CLIENTS)
            .map(|i| {
                let client = client.clone();
                let bases = bases.to_vec();
                let key = key.to_owned();
                let stop = stop.clone();
                tokio::spawn(async move {
                    let mut outcomes = Vec::new();
                    let mut tick = tokio::time::interval(period);
                    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                    let mut n = i as usize;
                    while !stop.load(Ordering::Relaxed) {
                        tick.tick().await;
                        let base = bases.get(n % bases.len().max(1)).cloned().unwrap_or_default();
                        n += 1;
                        outcomes.push(send(&client, &base, &key).await);
                    }
                    outcomes
                })
            })
            .collect();
        Self { stop, tasks }
    }

    /// Stops the load and returns every outcome.
    pub async fn stop(self) -> Vec<Outcome> {
        self.stop.store(true, Ordering::Relaxed);
        futures::future::join_all(self.tasks)
            .await
            .into_iter()
            .filter_map(Result::ok)
            .flatten()
            .collect()
    }
}

async fn send(client: &reqwest::Client, base: &str, key: &str) -> Outcome {
    let to = next_recipient();
    let started = Instant::now();
    let body = serde_json::json!({
        "to": to,
        "template": { "name": "hello_world", "language": "en_US" }
    });
    let answer = client
        .post(format!("{base}/api/v1/messages/send-template"))
        .bearer_auth(key)
        .json(&body)
        .send()
        .await;
    let mut outcome = Outcome {
        to,
        started,
        elapsed: Duration::ZERO,
        status: None,
        message_id: None,
        code: None,
        retry_after: None,
        error: None,
    };
    match answer {
        Ok(response) => {
            outcome.status = Some(response.status().as_u16());
            outcome.retry_after = response
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            match response.json::<Value>().await {
                Ok(json) => {
                    if outcome.status == Some(202) {
                        outcome.message_id = json.get("id").and_then(Value::as_str).map(str::to_owned);
                    } else {
                        outcome.code = json.get("code").and_then(Value::as_str).map(str::to_owned);
                    }
                }
                Err(error) => outcome.error = Some(format!("unreadable body: {error}")),
            }
        }
        Err(error) => outcome.error = Some(error.to_string()),
    }
    outcome.elapsed = started.elapsed();
    outcome
}

impl Outcome {
    /// One send, to see whether the service accepts again.
    pub async fn probe(client: &reqwest::Client, bases: &[String], key: &str) -> Outcome {
        let base = bases.first().cloned().unwrap_or_default();
        send(client, &base, key).await
    }
}
