//! Customer webhook delivery: deliveries per second to a local receiver, and the delay from an event's commit
//! to the receiver's first byte at half that rate offered, through the real worker loop of a worker process.
//! Run with `make bench`; appends to the report named by `HERALD_BENCH_REPORT`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a benchmark fails loudly"
)]

#[path = "support/cpu.rs"]
mod cpu;

use cpu::CpuTimes;
use herald_app::config::{NetworkMode, Settings};
use herald_app::{Application, Services};
use herald_domain::ids::{DeliveryId, EventId, WebhookId};
use herald_domain::organization::{PlanName, SealedSecret};
use herald_domain::ports::SealContext;
use herald_domain::values::DisplayName;
use herald_domain::webhook::{DeliveryStatus, EventSelection, TestEvent, WebhookEndpoint, WebhookUrl};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const ENDPOINTS: usize = 4;
const BACKLOG: usize = 4_000;
/// The latency is read with events offered at this share of the run's own drain rate (as P2 offers half of
/// P1): a fixed rate would be light load on one machine and an overload, a growing queue, on a slower one.
const OFFERED_SHARE: f64 = 0.5;
const OFFERED_SECONDS: usize = 3;
const RUNS: usize = 3;

/// Deliveries in flight at most: the worker's cap per endpoint (4 by default) times the endpoints. The
/// receiver's own ceiling is measured with as many requests in flight.
fn in_flight() -> usize {
    let cap: u32 =
        knob("HERALD_BENCH_WEBHOOK_INFLIGHT").unwrap_or(Settings::default().webhooks.per_endpoint_inflight);
    ENDPOINTS * cap as usize
}

/// One run's figures: deliveries per second draining the backlog, the CPU it took, the receiver's own
/// ceiling, then the delays at the offered rate.
struct Figures {
    rate: f64,
    /// Events committed per second while [`OFFERED_SHARE`] of `rate` was offered, from the first due time to
    /// the last commit: below the share asked when the store could not keep up.
    committed: f64,
    /// Of those offered, the events whose recording failed (its pool's wait timed out: the open loop offered more
    /// than the store commits), left out of the latency: counted, so the run still reports what it measured.
    not_recorded: usize,
    /// CPU per delivery while draining, µs: this process (worker, receiver), then PostgreSQL's.
    bench_cpu_us: f64,
    postgres_cpu_us: f64,
    /// The machine's idle share while draining, and the host's steal.
    idle: f64,
    steal: f64,
    /// Requests per second the same receiver answers driven directly, `in_flight()` at a time.
    receiver_ceiling: f64,
    p50: Duration,
    p99: Duration,
    p999: Duration,
    max: Duration,
}

type Arrivals = Arc<Mutex<HashMap<String, Instant>>>;

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut lines = vec![
        "## P4 customer webhooks".to_owned(),
        String::new(),
        format!(
            "Command: `make bench` (`cargo bench -p herald-tests --bench webhooks`). One worker process \
             (`webhook_loops` {}, `webhook_per_endpoint_inflight` {}), {ENDPOINTS} endpoints on one local receiver answering 200 at once. Throughput: a \
             backlog of {BACKLOG} events drained. Latency: events offered for {OFFERED_SECONDS} s at {:.0} % of the \
             run's own drain rate (committed/s: the events' commits per second, first due time to last commit, \
             below the share asked when the store fell behind, with the events whose recording failed counted in \
             brackets and left out of the latency), each recorded at its due time whatever the ones \
             before it are doing (on PostgreSQL through a pool of their own, as an API process), from the event's \
             commit to the receiver's first byte. Median of {RUNS} runs (min–max), \
             each on a fresh database.",
            knob("HERALD_BENCH_WEBHOOK_LOOPS").unwrap_or(Settings::default().webhooks.loops),
            in_flight() / ENDPOINTS,
            OFFERED_SHARE * 100.0,
        ),
        String::new(),
        format!(
            "CPU per delivery while draining, from /proc: this process (the worker and the receiver) and every \
             PostgreSQL process; idle: the machine's idle share meanwhile; steal: the share of the machine the \
             host gave to others meanwhile (the median run's, then the most of any run: a run with steal was slowed \
             by the host, not by Herald). Receiver alone: the same receiver driven \
             directly by a reqwest client with as many requests in flight as the worker's cap allows ({}).",
            in_flight()
        ),
        String::new(),
        "| store | deliveries/s | min–max | CPU µs/delivery: bench process | PostgreSQL | idle | steal | receiver alone/s | ratio | committed/s | latency p50 | p99 | min–max | p99.9 | max |".to_owned(),
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|".to_owned(),
    ];
    let mut stores = vec!["sqlite"];
    if std::env::var(herald_store::testing::DATABASE_URL_ENV).is_ok() {
        stores.push("postgres");
    }
    // HERALD_BENCH_WEBHOOK_STORES=postgres measures one store alone (an A/B of two builds).
    if let Ok(only) = std::env::var("HERALD_BENCH_WEBHOOK_STORES") {
        stores.retain(|store| only.split(',').any(|wanted| wanted.trim() == *store));
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    for store in stores {
        let mut runs: Vec<Figures> = (0..RUNS).map(|_| runtime.block_on(run(store))).collect();
        runs.sort_by(|a, b| a.rate.total_cmp(&b.rate));
        let (slowest, fastest) = (runs[0].rate, runs[RUNS - 1].rate);
        let rate = runs[RUNS / 2].rate;
        let mut p99: Vec<Duration> = runs.iter().map(|r| r.p99).collect();
        p99.sort();
        // The other latency figures come from the run with the median p99.
        let typical = runs.iter().find(|r| r.p99 == p99[RUNS / 2]).unwrap();
        // CPU and the receiver's ceiling come from the run with the median rate.
        let median = &runs[RUNS / 2];
        let postgres_cpu = if store == "postgres" {
            format!("{:.0}", median.postgres_cpu_us)
        } else {
            "–".to_owned()
        };
        let committed = match typical.not_recorded {
            0 => format!("{:.0}", typical.committed),
            failed => format!("{:.0} ({failed} not recorded)", typical.committed),
        };
        let most_steal = runs.iter().map(|r| r.steal).fold(0.0, f64::max);
        let line = format!(
            "| {store} | {rate:.0} | {slowest:.0}–{fastest:.0} | {:.0} | {postgres_cpu} | {:.0} % | {:.1} % ({:.1} %) | {:.0} | {:.2}× | {committed} | {:.1} ms | {:.1} ms | {:.1}–{:.1} ms | {:.1} ms | {:.1} ms |",
            median.bench_cpu_us,
            median.idle * 100.0,
            median.steal * 100.0,
            most_steal * 100.0,
            median.receiver_ceiling,
            rate / median.receiver_ceiling,
            ms(typical.p50),
            ms(p99[RUNS / 2]),
            ms(p99[0]),
            ms(p99[RUNS - 1]),
            ms(typical.p999),
            ms(typical.max),
        );
        println!("{line}");
        lines.push(line);
    }
    if let Ok(path) = std::env::var("HERALD_BENCH_REPORT") {
        use std::io::Write;
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .unwrap();
        writeln!(file, "{}\n", lines.join("\n")).unwrap();
    }
}

async fn receiver(arrivals: Arrivals) -> String {
    let server = actix_web::HttpServer::new(move || {
        let arrivals = arrivals.clone();
        actix_web::App::new().default_service(actix_web::web::to(move |req: actix_web::HttpRequest| {
            let arrivals = arrivals.clone();
            async move {
                let now = Instant::now();
                if let Some(id) = req.headers().get("webhook-id").and_then(|v| v.to_str().ok()) {
                    arrivals.lock().unwrap().entry(id.to_owned()).or_insert(now);
                }
                actix_web::HttpResponse::Ok().finish()
            }
        }))
    })
    .workers(1)
    .bind("127.0.0.1:0")
    .unwrap();
    let url = format!("http://{}/hook", server.addrs()[0]);
    tokio::spawn(server.run());
    url
}

/// A setting the bench may be asked to vary (to show what limits the rate), from the environment.
fn knob<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

async fn run(store: &str) -> Figures {
    let (_store, guard) = match store {
        "sqlite" => herald_store::testing::fresh_sqlite().await.unwrap(),
        _ => herald_store::testing::fresh_postgres().await.unwrap().unwrap(),
    };
    let mut settings = Settings::default();
    settings.store.database_url = guard.database_url().to_owned();
    settings.network.mode = NetworkMode::Cloud;
    settings.store.encryption_key = Some("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=".to_owned().into());
    settings.webhooks.allow_private_targets = true;
    settings.webhooks.allow_insecure = true;
    settings.webhooks.loops = knob("HERALD_BENCH_WEBHOOK_LOOPS").unwrap_or(settings.webhooks.loops);
    settings.webhooks.per_endpoint_inflight =
        knob("HERALD_BENCH_WEBHOOK_INFLIGHT").unwrap_or(settings.webhooks.per_endpoint_inflight);
    let services = Services::connect(&settings).await.unwrap();
    let sealer = services.sealer.clone().unwrap();
    let org = services
        .admin()
        .create_organization(
            DisplayName::parse("Hooks").unwrap(),
            PlanName::parse("enterprise").unwrap(),
            None,
        )
        .await
        .unwrap();
    let arrivals: Arrivals = Arc::default();
    let url = receiver(arrivals.clone()).await;
    let webhooks = services.store.webhooks();
    let now = chrono::Utc::now();
    let mut endpoints = Vec::new();
    for _ in 0..ENDPOINTS {
        let id = WebhookId::from_ulid(services.ids.next_ulid());
        let endpoint = WebhookEndpoint {
            id,
            organization_id: org.id,
            url: WebhookUrl::parse(&url).unwrap(),
            events: EventSelection::ALL,
            description: None,
            enabled: true,
            disabled_reason: None,
            secret: SealedSecret::new(sealer.seal(
                &SealContext::webhook(&id),
                "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            )),
            previous_secret: None,
            previous_secret_expires_at: None,
            failing_since: None,
            created_at: now,
            updated_at: now,
        };
        assert!(webhooks.create_endpoint(&endpoint, u32::MAX).await.unwrap());
        endpoints.push(endpoint.id);
    }
    // Who records the events, as deployments run: on PostgreSQL an API process beside the worker, with a
    // pool of its own (sharing the worker's, concurrent recordings took the connections it claims with); on
    // SQLite the one process that does everything, whose one writer they share.
    let recorder = if store == "sqlite" {
        services.clone()
    } else {
        Services::connect(&settings).await.unwrap()
    };
    let org_id = org.id;
    let record = |i: usize| {
        let webhooks = recorder.store.webhooks();
        let services = recorder.clone();
        let endpoint = endpoints[i % ENDPOINTS];
        async move {
            let event = EventId::from_ulid(services.ids.next_ulid());
            let at = chrono::Utc::now();
            let payload = format!(
                r#"{{"type":"webhook.test","timestamp":"{}","data":{{}}}}"#,
                at.to_rfc3339()
            );
            webhooks
                .record_test_event(
                    &org_id,
                    &endpoint,
                    &TestEvent {
                        event_id: event,
                        delivery_id: DeliveryId::from_ulid(services.ids.next_ulid()),
                        payload,
                        at,
                    },
                    u32::MAX,
                )
                .await
                .map(|_| (event.to_string(), Instant::now()))
        }
    };

    // Throughput: a backlog, then the worker drains it.
    let mut backlog = Vec::new();
    for chunk in (0..BACKLOG).collect::<Vec<_>>().chunks(50) {
        for recorded in futures::future::join_all(chunk.iter().map(|i| record(*i))).await {
            backlog.push(recorded.expect("a backlog event, 50 at a time, is recorded"));
        }
    }
    let cpu_before = CpuTimes::now();
    let worker = Application::build(&settings, &services, herald_app::cli::Role::Worker).unwrap();
    let started = Instant::now();
    while arrivals.lock().unwrap().len() < BACKLOG {
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "the backlog did not drain"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let rate = BACKLOG as f64 / started.elapsed().as_secs_f64();
    let cpu = CpuTimes::now().since(&cpu_before);
    let per_delivery = |seconds: f64| seconds * 1e6 / BACKLOG as f64;

    // Latency at a share of the drain rate, with the worker already running. Each event is recorded at its
    // due time on a task of its own (an open loop): a slow commit delays no later event's start.
    let offered = rate * OFFERED_SHARE;
    let tick = Duration::from_secs_f64(1.0 / offered);
    let start = tokio::time::Instant::now();
    let mut recording = Vec::new();
    for i in 0..(offered * OFFERED_SECONDS as f64) as usize {
        tokio::time::sleep_until(start + tick.mul_f64(i as f64)).await;
        recording.push(tokio::spawn(record(BACKLOG + i)));
    }
    let mut committed: Vec<(String, Instant)> = Vec::with_capacity(recording.len());
    let mut not_recorded = 0;
    for task in recording {
        match task.await.unwrap() {
            Ok(recorded) => committed.push(recorded),
            Err(error) => {
                not_recorded += 1;
                if not_recorded == 1 {
                    eprintln!(
                        "an offered event was not recorded ({error}): the store fell behind the open loop"
                    );
                }
            }
        }
    }
    assert!(
        !committed.is_empty(),
        "none of the {not_recorded} offered events was recorded: the store was unavailable throughout"
    );
    let committed_rate = committed.len() as f64 / start.elapsed().as_secs_f64();
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut delays: Vec<Duration> = loop {
        let seen = arrivals.lock().unwrap().clone();
        if committed.iter().all(|(id, _)| seen.contains_key(id)) {
            break committed
                .iter()
                .map(|(id, at)| seen[id].saturating_duration_since(*at))
                .collect();
        }
        if Instant::now() >= deadline {
            // Say why, so that a rare miss can be explained: what each endpoint still holds back.
            let mut held_back = Vec::new();
            for endpoint in &endpoints {
                for status in [DeliveryStatus::Pending, DeliveryStatus::Failed] {
                    for delivery in webhooks
                        .deliveries(&org.id, endpoint, Some(status), None, 20)
                        .await
                        .unwrap()
                    {
                        let attempts: Vec<_> = delivery
                            .attempts
                            .iter()
                            .map(|a| (a.at, a.status_code, a.error_kind.clone(), a.duration_ms))
                            .collect();
                        held_back.push(format!(
                            "{} {status:?}, next attempt {:?}, attempts {attempts:?}",
                            delivery.id, delivery.next_attempt_at
                        ));
                    }
                }
            }
            panic!(
                "offered events were not all delivered within 120 s; deliveries held back (newest 20 per \
                 endpoint and status): {held_back:#?}"
            );
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    delays.sort();
    let pct = |p: f64| delays[((delays.len() as f64 * p) as usize).min(delays.len() - 1)];
    worker.stop().await;
    let receiver_ceiling = receiver_ceiling(&url).await;
    drop(guard);
    Figures {
        rate,
        committed: committed_rate,
        not_recorded,
        bench_cpu_us: per_delivery(cpu.bench),
        postgres_cpu_us: per_delivery(cpu.postgres),
        idle: cpu.idle,
        steal: cpu.steal,
        receiver_ceiling,
        p50: pct(0.5),
        p99: pct(0.99),
        p999: pct(0.999),
        max: delays[delays.len() - 1],
    }
}

/// Requests per second the receiver at `url` answers when a reqwest client keeps `in_flight()` requests of a
/// webhook's size in flight, `BACKLOG` requests in all: what the worker could reach at best.
async fn receiver_ceiling(url: &str) -> f64 {
    let client = reqwest::Client::new();
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let body = r#"{"type":"webhook.test","timestamp":"2026-11-29T00:00:00Z","data":{}}"#;
    let started = Instant::now();
    let senders = (0..in_flight()).map(|_| {
        let (client, next) = (client.clone(), next.clone());
        async move {
            loop {
                let request = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if request >= BACKLOG {
                    break;
                }
                let response = client
                    .post(url)
                    .header("content-type", "application/json")
                    .header("webhook-id", format!("ceiling-{request}"))
                    .body(body)
                    .send()
                    .await
                    .unwrap();
                assert!(response.status().is_success());
            }
        }
    });
    futures::future::join_all(senders).await;
    BACKLOG as f64 / started.elapsed().as_secs_f64()
}
